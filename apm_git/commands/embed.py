"""`apm-git embed`: the meaning layer's vectors of every passage the search index holds, for `search --meaning`
and the per-prompt hook (apm_git/operations/embedding.py)."""
from __future__ import annotations

from apm_git.operations.embedding import EmbedResult, embed

__all__ = ["EmbedResult", "embed"]
