"""Writing is one explicit step: `write_lock(repo)` is the only way apm-git starts to write a memory.

It refuses a read-only memory before anything is touched, takes the repository's lock
(store/lock.py), and rolls forward, once, a commit a kill interrupted (store/landing.py) before
the caller reads anything.  What that roll-forward did is noted on the repository
(`MemoryRepo.note`), for whoever opened it to say: the command line after the command, the MCP
worker after the call; no message waits in a module-level list.

The lock and the landing know nothing of each other; this module composes them.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from apm_git.errors import LockTimeout, StateError
from apm_git.store.lock import check_writable, file_lock
from apm_git.store.repo import COMMIT_JOURNAL, STATE_DIR, MemoryRepo


@contextlib.contextmanager
def write_lock(repo: MemoryRepo, *, timeout: float | None = None) -> Iterator[None]:
    """Hold the repository's writer lock (giving up after `timeout`, default the lock timeout) with any
    interrupted commit finished first."""
    from apm_git.store import landing  # git's gateway and hashlib: only for a writer

    check_writable(repo)
    with file_lock(repo.git_dir / STATE_DIR / "lock", "another apm-git process", timeout=timeout):
        landing.finish_interrupted(repo)
        yield


def finish_pending(repo: MemoryRepo, *, wait: bool) -> None:
    """Finish an interrupted commit before reading the memory, when there is one.

    A reader (`wait=False`) does it only when the lock is free and the disk writable; otherwise it
    says so in one line and goes on reading.
    """
    if not interrupted(repo):
        return
    try:
        with write_lock(repo, timeout=None if wait else 0.0):
            pass
    except (LockTimeout, OSError, StateError):
        if wait:
            raise
        note_pending(repo)  # the lock's holder finishes it first thing; a read-only disk needs a writer


def note_pending(repo: MemoryRepo) -> None:
    """One line when a commit was interrupted and its work-tree update is not finished."""
    if not interrupted(repo):
        return
    from apm_git.store import landing

    try:
        record = landing.read_journal(repo)
    except StateError as error:
        repo.note(str(error))
        return
    if record is not None:
        repo.note(
            f"`{record['subject']}` is not finished: the work tree may not hold all of it yet; "
            "any apm-git command that writes (e.g. `apm-git flush`) finishes it",
        )


def interrupted(repo: MemoryRepo) -> bool:
    """Whether a commit's landing was cut short (its journal is there), asked without importing the
    landing: a reader that finds none, as nearly every one does, never loads git's gateway."""
    return (repo.git_dir / STATE_DIR / COMMIT_JOURNAL).exists()
