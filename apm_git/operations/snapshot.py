"""A snapshot of a tracked folder: its changed memory files as one commit in the history apart from it
(docs/tracking.md, "Snapshots").

On the agents' hooks, within their time budgets (Claude Code gives SessionEnd 1.5 s): one `git status`
answers most calls (nothing changed); a change costs an add, a write-tree, a commit-tree and a ref
update, plus reading and prefiltering the changed files for secrets.  Nothing is parsed, counted or
tokenized here but the loading cap's file.  The folder is only read: a snapshot never writes into it.

Light on purpose: the hook entry (agents/snapshot_hook.py) imports this module, not click.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from apm_git import clock, git
from apm_git.errors import StateError
from apm_git.model import trailers as trailer_model
from apm_git.model.limits import MAX_FILE_BYTES, megabytes
from apm_git.store import tracked as store
from apm_git.store.lock import file_lock
from apm_git.tracking.agents import ENDING, PROFILES, STARTING
from apm_git.tracking.cap import CapReport, measure

if TYPE_CHECKING:  # the hook's import path stays short: the words are types here
    from apm_git.model.vocabulary import SnapshotTrigger, TrackedCheckId

CAP_CHECK: TrackedCheckId = "apm-load-cap"
SECRET_CHECK: TrackedCheckId = "apm-no-secrets"
BACKGROUND = "background"  # `Apm-Origin` of a snapshot that found changes made while no session ran
SESSION = "session"


class SnapshotWithheld(NamedTuple):
    path: str  # relative to the folder
    line: int  # 0: the whole file (too large, unreadable)
    why: str


class TrackedSnapshot(NamedTuple):
    tracked: store.Tracked
    trigger: SnapshotTrigger
    session: str | None
    commit: str | None  # None: nothing to commit (`skipped` says why)
    files: tuple[str, ...]
    withheld: tuple[SnapshotWithheld, ...]
    cap: CapReport | None
    background: bool
    skipped: str | None = None
    fallback: bool = False  # the commit was made as apm-git: git has no user identity here (git.FALLBACK_NOTE)

    @property
    def findings(self) -> list[str]:
        """The lines a snapshot's `Apm-Finding` trailers carry and its hook prints."""
        return [str(finding) for finding in findings_of(self.withheld, self.cap)]


class TrackedFinding(NamedTuple):
    """A finding on a tracked folder: a file withheld (`apm-no-secrets`), MEMORY.md past the loading cap."""

    path: str
    line: int
    check: TrackedCheckId
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.check}: {self.message}"


def findings_of(withheld: Sequence[SnapshotWithheld], cap: CapReport | None) -> list[TrackedFinding]:
    found = [TrackedFinding(item.path, item.line, SECRET_CHECK, item.why) for item in withheld]
    if cap is not None and cap.over:
        found.append(TrackedFinding(cap.file, cap.loaded_lines + 1, CAP_CHECK, cap.summary()))
    return found


def open_history(tracked: store.Tracked) -> Path:
    """The folder, with every git command run at it pointed at its history; StateError when either is gone."""
    folder = tracked.path
    if not folder.is_dir():
        raise StateError(f"the tracked folder {folder} is gone ({tracked.id}); run `apm-git untrack {tracked.id}` "
                         "to stop tracking it (its history is kept), or restore the folder")
    if not (tracked.git_dir / "HEAD").is_file():
        raise StateError(f"the history of {folder} is missing ({tracked.git_dir}); run `apm-git track "
                         f"{tracked.agent} {folder}` to start it again")
    git.use_git_dir(folder, tracked.git_dir)
    return folder


def take(
    tracked: store.Tracked, trigger: SnapshotTrigger, *, session: str | None = None, message: str | None = None,
    paths: Sequence[str] | None = None,
) -> TrackedSnapshot:
    """Snapshot `tracked` (its memory, or only `paths`) under its lock; the commit, or why there is none."""
    folder = open_history(tracked)
    with file_lock(tracked.lock_path, f"another apm-git process on {folder}"):
        return take_locked(tracked, trigger, session=session, message=message, paths=paths)


