"""The thin layer that carries out a consolidation: the whole result as a commit first, then the work tree.

Every touched file's new bytes — the run's writes and moves, flush-state.json and the rebuilt
INDEX.md — are computed in memory and committed through a temporary index; the branch moves
with a compare-and-swap, and only then do the work tree and the user's index follow, through
the journal of apm_git.store.landing.  A run that fails before the branch moves has written nothing;
a run killed after it is finished by the next apm-git command (docs/crash-safety.md).
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from pathlib import Path

from apm_git import clock, git
from apm_git.dreaming.execute import Changes
from apm_git.errors import EditedMeanwhile, StateError
from apm_git.model import dated, names
from apm_git.store.commit import commit
from apm_git.store.landing import Update
from apm_git.store.memory_index import build_index, own_index
from apm_git.store.repo import MemoryRepo
from apm_git.store.state import flush_state_text, load_flush_state, record_quiet_run


def commit_run(
    repo: MemoryRepo,
    changes: Changes,
    stage: str,
    subject: str,
    trailers: list[tuple[str, str]],
    body: str,
    today: dt.date,
) -> str | None:
    """Commit `changes`, the run's record in flush-state.json and the rebuilt INDEX.md as one commit,
    then bring the work tree to it.  The caller holds the write lock.

    None when the run changes no memory file (only its recorded time and INDEX.md would change): a run
    with nothing to do makes no commit.
    """
    try:
        planned = _planned(repo, changes, stage, today)
    except EditedMeanwhile as error:
        raise StateError(
            f"{repo.repo_path(error.rel)} was edited while {stage} ran; nothing was changed — "
            f"flush that edit if you want it kept, then run `apm-git {stage}` again",
        ) from None
    except OSError as error:
        raise _unwritable(stage, error) from None
    updates = [
        Update(repo.repo_path(rel), before, after)
        for rel, (before, after) in sorted(planned.items(), key=lambda item: _order(*item))
        if before != after
    ]
    if all(update.path in {repo.repo_path(names.FLUSH_STATE), repo.repo_path(names.INDEX)} for update in updates):
        record_quiet_run(repo, stage)  # nothing to do: no commit, the time kept in this clone (docs/commits.md)
        return None
    contents = {update.path: update.after for update in updates}
    try:
        return commit(repo, list(contents), subject, trailers, body, contents=contents, updates=updates)
    except OSError as error:
        raise _unwritable(stage, error) from None


Planned = dict[str, tuple[bytes | None, bytes | None]]  # memory-relative path -> (bytes now, bytes after)


def run_contents(repo: MemoryRepo, changes: Changes, stage: str, today: dt.date) -> dict[str, bytes | None]:
    """What committing `changes` would commit (repo path -> bytes, None: deleted), flush-state.json and the
    rebuilt INDEX.md included, without committing it: a proposal's commit (operations/proposals.py)."""
    try:
        planned = _planned(repo, changes, stage, today)
    except EditedMeanwhile as error:
        raise StateError(
            f"{repo.repo_path(error.rel)} was edited while {stage} ran; nothing was changed — "
            f"flush that edit if you want it kept, then run `apm-git {stage} --propose` again",
        ) from None
    return {repo.repo_path(rel): after for rel, (before, after) in planned.items() if before != after}


def _planned(repo: MemoryRepo, changes: Changes, stage: str, today: dt.date) -> Planned:
    """Each touched file's bytes now and after the run (None: no such file)."""
    planned: Planned = {}

    def current(rel: str) -> bytes | None:
        path = repo.path(rel)
        _check_folders(repo, rel, stage)
        if path.is_dir():
            raise StateError(f"{repo.repo_path(rel)} is a folder where a file must go; move it away")
        data = path.read_bytes() if path.exists() else None
        read = changes.read.get(rel)
        if read is not None and (data or b"") != read.encode("utf-8"):
            raise EditedMeanwhile(rel)
        return data

    for rel, text in changes.writes.items():
        planned[rel] = (current(rel), text.encode("utf-8"))
    for source, target in changes.moves:
        if repo.path(target).exists() or target in planned:
            raise StateError(f"{repo.repo_path(target)} already exists; cannot move {source} there")
        data = current(source)
        planned[source] = (data, None)
        planned[target] = (current(target), data)  # the same bytes: git records a 100% rename
    state = load_flush_state(repo)
    dreaming = state.get("dreaming")
    if not isinstance(dreaming, dict):
        dreaming = state["dreaming"] = {}
    dreaming[f"last_{stage.replace('-', '_')}"] = clock.stamp()
    planned[names.FLUSH_STATE] = (current(names.FLUSH_STATE), flush_state_text(state).encode("utf-8"))
    own = own_index(repo)
    if own is not None:  # a person's own INDEX.md is moved aside (a rename in the commit), never overwritten
        planned[own] = (None, current(names.INDEX))
    texts = {rel: None if after is None else after.decode("utf-8") for rel, (_, after) in planned.items()}
    absent, committed = as_committed(repo, {*planned, names.INDEX})
    index = build_index(repo, today, exclude=absent, instead={**committed, **texts})
    planned[names.INDEX] = (current(names.INDEX), index.encode("utf-8"))
    return planned


def _check_folders(repo: MemoryRepo, rel: str, stage: str) -> None:
    """Every folder on the way to `rel` is a folder or absent: found before anything is committed."""
    folder = Path(rel).parent
    while folder != Path():
        if repo.path(folder.as_posix()).is_file():
            raise StateError(
                f"{stage} could not write the memory ({repo.repo_path(folder.as_posix())} is a file where a "
                "folder must be); nothing was changed — move it away, then run it again",
            )
        folder = folder.parent


def _order(rel: str, change: tuple[bytes | None, bytes | None]) -> tuple[int, str]:
    """The order the work tree takes the result in: what gains entries before what loses them, so
    even the work tree alone holds every entry at every moment (HEAD already holds the result)."""
    before, after = change
    if after is None:
        return 4, rel  # a moved file's source goes last
    if before is None:
        return 0, rel
    if rel.startswith(f"{names.ARCHIVE}/"):
        return 1, rel
    if dated.journal_date(rel):
        return 3, rel  # journals lose what the category files gained
    return 2, rel


def _unwritable(stage: str, error: OSError) -> StateError:
    where = f" {error.filename}" if error.filename else ""
    return StateError(
        f"{stage} could not write the memory ({error.strerror or error}{where}); nothing was changed — "
        "fix that, then run it again",
    )


def as_committed(repo: MemoryRepo, touched: Collection[str]) -> tuple[list[str], dict[str, str]]:
    """The memory files this run leaves alone but that differ from HEAD: new ones, and the committed text of the rest.

    INDEX.md describes the commit, so nothing of a file the commit lacks reaches it: a journal
    that flush left out for a suspected secret lends no title to the committed index.
    """
    changes = [change for change in git.status(repo.root, [repo.memory_prefix])
               if (repo.memory_rel(change.path) or change.path) not in touched]
    blobs = git.cat_files(repo.root, [f"HEAD:{change.path}" for change in changes]) if git.head(repo.root) else {}
    absent, committed = [], {}
    for change in changes:
        rel, blob = repo.memory_rel(change.path) or change.path, blobs.get(f"HEAD:{change.path}")
        if blob is None:
            absent.append(rel)
        else:
            committed[rel] = blob.decode("utf-8", "replace")
    return absent, committed


def dirty(repo: MemoryRepo, rels: list[str]) -> list[str]:
    """Which of these memory paths have uncommitted changes."""
    if not rels:
        return []
    return sorted({change.path for change in git.status(repo.root, [repo.repo_path(rel) for rel in rels])})
