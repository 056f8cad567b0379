"""The tracked folders on this machine: where each one's history and settings live, apart from the folder.

Under apm-git's data home (`$XDG_DATA_HOME/apm-git/tracked/`, default `~/.local/share/apm-git/tracked/`):
`<id>.git` is the folder's history (a git dir whose work tree is the folder), `<id>.json` its settings,
`<id>.sessions.json` the agent's sessions that are running, `<id>.lock` the lock of its writers.  Nothing
of these is ever written into the agent's folder (docs/tracking.md, "Where the history lives").

Kept light (json, os, pathlib): the snapshot hook reads it on every agent event.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from apm_git import jsontext
from apm_git.errors import CorruptStateFile, OsFailure
from apm_git.store.atomic import write_atomic
from apm_git.tracking.agents import PROFILES
from apm_git.tracking.cap import DEFAULT_BYTES, DEFAULT_LINES, Limits

if TYPE_CHECKING:
    from apm_git.model.vocabulary import TrackedAgent

VERSION = 1
ENV_DATA_HOME = "XDG_DATA_HOME"
SETTINGS = ".json"
SESSIONS = ".sessions.json"
_ID_WORD = re.compile(r"[^a-z0-9]+")


class Tracked(NamedTuple):
    """One tracked folder's settings (`<id>.json`)."""

    id: str
    agent: TrackedAgent
    folder: str  # absolute
    project: str | None  # the project it belongs to (Claude Code: the git root), for the hooks to find it
    identity: str | None  # the same project on every machine: a remote URL's host/path, or a name
    remote: str | None  # the URL `sync` fetches from and pushes to
    active: bool = True  # False after `untrack`: no snapshots, the history kept
    cap: Limits = Limits()
    allowed: tuple[str, ...] = ()  # fingerprints of suspected secrets marked as false positives
    added: str = ""  # when `track` ran (ISO 8601)

    @property
    def path(self) -> Path:
        return Path(self.folder)

    @property
    def git_dir(self) -> Path:
        return home() / f"{self.id}.git"

    @property
    def lock_path(self) -> Path:
        return home() / f"{self.id}.lock"

    @property
    def sessions_path(self) -> Path:
        return home() / f"{self.id}{SESSIONS}"

    def to_json(self) -> dict[str, Any]:
        return {"version": VERSION, "id": self.id, "agent": self.agent, "folder": self.folder,
                "project": self.project, "identity": self.identity, "remote": self.remote, "active": self.active,
                "cap": {"lines": self.cap.lines, "bytes": self.cap.bytes}, "allowed_secrets": list(self.allowed),
                "added": self.added}


def home() -> Path:
    """Where tracked folders' histories and settings live."""
    base = os.environ.get(ENV_DATA_HOME) or str(Path.home() / ".local" / "share")
    return Path(base) / "apm-git" / "tracked"


