"""Loading-discipline state per agent session, under `.git/apm-git/sessions/` (never in the memory tree).

A session id names a file, so an id that is not a plain name (`../x`, `a/b`, very long) is
stored under a hash of itself: every id works, none can leave the sessions folder.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from apm_git import clock, jsontext
from apm_git.store.atomic import write_atomic
from apm_git.store.lock import file_lock
from apm_git.store.repo import MemoryRepo

SESSIONS = "sessions"
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def session_file_name(session: str) -> str:
    if _PLAIN.fullmatch(session) and ".." not in session:
        return f"{session}.json"
    return f"h-{hashlib.sha256(session.encode('utf-8', 'surrogateescape')).hexdigest()[:32]}.json"


@dataclasses.dataclass(frozen=True)
class Held:
    """A file that a session has loaded: it counts against the session's limits."""

    path: str
    priority: str | None
    role: str


@dataclasses.dataclass
class SessionState:
    session: str
    scope: str | None = None
    files: list[Held] = dataclasses.field(default_factory=list)
    note: str | None = None  # why earlier state was dropped, for the output

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "scope": self.scope,
            "files": [dataclasses.asdict(held) for held in self.files],
            "updated": clock.stamp(),
        }


def _path(repo: MemoryRepo, session: str) -> Path:
    folder = repo.state_dir / SESSIONS
    folder.mkdir(exist_ok=True)
    return folder / session_file_name(session)


def _read(path: Path, session: str) -> SessionState:
    try:
        data = jsontext.loads(path.read_text(encoding="utf-8"))
        files = [Held(str(item["path"]), item.get("priority"), str(item.get("role", ""))) for item in data["files"]]
        return SessionState(session, data.get("scope"), files)
    except FileNotFoundError:
        return SessionState(session)
    except (ValueError, KeyError, TypeError, AttributeError):
        # apm-git's own bookkeeping, not memory: a damaged file only resets the limits.
        return SessionState(session, note=f"{path.name} was unreadable; the session's limits start again")


@contextlib.contextmanager
def session_state(repo: MemoryRepo, session: str) -> Iterator[SessionState]:
    """The session's state, saved when the block ends without an error; one load at a time per session."""
    path = _path(repo, session)
    with file_lock(path.with_suffix(".lock"), f"another load of session {session!r}"):
        state = _read(path, session)
        yield state
        write_atomic(path, (json.dumps(state.to_json(), indent=2) + "\n").encode("utf-8"))
