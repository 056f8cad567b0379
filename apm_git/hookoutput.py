"""What an agent hook prints for Claude Code: `hookSpecificOutput` JSON, its context capped under the limit.

Light on purpose (json only): the recall hook's own entry point (apm_git.agents.recall_hook) uses it.
"""
from __future__ import annotations

import json

HOOK_LIMIT = 10_000  # Claude Code's additionalContext must stay under this many characters
FILE_MARK = "<!-- apm-git: "
RECORD_MARK = "## "
NOTE_ROOM = 400  # room kept for the note that says what was cut


def hook_json(event: str, context: str) -> str:
    """The one line of JSON Claude Code reads from a SessionStart or UserPromptSubmit hook."""
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}},
                      ensure_ascii=False)


def cap(text: str, limit: int = HOOK_LIMIT, *, program: str = "apm-git") -> str:
    """`text` under `limit` characters: cut at a record (or file) boundary, or at a line boundary when
    the last one is far back, with a note that says how much and which files are not shown."""
    if len(text) < limit:
        return text
    room = limit - NOTE_ROOM
    head = text[:room]
    line_end = head.rfind("\n") + 1
    boundary = max(head.rfind("\n" + RECORD_MARK), head.rfind("\n" + FILE_MARK)) + 1
    end = boundary if boundary > 0 and line_end - boundary <= room // 5 else line_end
    hidden = [line[len(FILE_MARK):].split(" (")[0] for line in text[end:].splitlines() if line.startswith(FILE_MARK)]
    files = ", ".join(hidden) if len(", ".join(hidden)) <= 200 else f"{len(hidden)} more files"
    return text[:end] + (
        f"\n[apm-git: cut here to stay under {limit:,} characters; {len(text) - end:,} characters not shown"
        + (f", among them {files}" if hidden else "")
        + f". `{program} search QUERY` finds single entries.]\n"
    )
