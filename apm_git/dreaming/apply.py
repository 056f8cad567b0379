"""The thin layer that carries out a consolidation: write, move, commit — or put everything back.

A run snapshots the bytes of every file before it first touches it (and notes every folder
it creates); when anything fails, before or during the commit, each file gets its bytes
back, created files and folders go, the index entries of the touched paths are reset, and
the error goes on.  The branch only moves when the commit succeeds, as the last step.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Collection

from apm_git import clock, git, names
from apm_git.commit import commit
from apm_git.dreaming.execute import Changes
from apm_git.errors import StateError
from apm_git.memory_index import own_index, refresh_index
from apm_git.repo import MemoryRepo
from apm_git.state import load_flush_state, save_flush_state
from apm_git.transaction import EditedMeanwhile, Transaction


def commit_run(
    repo: MemoryRepo,
    changes: Changes,
    stage: str,
    subject: str,
    trailers: list[tuple[str, str]],
    body: str,
    today: dt.date,
) -> str | None:
    """Write `changes`, record the run in flush-state.json, rebuild INDEX.md, and commit it all as one.

    None when the run changed no byte (the same run again at the same moment): there is nothing to commit.
    """
    tx = Transaction(repo)
    staged = False
    try:
        for rel, text in changes.writes.items():
            tx.write(rel, text, read=changes.read.get(rel))
        for source, target in changes.moves:
            tx.move(source, target, read=changes.read.get(source))
        tx.guard(names.FLUSH_STATE)
        state = load_flush_state(repo)
        dreaming = state.get("dreaming")
        if not isinstance(dreaming, dict):
            dreaming = state["dreaming"] = {}
        dreaming[f"last_{stage.replace('-', '_')}"] = clock.stamp()
        save_flush_state(repo, state)
        kept = own_index(repo)
        if kept is not None:  # a person's own INDEX.md is moved aside, never overwritten
            tx.move(names.INDEX, kept)
        tx.guard(names.INDEX)
        absent, committed = _as_committed(repo, tx.touched)
        refresh_index(repo, today, exclude=absent, instead=committed)
        paths = [repo.repo_path(rel) for rel in tx.touched]
        if not git.status(repo.root, paths):
            return None  # run again at the same moment: not even the recorded time changed
        staged = True
        return commit(repo, paths, subject, trailers, body)
    except EditedMeanwhile as error:
        _undo(repo, tx, staged)
        raise StateError(
            f"{repo.repo_path(error.rel)} was edited while {stage} ran; nothing was changed — "
            f"flush that edit if you want it kept, then run `apm-git {stage}` again",
        ) from None
    except OSError as error:
        _undo(repo, tx, staged)
        where = f" {error.filename}" if error.filename else ""
        raise StateError(
            f"{stage} could not write the memory ({error.strerror or error}{where}); every file was put back "
            "as it was — fix that, then run it again",
        ) from None
    except BaseException:
        _undo(repo, tx, staged)
        raise


def _as_committed(repo: MemoryRepo, touched: Collection[str]) -> tuple[list[str], dict[str, str]]:
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


def _undo(repo: MemoryRepo, tx: Transaction, staged: bool) -> None:
    tx.rollback()
    if staged:  # `git add` may have run before the commit failed: unstage what it staged
        git.unstage(repo.root, [repo.repo_path(rel) for rel in tx.touched])


def dirty(repo: MemoryRepo, rels: list[str]) -> list[str]:
    """Which of these memory paths have uncommitted changes."""
    if not rels:
        return []
    return sorted({change.path for change in git.status(repo.root, [repo.repo_path(rel) for rel in rels])})
