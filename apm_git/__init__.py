"""apm-git: an AI agent's Markdown memory, kept in git."""
from __future__ import annotations

__version__ = "0.1.0"
