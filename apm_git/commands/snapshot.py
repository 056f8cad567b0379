"""`apm-git snapshot`: commit what changed in tracked folders (an agent hook, the timer, or by hand)."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from apm_git.errors import ApmGitError, UsageError
from apm_git.model.vocabulary import SnapshotTrigger
from apm_git.operations import snapshot as snapshots
from apm_git.store import tracked as store


@dataclasses.dataclass
class Outcome:
    tracked: store.Tracked
    snapshot: snapshots.TrackedSnapshot | None
    error: str | None = None  # the folder or its history is gone, the lock was held …


def snapshot(
    spec: str | None, where: Path, *, trigger: SnapshotTrigger = "manual", session: str | None = None,
    message: str | None = None, every: bool = False, allow: Sequence[str] = (),
) -> list[Outcome]:
    """Snapshot the tracked folder `spec` names (or, with `every`, each active one: the timer's run, which goes on
    past a folder that fails); `allow`: `PATH:LINE`s whose suspected secrets are false positives."""
    if every:
        if spec is not None or allow:
            raise UsageError("--all snapshots every tracked folder: give no folder and no --allow-secret with it")
        outcomes = []
        for item in store.readable():
            if not item.active:
                continue
            try:
                outcomes.append(Outcome(item, snapshots.take(item, trigger, session=session, message=message)))
                snapshots.note_session(item, trigger, session)
            except ApmGitError as error:
                outcomes.append(Outcome(item, None, str(error)))
        return outcomes
    tracked = store.find(spec, where)
    if not tracked.active:
        raise UsageError(f"{tracked.folder} is not tracked any more (`apm-git untrack` ran); run "
                         f"`apm-git track {tracked.agent} {tracked.folder}` to resume")
    if allow:
        tracked = _allow(tracked, allow)
    outcome = Outcome(tracked, snapshots.take(tracked, trigger, session=session, message=message))
    snapshots.note_session(tracked, trigger, session)
    return [outcome]


def _allow(tracked: store.Tracked, specs: Sequence[str]) -> store.Tracked:
    """Mark the suspected secrets on each `PATH:LINE` as false positives (their fingerprints, never the values)."""
    from apm_git.secret_scan import scan

    marked = list(tracked.allowed)
    for spec in specs:
        rel, colon, number = spec.rpartition(":")
        if not colon or not number.isdigit() or int(number) < 1:
            raise UsageError(f"--allow-secret {spec!r}: give PATH:LINE as the snapshot printed it")
        target = tracked.path / store.in_folder(tracked, rel)
        try:
            text = target.read_bytes().decode("utf-8", "replace")
        except OSError as error:
            raise UsageError(f"--allow-secret {spec!r}: {target} cannot be read ({error.strerror})") from None
        suspects = [suspect for suspect in scan(text, rel) if suspect.line == int(number)]
        if not suspects:
            raise UsageError(f"--allow-secret {spec!r}: nothing on that line looks like a credential")
        marked += [suspect.fingerprint for suspect in suspects if suspect.fingerprint not in marked]
    updated = tracked._replace(allowed=tuple(marked))
    store.save(updated)
    return updated
