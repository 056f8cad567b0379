"""apm-budget: a memory file is over its line budget (`budgets` in apm.yaml)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from apm_git.checks.check import Check
from apm_git.model import dated, names
from apm_git.model.records import count_lines
from apm_git.model.snapshot import Finding, Snapshot

ID: Final = "apm-budget"
# REM never scores or archives a journal's items: deep sleep moves them out (promotes them), in its own turn.
JOURNAL_FIX = ("deep sleep promotes its items into the category files (`apm-git deep-sleep`, or `apm-git dream` "
               "when it is due), REM never shortens a journal; a busy day, or a memory several agents share "
               "(`apm-git sync` merges their journals), needs a journal budget sized for its writers: "
               "`budgets` -> `journal` in apm.yaml")


def validate(snap: Snapshot) -> Iterator[Finding]:
    yield from too_large(snap)
    for path in snap.targets:
        rel = snap.rel(path)
        text = snap.new.get(path)
        budget = None if rel is None else snap.config.budget_for(rel)
        if text is None or budget is None:
            continue
        lines = count_lines(text)
        if lines > budget:
            if rel is not None and dated.journal_date(rel) is not None:
                fix = JOURNAL_FIX
            elif rel is not None and rem_settles(snap, rel, text, budget):
                fix = ("the next `apm-git rem` (or `apm-git dream`, when REM is due) archives its lowest-scored "
                       "entries (a person's own `git merge` of two memories can leave a file over budget; "
                       "`apm-git sync` archives in its merge), or raise its budget in apm.yaml")
            else:
                fix = "archive or move entries (`apm-git rem`), or raise its budget in apm.yaml"
            over = f"{lines}/{budget} lines: over its line budget by {lines - budget}"
            yield Finding(path, budget + 1, ID, f"{over}; {fix}")


def rem_settles(snap: Snapshot, rel: str, text: str, budget: int) -> bool:
    """Whether REM's budget step can bring the file to its budget: a file whose entries REM scores (a
    category file, a group's experience.md) whose prose alone (never moved) is within the budget."""
    parts = rel.split("/")
    if rel not in snap.config.routing.values() and not (
            len(parts) == 3 and parts[0] == names.GROUPS and parts[2] == names.EXPERIENCE):
        return False
    from apm_git.model.records import parse

    return parse(text).prose_lines < budget


def too_large(snap: Snapshot) -> Iterator[Finding]:
    """A target too large for apm-git to read (its size is all that is known of it)."""
    for path in snap.targets:
        if path in snap.oversized:
            from apm_git.model.limits import MAX_FILE_BYTES, megabytes

            yield Finding(
                path, 1, ID,
                f"{megabytes(snap.oversized[path])}: over the {megabytes(MAX_FILE_BYTES)} apm-git reads, so its "
                "records were not checked; split it, or move what is not memory out of the memory dir",
            )


CHECK = Check(
    ID, "a memory file is over its line budget",
    applies_to="file", severity=50, validate=validate,
)
