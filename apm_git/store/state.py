"""The JSON state files of the memory dir: `group_names.json` and `flush-state.json`.

Both are read strictly: a corrupt file is an error that names the file and the fix,
and apm-git never rewrites a file it could not read.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from apm_git import clock, git, jsontext
from apm_git.errors import CorruptStateFile, StateError, UnknownRoom
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.model.names import FLUSH_STATE, GROUP_NAMES
from apm_git.model.state_files import PROBLEMS, state_file_problem
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



def refuse_unusable_incoming(repo: MemoryRepo, head: str, theirs: str, source: str) -> None:
    """Stop a sync before `theirs` lands when it brings a state file that apm-git could not use (too large,
    not JSON, nested past any sense, the wrong shape): every later flush would stop on it.  Only a file
    `theirs` holds differently from `head` is read (at most MAX_FILE_BYTES of it leave git); StateError
    names the file, what is wrong, and the commit that made it so; nothing is changed."""
    paths = {repo.repo_path(rel): rel for rel in PROBLEMS}
    specs = [f":(literal){path}" for path in paths]
    local = git.tree_blobs(repo.root, head, specs)
    theirs_blobs = git.tree_blobs(repo.root, theirs, specs)
    incoming = {path: blob for path, blob in theirs_blobs.items() if local.get(path) != blob}
    if not incoming:
        return
    sizes, contents = git.small_blobs(repo.root, incoming.values(), MAX_FILE_BYTES)
    for path, blob in sorted(incoming.items()):
        problem = state_file_problem(paths[path], contents.get(blob), sizes.get(blob, 0))
        if problem is None:
            continue
        made = git.log_changes(repo.root, f"{head}..{theirs}", [path])
        fix = f"`git checkout {made[0].commit.sha[:12]}~1 -- {path}`" if made else f"`git checkout HEAD~1 -- {path}`"
        by = f", made so by {made[0].commit.sha[:12]}" if made else ""
        raise StateError(
            f"{source} brings a {path} that apm-git cannot use ({problem}{by}); nothing of {source} was taken: "
            f"restore the file in the clone that made it ({fix}), commit and push, then run `apm-git sync` again",
        )


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
