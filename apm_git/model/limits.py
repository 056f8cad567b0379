"""The largest memory file apm-git reads, and how a size is said."""
from __future__ import annotations

# apm-git reads (decodes, parses, scans, counts tokens of) memory files up to this size.  A
# memory file lives within a line budget of a few hundred lines; one of several megabytes was
# not written by hand, and reading it would cost seconds and hundreds of megabytes per command.
MAX_FILE_BYTES = 4 * 1024 * 1024


def megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"
