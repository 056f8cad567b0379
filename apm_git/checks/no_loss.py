"""apm-no-loss: every entry at the base survives somewhere.

An entry id present at the base in a changed or deleted record file must afterwards be
a live or archived entry, or be named in a surviving entry's `Merged:` or `Supersedes:`.
Only ids that vanished from the changed files are looked up, so the check stays fast on
a large memory.
"""
from __future__ import annotations

from collections.abc import Iterator

from apm_git.checks.snapshot import RECORD_KINDS, Finding, Snapshot
from apm_git.names import ARCHIVE

ID = "apm-no-loss"


def validate(snap: Snapshot) -> Iterator[Finding]:
    before: dict[str, tuple[str, int]] = {}
    for change in snap.changes:
        if change.status == "A" or snap.kind(change.path) not in RECORD_KINDS:
            continue
        if change.path in snap.unreadable:
            # its entries are not gone, they cannot be read: one finding, not one per entry
            line, why = snap.unreadable[change.path]
            yield Finding(change.path, line, ID,
                          f"cannot read this file, so its entries at {snap.base_name} cannot be checked: {why}")
            continue
        for entry, line in snap.base_entries(change.path).items():
            before.setdefault(entry, (change.path, line))
    if not before:
        return
    after = {
        record.id
        for change in snap.changes if change.status != "D" and change.path in snap.new
        for record in snap.parsed(change.path).records
    }
    vanished = [entry for entry in before if entry not in after]
    if not vanished:
        return
    places = snap.entries.places(vanished)
    for entry in vanished:
        if places[entry]:
            continue
        path, line = before[entry]
        yield Finding(
            path, line, ID,
            f"entry {entry} (line {line} at {snap.base_name}) is gone: it is not a live or archived entry anywhere, "
            f"nor named in a Merged or Supersedes field; move it to {snap.config.memory_dir}/{ARCHIVE}/ instead "
            "of deleting it, or restore it",
        )
