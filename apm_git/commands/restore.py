"""`apm-git restore`: bring back a file version or a removed section of a tracked folder, as a new snapshot
(never a history rewrite; docs/tracking.md, "Restore").

The folder's state is snapshotted first, so what the restore replaces stays in the history too; then the
files are written (each whole or not at all) and snapshotted with `Apm-Trigger: restore` and one
`Apm-Restore` trailer per file.  Restoring is the one time tracking writes into the agent's folder, and
only because the user asked.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from apm_git import git
from apm_git.errors import OsFailure, StateError, UsageError
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.operations import snapshot as snapshots
from apm_git.store import tracked as store
from apm_git.store.atomic import write_atomic
from apm_git.store.lock import file_lock
from apm_git.tracking.splice import find_section, put_section

LOOK_BACK = 500  # snapshots searched for a file's earlier version or a section


@dataclasses.dataclass
class Restored:
    path: str
    source: str  # the commit whose version came back
    section: str | None  # the heading, when one section came back


@dataclasses.dataclass
class RestoreResult:
    tracked: store.Tracked
    restored: list[Restored]
    unchanged: list[str]  # files that already were as asked
    before: snapshots.TrackedSnapshot  # the snapshot of the folder as it was (commit None: nothing new)
    after: snapshots.TrackedSnapshot


def restore(
    spec: str | None, where: Path, *, paths: Sequence[str], revision: str | None = None, section: str | None = None,
) -> RestoreResult:
    tracked = store.find(spec, where)
    folder = snapshots.open_history(tracked)
    rels = [store.in_folder(tracked, path) for path in paths]
    if not rels and revision is None:
        raise UsageError("name the files to restore (as `apm-git diff` names them), or give --from REV for every "
                         "file that REV holds")
    if section is not None and len(rels) != 1:
        raise UsageError("--section restores one section of one file: name that file")
    source = None
    if revision is not None:
        source = git.commit_id(folder, revision)
        if source is None or revision.startswith("-"):
            raise UsageError(f"{revision!r} names no snapshot of {folder}; `apm-git log --tracked {tracked.id}` "
                             "lists them")
    with file_lock(tracked.lock_path, f"another apm-git process on {folder}"):
        before = snapshots.take_locked(tracked, "manual", message="The folder as it was before a restore.")
        if not rels:
            assert source is not None
            rels = sorted(git.tree_blobs(folder, source, []))
        planned: list[tuple[Restored, bytes]] = []
        unchanged: list[str] = []
        for rel in rels:
            done = _plan(folder, rel, source, section)
            current = _current(folder, rel)
            if current == done[1]:
                unchanged.append(rel)
            else:
                planned.append(done)
        for restored, data in planned:
            try:
                write_atomic(folder / restored.path, data)
            except OSError as error:
                raise OsFailure.of(error, folder / restored.path) from None
        extra = [("Apm-Restore", f"{item.path}{' ' + repr(item.section) if item.section else ''} from "
                                 f"{item.source[:12]}") for item, _ in planned]
        after = snapshots.take_locked(tracked, "restore", paths=[item.path for item, _ in planned] or None,
                                      extra=extra, message=None)
    return RestoreResult(tracked, [item for item, _ in planned], unchanged, before, after)


def _current(folder: Path, rel: str) -> bytes | None:
    try:
        return (folder / rel).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise OsFailure.of(error, folder / rel) from None


def _plan(folder: Path, rel: str, source: str | None, section: str | None) -> tuple[Restored, bytes]:
    """The bytes `rel` gets back, and from which snapshot."""
    if source is not None:
        data = _blob(folder, source, rel)
        if data is None:
            raise StateError(f"snapshot {source[:12]} has no {rel}; `apm-git log` lists the snapshots")
        return _take(folder, rel, source, data, section)
    history = git.log_changes(folder, "HEAD", [rel])[:LOOK_BACK]
    if section is None:  # the version before the newest change
        for logged in history:
            change = next((change for change in logged.changes if change.path == rel), None)
            if change is not None and change.status != "A" and logged.commit.parents:
                parent = logged.commit.parents[0]
                data = _blob(folder, parent, change.old_path or rel)
                if data is not None:
                    return Restored(rel, parent, None), data
        raise StateError(f"{rel} has no earlier version in the history to restore")
    for logged in history:
        for commit in (logged.commit.sha, *logged.commit.parents[:1]):
            data = _blob(folder, commit, rel)
            if data is not None and find_section(_text(data, rel, commit), section) is not None:
                return _take(folder, rel, commit, data, section, current_first=True)
    raise StateError(f"no snapshot of {rel} holds a section {section!r}; `apm-git diff` names the sections")


def _take(folder: Path, rel: str, source: str, data: bytes, section: str | None, *,
          current_first: bool = False) -> tuple[Restored, bytes]:
    if section is None:
        return Restored(rel, source, None), data
    old = _text(data, rel, source)
    if find_section(old, section) is None:
        raise StateError(f"{rel} in snapshot {source[:12]} has no section {section!r}")
    current = _current(folder, rel)
    now = _text(current, rel, "the folder") if current is not None else ""
    part = find_section(old, section)
    assert part is not None
    if current_first and (mine := find_section(now, section)) is not None and mine.text.rstrip() == part.text.rstrip():
        raise StateError(f"{rel} holds section {section!r} as the history has it; give --from REV for another version")
    return Restored(rel, source, part.heading), put_section(now, old, section).encode("utf-8")


def _blob(folder: Path, commit: str, rel: str) -> bytes | None:
    spec = f"{commit}:{rel}"
    return git.cat_files(folder, [spec]).get(spec)


def _text(data: bytes, rel: str, where: str) -> str:
    if len(data) > MAX_FILE_BYTES:
        raise StateError(f"{rel} in {where[:12]} is over the size apm-git reads; restore the whole file instead")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise StateError(f"{rel} in {where[:12]} is not UTF-8 text; restore the whole file instead") from None