def take_locked(
    tracked: store.Tracked, trigger: SnapshotTrigger, *, session: str | None = None, message: str | None = None,
    paths: Sequence[str] | None = None, extra: Sequence[tuple[str, str]] = (),
) -> TrackedSnapshot:
    """`take` for a caller that holds the lock already (restore, sync); `extra`: more trailers."""
    folder = tracked.path
    profile = PROFILES[tracked.agent]
    now = clock.now()
    background = _between_sessions(tracked, trigger, session, now)
    changes = git.status(folder, list(paths) if paths is not None else list(profile.memory))
    cap = cap_of(tracked)
    if not changes:
        return TrackedSnapshot(tracked, trigger, session, None, (), (), cap, background, "nothing changed")
    withheld = withheld_of(folder, [change.path for change in changes if "D" not in change.xy], tracked.allowed)
    held = {item.path for item in withheld}
    files = tuple(sorted(change.path for change in changes if change.path not in held))
    if not files:
        return TrackedSnapshot(tracked, trigger, session, None, (), tuple(withheld), cap, background,
                        "the only changes are withheld (suspected secrets, unreadable files)")
    git.add(folder, files)
    found = git.head_tree(folder)
    tree = git.write_tree(folder)
    if found is not None and tree == found[1]:
        return TrackedSnapshot(tracked, trigger, session, None, (), tuple(withheld), cap, background, "nothing changed")
    result = TrackedSnapshot(tracked, trigger, session, None, files, tuple(withheld), cap, background)
    trailers = [("Apm-Trigger", trigger), ("Apm-Scope", tracked.agent), ("Apm-Session", session or "none"),
                ("Apm-Origin", BACKGROUND if background else SESSION)]
    reasons = {item.path: item.why.split(";")[0] for item in withheld}  # one per file
    trailers += [("Apm-Withheld", f"{path} ({why}; not in this snapshot)") for path, why in sorted(reasons.items())]
    trailers += [("Apm-Finding", finding) for finding in result.findings if CAP_CHECK in finding]
    from apm_git.store.clone import clone_trailer  # secrets and hashlib: only when there is a commit to make

    trailers += [*extra, clone_trailer(tracked.git_dir)]
    count = f"{len(files)} file{'s' if len(files) != 1 else ''}"
    text = trailer_model.message(f"snapshot {count} ({trigger})", trailers, message)
    parent = found[0] if found else None
    made = git.commit_tree(folder, tree, [parent] if parent else [], text, env=clock.git_date_env())
    git.move_head(folder, made.commit, parent, f"snapshot ({trigger})")
    return result._replace(commit=made.commit, fallback=made.fallback)


def note_session(tracked: store.Tracked, trigger: SnapshotTrigger, session: str | None) -> None:
    """Remember which of the agent's sessions are running: a session-start or any other event of a session
    marks it running, a session-end ends it; sessions quiet for longer than the agent's limit are dropped."""
    if not session:
        return
    now = clock.now()
    sessions = store.running_sessions(tracked)
    hours = PROFILES[tracked.agent].open_hours
    kept = {key: value for key, value in sessions.items() if _recent(value, now, hours)}
    if trigger in ENDING:
        kept.pop(session, None)
    else:
        kept[session] = clock.stamp(now)
    if kept != sessions:
        with contextlib.suppress(OSError):  # only the background mark of a later snapshot depends on it
            store.save_sessions(tracked, kept)


def _between_sessions(tracked: store.Tracked, trigger: SnapshotTrigger, session: str | None,
                      now: dt.datetime) -> bool:
    """Whether the changes a snapshot finds were made while none of the agent's sessions ran: at a
    session's start (made since the last snapshot, before it), or by the timer (or by hand) when no
    session is running.  A session's own events (compaction, its end) find its own writes."""
    if trigger in STARTING:
        return True
    if trigger not in ("timer", "manual"):
        return False
    return not [key for key in sessions_running(tracked, now) if key != session]


