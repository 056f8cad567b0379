"""apm-append-only: an append-only index (`append_only` in apm.yaml) may only grow.

Allowed: adding lines anywhere, and adding `[DEPRECATED]` to a line.  Anything else
(a line removed or reworded, or the file deleted or renamed away) is a finding.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from apm_git.checks.check import Check
from apm_git.model.records import split_lines, strip_eol
from apm_git.model.snapshot import Finding, Snapshot

ID: Final = "apm-append-only"
DEPRECATED = "[DEPRECATED]"


def validate(snap: Snapshot) -> Iterator[Finding]:
    for change in snap.changes:
        rel = snap.rel(change.path)
        if rel is None or not snap.config.is_append_only(rel):
            continue
        if change.status == "D":
            yield Finding(
                change.path, 1, ID,
                f"append-only file deleted (or renamed away); restore it with `git checkout {snap.base_name} -- "
                f"{change.path}` and mark retired lines {DEPRECATED} instead",
            )
        elif change.status == "M" and change.path in snap.base and change.path in snap.new:
            broken = first_lost_line(snap.base[change.path], snap.new[change.path])
            if broken is not None:
                line, text = broken
                yield Finding(
                    change.path, line, ID,
                    f"append-only file lost or reworded the line {text!r}; only add lines, or add {DEPRECATED} "
                    "to a line you retire",
                )


def first_lost_line(base: str, new: str) -> tuple[int, str] | None:
    """Where the new text first fails to keep a base line: (line in the new text, the base line), or None.

    Base lines must appear in the new text in their order, each unchanged or with
    `[DEPRECATED]` added; matching each to the earliest possible new line is optimal.
    """
    old_lines = [strip_eol(line) for line in split_lines(base)]
    new_lines = [strip_eol(line) for line in split_lines(new)]
    position = 0
    for old in old_lines:
        start = position
        while position < len(new_lines) and not _keeps(old, new_lines[position]):
            position += 1
        if position == len(new_lines):
            return min(start + 1, max(len(new_lines), 1)), old
        position += 1
    return None


def _keeps(old: str, new: str) -> bool:
    if new == old:
        return True
    if DEPRECATED not in new or new.count(DEPRECATED) <= old.count(DEPRECATED):
        return False
    return _squash(new.replace(DEPRECATED, "", 1)) == _squash(old)


def _squash(text: str) -> str:
    return " ".join(text.split())


CHECK = Check(
    ID, "an append-only index lost or reworded a line, or was deleted",
    applies_to="snapshot", severity=30, validate=validate,
)
