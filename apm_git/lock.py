"""One writer at a time: apm-git processes on a repository serialize on `.git/apm-git/lock`.

git's own `index.lock` is never touched; a waiter gives up after a bounded time.  Whoever takes
the lock first finishes a commit that a kill interrupted (apm_git.landing), before it reads anything.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from apm_git.errors import LockTimeout
from apm_git.repo import MemoryRepo

ENV_TIMEOUT = "APM_GIT_LOCK_TIMEOUT"
DEFAULT_TIMEOUT = 30.0


def lock_timeout() -> float:
    try:
        return float(os.environ.get(ENV_TIMEOUT, DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT


@contextlib.contextmanager
def write_lock(repo: MemoryRepo, *, timeout: float | None = None) -> Iterator[None]:
    from apm_git.landing import finish_interrupted

    with file_lock(repo.state_dir / "lock", "another apm-git process", timeout=timeout):
        finish_interrupted(repo)
        yield


@contextlib.contextmanager
def file_lock(path: Path, holder: str, *, timeout: float | None = None) -> Iterator[None]:
    """Hold the lock file `path`; give up after `timeout` (default: the lock timeout) with a LockTimeout
    naming `holder`."""
    from filelock import FileLock, Timeout

    timeout = lock_timeout() if timeout is None else timeout
    lock = FileLock(str(path), timeout=timeout)
    try:
        lock.acquire(poll_interval=0.02)
    except Timeout:
        raise LockTimeout(
            f"{holder} has held {path} for {timeout:g}s; retry when it finishes (or raise {ENV_TIMEOUT})",
        ) from None
    try:
        yield
    finally:
        lock.release()