def make_id(agent: str, folder: str, name: str) -> str:
    """`claude-code-shop-1a2b3c4d`: the agent, a readable word, and a digest of the folder's path."""
    import hashlib

    word = _ID_WORD.sub("-", name.lower()).strip("-")[:32] or "memory"
    digest = hashlib.sha256(folder.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{agent}-{word}-{digest}"


def parse(data: Any, name: str) -> Tracked:
    """A settings file's content; CorruptStateFile naming the file and the key when it is not one."""
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise CorruptStateFile(f"{name}: not apm-git's tracked-folder settings (version {VERSION}); "
                               "run `apm-git track` for the folder again")
    agent = next((known for known in PROFILES if known == data.get("agent")), None)
    folder = data.get("folder")
    if agent is None or not isinstance(folder, str) or not folder.startswith("/"):
        raise CorruptStateFile(f"{name}: \"agent\" or \"folder\" is missing or wrong; run `apm-git track` again")
    cap = data["cap"] if isinstance(data.get("cap"), dict) else {}
    lines, size = cap.get("lines", DEFAULT_LINES), cap.get("bytes", DEFAULT_BYTES)
    if not all(isinstance(value, int) and not isinstance(value, bool) and value > 0 for value in (lines, size)):
        raise CorruptStateFile(f"{name}: \"cap\" needs positive whole numbers of lines and bytes")

    def text(key: str) -> str | None:
        value = data.get(key)
        return value if isinstance(value, str) and value else None

    allowed = data.get("allowed_secrets", [])
    return Tracked(str(data.get("id") or name.removesuffix(SETTINGS)), agent, folder, text("project"),
                   text("identity"), text("remote"), data.get("active", True) is not False, Limits(lines, size),
                   tuple(item for item in allowed if isinstance(item, str)) if isinstance(allowed, list) else (),
                   text("added") or "")


def load(path: Path) -> Tracked:
    try:
        data = jsontext.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise CorruptStateFile(f"{path}: cannot read it ({error}); run `apm-git track` for the folder again") from None
    return parse(data, path.name)


def save(tracked: Tracked) -> None:
    try:
        write_atomic(home() / f"{tracked.id}{SETTINGS}",
                     (json.dumps(tracked.to_json(), indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    except OSError as error:
        raise OsFailure.of(error, home()) from None


def every() -> Iterator[Tracked | CorruptStateFile]:
    """Each tracked folder's settings, sorted by id; a settings file that cannot be read as its error."""
    try:
        names = sorted(entry.name for entry in os.scandir(home()) if entry.name.endswith(SETTINGS)
                       and not entry.name.endswith(SESSIONS))
    except FileNotFoundError:
        return
    for name in names:
        try:
            yield load(home() / name)
        except CorruptStateFile as error:
            yield error


def readable() -> list[Tracked]:
    return [item for item in every() if isinstance(item, Tracked)]


def by_id(ident: str) -> Tracked | None:
    path = home() / f"{ident}{SETTINGS}"
    return load(path) if "/" not in ident and path.is_file() else None


def containing(path: Path, items: list[Tracked] | None = None) -> Tracked | None:
    """The tracked folder `path` is (or lies in), the innermost when several."""
    resolved = os.path.realpath(path)
    found = [item for item in (readable() if items is None else items)
             if resolved == (folder := os.path.realpath(item.folder)) or resolved.startswith(folder + os.sep)]
    return max(found, key=lambda item: len(item.folder), default=None)


def of_project(project: Path, items: list[Tracked] | None = None) -> list[Tracked]:
    """The tracked folders whose project is `project` or a folder above it (the innermost project first)."""
    resolved = os.path.realpath(project)
    found = [item for item in (readable() if items is None else items) if item.project
             and (resolved == (root := os.path.realpath(item.project)) or resolved.startswith(root + os.sep))]
    return sorted(found, key=lambda item: -len(item.project or ""))


def running_sessions(tracked: Tracked) -> dict[str, str]:
    """session id -> the time of its last hook event (ISO 8601), for the sessions that have not ended."""
    try:
        data = jsontext.loads(tracked.sessions_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}  # lost or torn: no session counts as running, which only marks a change as background
    if not isinstance(data, dict):
        return {}
    return {key: value for key, value in data.items() if isinstance(key, str) and isinstance(value, str)}


def save_sessions(tracked: Tracked, sessions: dict[str, str]) -> None:
    # Not synced to disk: a crash loses at most which sessions were running, nothing of the memory.
    write_atomic(tracked.sessions_path, json.dumps(sessions, sort_keys=True).encode("utf-8"), sync=False)


def find(spec: str | None, where: Path) -> Tracked:
    """The tracked folder a command means: `spec` is an agent (its folder for the project at `where`, or its
    only one), an id, or a path in a tracked folder; no `spec`: the tracked folder `where` lies in, else the
    one of the project at `where`."""
    from apm_git.errors import StateError, UsageError

    items = readable()
    if spec is not None and spec in PROFILES:
        mine = [item for item in items if item.agent == spec]
        if not mine:
            raise StateError(f"no {spec} memory is tracked on this machine; run `apm-git track {spec}` first")
        here = _innermost(of_project(where, mine))
        if len(here) == 1 or (not here and len(mine) == 1):
            return (here or mine)[0]
        raise UsageError(f"{len(here or mine)} {spec} folders are tracked{'' if here else f' and none for {where}'}: "
                         f"name one by its id ({', '.join(item.id for item in here or mine)})")
    if spec is not None:
        found = by_id(spec)
        if found is None:
            found = containing(Path(spec).expanduser(), items)
        if found is None:
            raise StateError(f"{spec!r} is no tracked folder, id or agent; `apm-git track --list` shows them")
        return found
    found = containing(where, items)
    if found is not None:
        return found
    here = _innermost(of_project(where, items))
    if len(here) == 1:
        return here[0]
    if here:
        raise UsageError(f"{where} has {len(here)} tracked folders: name one with --tracked "
                         f"({', '.join(item.id for item in here)})")
    raise StateError(f"{where} is in no tracked folder; `apm-git track --list` shows them")


def _innermost(items: list[Tracked]) -> list[Tracked]:
    """Those of `items` (innermost project first) that belong to the innermost project."""
    return [item for item in items if item.project == items[0].project] if items else []


def in_folder(tracked: Tracked, path: str) -> str:
    """`path` as a path in the folder: as `apm-git diff` names it, or an absolute path into the folder."""
    from apm_git.errors import UsageError

    given = Path(path)
    if given.is_absolute():
        folder = os.path.realpath(tracked.folder)
        real = os.path.realpath(given)
        if real.startswith(folder + os.sep):
            return Path(os.path.relpath(real, folder)).as_posix()
    elif given.parts and ".." not in given.parts:
        return given.as_posix()
    raise UsageError(f"{path!r} is not a file of {tracked.folder}; name it as `apm-git diff` does")
