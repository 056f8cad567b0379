"""The entry-level three-way merge of a memory (docs/merge.md): pure, text in, text out.

`merge_memory` merges three versions of the memory tree; `lost_entries` checks a merge's
result against both sides.  `apm-git merge-driver` (apm_git/commands/merge_driver.py) and
`apm-git sync` are the callers that read and write files.
"""
