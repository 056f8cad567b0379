"""apm-no-loss: every entry at the base survives somewhere.

An entry id present at the base in a changed or deleted record file must afterwards be
a live or archived entry, or be named in a surviving entry's `Merged:` or `Supersedes:`,
or have been deleted deliberately (an `Apm-Forget` trailer between the two sides).
Only ids that vanished from the changed files are looked up, so the check stays fast on
a large memory.  A file whose new side cannot be read (not UTF-8) loses nothing: its
entries are not known to be gone; it is one finding, not one per entry.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from apm_git.checks.check import Check
from apm_git.model.names import ARCHIVE
from apm_git.model.snapshot import RECORD_KINDS, Finding, Snapshot

ID: Final = "apm-no-loss"


def lost(snap: Snapshot) -> dict[str, tuple[str, int]]:
    """Entry id -> (path, line) at the base of each entry that is gone with no record of where it went."""
    before: dict[str, tuple[str, int]] = {}
    for change in snap.changes:
        if change.status == "A" or snap.kind(change.path) not in RECORD_KINDS or change.path in snap.unreadable:
            continue
        if change.path in snap.oversized:
            continue  # too large to read: it keeps whatever it holds (apm-budget reports its size)
        for entry, line in snap.base_entries(change.path).items():
            before.setdefault(entry, (change.path, line))
    if not before:
        return {}
    after = {
        record.id
        for change in snap.changes if change.status != "D" and change.path in snap.new
        for record in snap.parsed(change.path).records
    }
    vanished = [entry for entry in before if entry not in after and entry not in snap.forgotten]
    if not vanished:
        return {}
    places = snap.entries.places(vanished)
    return {entry: before[entry] for entry in vanished if not places[entry]}


def validate(snap: Snapshot) -> Iterator[Finding]:
    for change in snap.changes:
        if change.status != "A" and change.path in snap.unreadable and snap.kind(change.path) in RECORD_KINDS:
            # its entries are not gone, they cannot be read: one finding, not one per entry
            line, why = snap.unreadable[change.path]
            yield Finding(change.path, line, ID,
                          f"cannot read this file, so its entries at {snap.base_name} cannot be checked: {why}")
    for entry, (path, line) in lost(snap).items():
        yield Finding(
            path, line, ID,
            f"entry {entry} (line {line} at {snap.base_name}) is gone: it is not a live or archived entry anywhere, "
            f"nor named in a Merged or Supersedes field; move it to {snap.config.memory_dir}/{ARCHIVE}/ instead "
            f"of deleting it, restore it, or delete it deliberately with `apm-git forget {entry} --reason TEXT`",
        )


CHECK = Check(
    ID, "an entry vanished: not live, archived, merged or superseded anywhere",
    applies_to="snapshot", severity=20, validate=validate,
)
