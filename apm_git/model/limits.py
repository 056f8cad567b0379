"""The largest memory file apm-git reads, the bounds of text from outside, and how a size is said."""
from __future__ import annotations

# apm-git reads (decodes, parses, scans, counts tokens of) memory files up to this size.  A
# memory file lives within a line budget of a few hundred lines; one of several megabytes was
# not written by hand, and reading it would cost seconds and hundreds of megabytes per command.
MAX_FILE_BYTES = 4 * 1024 * 1024

# Text from outside that a flush writes into history and flush-state.json (model/commit_text.py).
# An agent's session id is a UUID (36 characters); a flush message is a line or a short paragraph;
# a finding is one line of apm-git's own, naming a file and what to do.  Past these, the text is
# not what it claims to be, and a commit message or state file must not carry megabytes of it.
MAX_SESSION_CHARS = 200
MAX_MESSAGE_CHARS = 4096
MAX_FINDING_CHARS = 1000

# One journal item (`journal add`, `remember`, their MCP tools): its text, title and tags in UTF-8.
# A journal holds about a hundred lines; an item of 64 KB is a document, which belongs in a file of
# its own, and a larger one would soon take the day's journal past MAX_FILE_BYTES, which no command
# then reads or commits.
MAX_ITEM_BYTES = 64 * 1024


def megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"
