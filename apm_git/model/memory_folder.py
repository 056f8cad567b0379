"""Whether a folder `init` is about to adopt looks like an agent's memory (docs/adopting.md, "A folder that is
not memory").

`init` commits what the memory dir holds and routes its files to apm-git's merge driver from then on.
A project's own `memory/` (an allocator's `slab.c` and its `README.md`) is no agent's memory: adopting it
would commit the user's work in progress at every flush.  So a folder is adopted when it shows a sign of
memory; without one, only Markdown notes (with data files beside them) are taken for memory.

Signs of memory: a dated name (`2026-04-06.md`, `2026-04-06-standup.md`), a name agents and apm-git give
memory files (INDEX.md, MEMORY.md, decisions.md, people.md, journal.md, …), apm-git's own folders and
state files, or a dated record (`## [2026-04-06] Title`) or session notes in a Markdown file.
"""
from __future__ import annotations

import re

MARKDOWN = (".md", ".markdown")
DATA = (".json", ".jsonl", ".txt", ".log", ".csv", ".yaml", ".yml")  # what agents keep beside their notes
MEMORY_NAMES = frozenset({
    "index", "memory", "memories", "decisions", "lessons", "project-context", "people", "tools-config", "longterm",
    "attention", "journal", "daily-synced", "user-preferences", "preferences", "context", "learnings", "notes",
})
APM_FOLDERS = ("main", "groups", "archive", "kept")
STATE_FILES = ("flush-state.json", "group_names.json", "apm-baseline.json")
# A project's documentation: Markdown that is plainly not memory when nothing else is.
DOC_NAMES = frozenset({"readme", "changelog", "changes", "contributing", "license", "licence", "code_of_conduct",
                       "security", "authors", "history", "design", "architecture", "install", "usage", "api"})
DATED = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")
RECORD = re.compile(r"^## (?:\[\d{4}-\d{2}-\d{2}\]|\d{1,2}:\d{2} .{0,3}Session Notes)", re.MULTILINE)
SHOWN = 3  # names in the message, then "and N more"


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    return name.rsplit(".", 1)[0] if "." in name else name


def is_memory_sign(path: str, head: str) -> bool:
    """Whether one file (its path in the memory dir, the start of its text) shows the folder is memory."""
    lower = path.lower()
    if lower.split("/", 1)[0] in APM_FOLDERS or lower in STATE_FILES:
        return True
    if not lower.endswith(MARKDOWN):
        return False
    return bool(DATED.search(lower)) or _stem(lower) in MEMORY_NAMES or bool(RECORD.search(head))


def refusal(files: list[tuple[str, str]]) -> str | None:
    """None when the files (path in the memory dir, start of the text) look like an agent's memory, or there
    are none; else what was found, for the one line `init` prints."""
    seen = [(path, head) for path, head in files if not any(part.startswith(".") for part in path.split("/"))]
    if not seen or any(is_memory_sign(path, head) for path, head in seen):
        return None
    notes = [path for path, _ in seen if path.lower().endswith(MARKDOWN) and _stem(path) not in DOC_NAMES]
    other = [path for path, _ in seen if not path.lower().endswith(MARKDOWN + DATA)]
    if notes and not other:
        return None
    shown = sorted(other)[:SHOWN] + sorted(path for path, _ in seen if path not in other)[:max(0, SHOWN - len(other))]
    more = f" and {len(seen) - len(shown)} more" if len(seen) > len(shown) else ""
    why = "files that are not Markdown" if other else "a project's documentation"
    return f"{', '.join(shown)}{more}: {why}, and no journal, memory file or dated record among them"
