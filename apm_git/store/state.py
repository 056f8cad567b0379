"""The JSON state files of the memory dir: `group_names.json` and `flush-state.json`.

Both are read strictly: a corrupt file is an error that names the file and the fix,
and apm-git never rewrites a file it could not read.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from apm_git import clock, jsontext
from apm_git.errors import CorruptStateFile, UnknownRoom
from apm_git.model.names import FLUSH_STATE, GROUP_NAMES
from apm_git.model.state_files import PROBLEMS
from apm_git.store import cache
from apm_git.store.repo import STATE_DIR, MemoryRepo


def _corrupt(repo: MemoryRepo, rel: str, where: str, what: str) -> CorruptStateFile:
    """The error for a state file that cannot be used; `where` is ":LINE:COLUMN" when known."""
    name = repo.repo_path(rel)
    return CorruptStateFile(
        f"{name}{where}: {what}; the file is left untouched — fix it, or restore it with `git checkout -- {name}`",
    )




def _load_json(repo: MemoryRepo, rel: str) -> Any:
    text = repo.read(rel)
    if text is None:
        return None
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as error:
        raise _corrupt(repo, rel, f":{error.lineno}:{error.colno}", f"not valid JSON ({error.msg})") from None
    problem = PROBLEMS[rel](data)
    if problem is not None:
        raise _corrupt(repo, rel, "", problem)
    return data


def group_names(repo: MemoryRepo) -> dict[str, str]:
    """Room id -> group name; every name checked safe before anything uses it."""
    data = _load_json(repo, GROUP_NAMES)
    return {} if data is None else dict(data)


def resolve_room(repo: MemoryRepo, room: str) -> str:
    names = group_names(repo)
    if room in names:
        return names[room]
    raise UnknownRoom(
        f"room {room!r} is not mapped in {repo.repo_path(GROUP_NAMES)}; add "
        f'"{room}": "<group name>" to it',
    )


def empty_flush_state() -> dict[str, Any]:
    return {"groups": {"last_flush_time": None}, "main_session": {"last_flush_time": None}, "pending_items": []}


def load_flush_state(repo: MemoryRepo) -> dict[str, Any]:
    """The state in the seed's shape; groups also keep a `{"last_flush_time": …}` per group name."""
    data = _load_json(repo, FLUSH_STATE)
    if data is None:
        return empty_flush_state()
    for key, value in empty_flush_state().items():
        data.setdefault(key, value)
    return dict(data)


def flush_state_text(state: dict[str, Any]) -> str:
    return json.dumps(state, indent=2, ensure_ascii=False) + "\n"


def save_flush_state(repo: MemoryRepo, state: dict[str, Any]) -> None:
    repo.write(FLUSH_STATE, flush_state_text(state))



def _quiet_runs_file(repo: MemoryRepo) -> Path:
    return repo.git_dir / STATE_DIR / "quiet-runs"


def record_quiet_run(repo: MemoryRepo, stage: str) -> None:
    """A deep sleep or REM that had nothing to do makes no commit; its time is kept in this
    clone only (`.git/apm-git/quiet-runs`), so `dream` does not run it again before it is due."""
    path = _quiet_runs_file(repo)
    runs = cache.read(path)
    runs = dict(runs) if isinstance(runs, dict) else {}
    runs[f"last_{stage.replace('-', '_')}"] = clock.stamp()
    path.parent.mkdir(parents=True, exist_ok=True)
    cache.write(path, runs)


def with_quiet_runs(repo: MemoryRepo, state: dict[str, Any]) -> dict[str, Any]:
    """`state` (not to be saved) whose dreaming times count this clone's quiet runs too, the later one winning."""
    runs = cache.read(_quiet_runs_file(repo))
    if not isinstance(runs, dict):
        return state
    committed = state.get("dreaming")
    dreaming = dict(committed) if isinstance(committed, dict) else {}
    for key, value in runs.items():
        local = clock.parse_stamp(value) if isinstance(value, str) else None
        known = dreaming.get(key)
        known_moment = clock.parse_stamp(known) if isinstance(known, str) else None
        if local is not None and (known_moment is None or local > known_moment):
            dreaming[key] = value
    return {**state, "dreaming": dreaming}
