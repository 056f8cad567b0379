"""The entry-level three-way merge of a memory (docs/merge.md): pure, text in, text out.

`merge_memory` merges three versions of the memory tree; `lost_entries` checks a merge's
result against both sides.  `apm-git merge-driver` (apm_git/commands/merge_driver.py) and
`apm-git sync` are the callers that read and write files.
"""
from __future__ import annotations

from apm_git.merge.conserve import lost_entries
from apm_git.merge.tree import MemoryMerge, MergeConflict, merge_memory

__all__ = ["MemoryMerge", "MergeConflict", "lost_entries", "merge_memory"]
