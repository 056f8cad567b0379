"""`apm-git track AGENT [--project DIR] [PATH]`, `track --list` and `untrack`: version an agent's own memory
folder where it is, with its history apart from it (docs/tracking.md)."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from apm_git import clock, git
from apm_git.errors import StateError, UsageError
from apm_git.model.vocabulary import TrackedAgent
from apm_git.operations import snapshot as snapshots
from apm_git.operations.track_setup import first_commit, locate, start_history
from apm_git.store import tracked as store
from apm_git.store.lock import file_lock
from apm_git.tracking.cap import Limits


@dataclasses.dataclass
class TrackResult:
    tracked: store.Tracked
    created: bool  # a new history; False: an earlier one resumed
    snapshot: snapshots.TrackedSnapshot
    notes: list[str]


def track(
    agent: TrackedAgent, *, project: Path | None = None, path: Path | None = None, name: str | None = None,
    remote: str | None = None, cap_lines: int | None = None, cap_bytes: int | None = None,
) -> TrackResult:
    """Start (or resume) the history of an agent's folder and snapshot it; a limit of the loading cap not
    given keeps its earlier setting (or the default)."""
    place = locate(agent, project=project, path=path, name=name)
    folder = place.folder
    if not folder.is_dir():
        what = "is a file" if folder.exists() else "does not exist"
        raise StateError(f"{folder} {what}: the {agent} memory folder is made by the agent when it first writes a "
                         "memory; run `apm-git track` again then, or give the folder as PATH")
    real = os.path.realpath(folder)
    data = os.path.realpath(store.home())
    if real == data or real.startswith(data + os.sep) or data.startswith(real + os.sep):
        raise UsageError(f"{folder} holds apm-git's data home ({store.home()}) or lies in it; track another folder")
    if remote is not None and remote.startswith("-"):
        raise UsageError(f"--remote {remote!r} is not a URL")
    items = store.readable()
    ident = store.make_id(agent, real, place.project.name if place.project and agent != "codex" else folder.name)
    for other in items:
        there = os.path.realpath(other.folder)
        if other.id != ident and other.active and (real.startswith(there + os.sep) or there.startswith(real + os.sep)):
            raise UsageError(f"{folder} and the tracked folder {other.folder} ({other.id}) lie one inside the other; "
                             f"untrack one first (`apm-git untrack {other.id}`)")
    earlier = next((item for item in items if item.id == ident), None)
    notes = [place.note] if place.note else []
    cap = earlier.cap if earlier else Limits()
    tracked = store.Tracked(
        ident, agent, str(folder), str(place.project) if place.project else None,
        place.identity or (earlier.identity if earlier else None),
        remote or (earlier.remote if earlier else None), True,
        Limits(cap_lines or cap.lines, cap_bytes or cap.bytes), earlier.allowed if earlier else (),
        earlier.added if earlier and earlier.added else clock.stamp(),
    )
    created = start_history(tracked)
    store.save(tracked)
    if tracked.remote:
        git.config_set(folder, "remote.origin.url", tracked.remote)  # for `git --git-dir … push origin` by hand
    if tracked.identity is None:
        notes.append("no project identity (the project has no git remote): give one with --name NAME before "
                     "`apm-git sync`, the same name on every machine")
    with file_lock(tracked.lock_path, f"another apm-git process on {folder}"):
        shot = snapshots.take_locked(tracked, "track")
        if shot.commit is None and git.head_tree(folder) is None:
            made = first_commit(tracked)
            shot = shot._replace(commit=made.commit, fallback=made.fallback)
    return TrackResult(tracked, created, shot, notes)


def untrack(spec: str | None, where: Path) -> store.Tracked:
    """Stop snapshotting a tracked folder; its history and settings stay (`track` resumes them)."""
    tracked = store.find(spec, where)
    if tracked.active:
        tracked = tracked._replace(active=False)
        store.save(tracked)
    return tracked


@dataclasses.dataclass
class Listed:
    tracked: store.Tracked
    snapshots: int
    last: str | None  # the date of the newest snapshot
    last_trigger: str | None
    problem: str | None  # the folder or its history is gone


def listing() -> tuple[list[Listed], list[str]]:
    """Every tracked folder (and the settings files that cannot be read, as their errors)."""
    found: list[Listed] = []
    broken: list[str] = []
    for item in store.every():
        if not isinstance(item, store.Tracked):
            broken.append(str(item))
            continue
        try:
            folder = snapshots.open_history(item)
        except StateError as error:
            found.append(Listed(item, 0, None, None, str(error)))
            continue
        commits = git.log(folder, ["HEAD"], max_count=1)
        count = len(git.rev_list(folder, "HEAD")) if commits else 0
        trigger = next((value for key, value in _trailers(commits[0].message) if key == "Apm-Trigger"), None) \
            if commits else None
        found.append(Listed(item, count, commits[0].date if commits else None, trigger, None))
    return found, broken


def _trailers(message: str) -> list[tuple[str, str]]:
    from apm_git.model import trailers

    return trailers.parse(message)