def sessions_running(tracked: store.Tracked, now: dt.datetime | None = None) -> list[str]:
    """The agent's sessions that started (or had an event) and have not ended, within the agent's limit."""
    moment = now or clock.now()
    hours = PROFILES[tracked.agent].open_hours
    return sorted(key for key, stamp in store.running_sessions(tracked).items() if _recent(stamp, moment, hours))


def between_sessions_now(tracked: store.Tracked) -> bool:
    """Whether none of the agent's sessions is running now (what the timer would mark as background)."""
    return not sessions_running(tracked)


def _recent(stamp: str, now: dt.datetime, hours: float) -> bool:
    moment = clock.parse_stamp(stamp)
    return moment is not None and (now - moment).total_seconds() < hours * 3600


def withheld_of(folder: Path, paths: Sequence[str], allowed: Sequence[str]) -> list[SnapshotWithheld]:
    """The files of `paths` (relative to the folder) a snapshot leaves out: a suspected secret (not marked as a
    false positive), a file too large to scan, one that cannot be read.  Each file is read once, bounded."""
    from apm_git.secret_scan import scan

    found = []
    for name in paths:
        path = folder / name
        try:
            if path.is_symlink() or not path.is_file():
                continue  # a link is committed as a link: git never reads through it
            with path.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > MAX_FILE_BYTES:
                    found.append(SnapshotWithheld(name, 0, f"{megabytes(size)}, over the {megabytes(MAX_FILE_BYTES)} "
                                                   "apm-git scans for secrets; split it"))
                    continue
                data = handle.read()
        except OSError as error:
            found.append(SnapshotWithheld(name, 0, f"cannot be read ({error.strerror}); make it readable"))
            continue
        text = data.decode("utf-8", "replace")
        lines = sorted({suspect.line for suspect in scan(text, name) if suspect.fingerprint not in allowed})
        found += [SnapshotWithheld(name, line, "looks like a credential; remove it from the memory, or mark a false "
                                       f"positive with `apm-git snapshot --allow-secret {name}:{line}`")
                  for line in lines]
    return found


def cap_of(tracked: store.Tracked) -> CapReport | None:
    """The loading cap of the agent's cap file (Claude Code's MEMORY.md), read once, bounded."""
    name = PROFILES[tracked.agent].cap_file
    if name is None:
        return None
    try:
        with (tracked.path / name).open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES:
        return None
    return measure(name, data.decode("utf-8", "replace"), tracked.cap)


def hook_targets(agent: str, *, cwd: str | None, transcript: str | None, folder: Path | None) -> list[store.Tracked]:
    """The tracked folders an agent hook's event is about: the folder the hook names; else, for Claude Code, the
    one of the session's project (its `cwd`) or the one beside its transcript; for the others, the agent's."""
    items = [item for item in store.readable() if item.agent == agent and item.active]
    if folder is not None:
        found = store.containing(folder, items)
        return [found] if found is not None else []
    if agent == "claude-code":
        here = store.of_project(Path(cwd), items) if cwd else []
        if here:
            return [item for item in here if item.project == here[0].project]
        beside = os.path.realpath(Path(transcript).parent / "memory") if transcript else None
        return [item for item in items if beside and os.path.realpath(item.folder) == beside]
    if agent == "openclaw" and cwd:
        found = store.containing(Path(cwd), items) or next(iter(store.of_project(Path(cwd), items)), None)
        return [found] if found is not None else []
    return items


def read_file(path: Path) -> bytes | None:
    """A file of a folder as it is now: None when it is absent, a link, not a file, unreadable or over the
    size apm-git reads."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_bytes()
    except OSError:
        return None
