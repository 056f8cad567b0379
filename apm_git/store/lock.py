"""One writer at a time: apm-git processes on a repository serialize on `.git/apm-git/lock`.

git's own `index.lock` is never touched; a waiter gives up after a bounded time.  The lock alone
lives here; writing (the lock, then finishing a commit a kill interrupted) is store/writer.py.

The lock is `flock(2)` on the lock file, taken without blocking and retried every 20 ms until the
timeout: what the filelock package does on POSIX, whose import alone (filelock 4.3: about 38 ms of
CPU, logging, asyncio-era modules) cost a quarter of a flush's budget (docs/design.md 1).  The
kernel drops the lock with the process, so a killed holder never leaves it taken; the file stays.
"""
from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from apm_git.errors import LockTimeout, OsFailure, StateError, describe_os_error

if TYPE_CHECKING:  # the snapshot hook of a tracked folder takes `file_lock` without a memory repository
    from apm_git.store.repo import MemoryRepo

ENV_TIMEOUT = "APM_GIT_LOCK_TIMEOUT"
DEFAULT_TIMEOUT = 30.0


def lock_timeout() -> float:
    try:
        return float(os.environ.get(ENV_TIMEOUT, DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT


def check_writable(repo: MemoryRepo) -> None:
    """Refuse (one line, nothing changed) when the memory dir, the git dir or its object store is
    read-only: a read-only file system, permissions, or the immutable attribute."""
    try:
        state_dir = repo.state_dir
    except OSError as error:
        from apm_git.store.repo import STATE_DIR

        raise OsFailure.of(error, repo.git_dir / STATE_DIR) from None
    objects = repo.git_dir / "objects"
    for folder in (repo.memory, repo.git_dir, objects, state_dir):
        if folder.is_dir() and not os.access(folder, os.W_OK):
            raise StateError(f"{folder} is not writable ({_why_read_only(folder)}); apm-git writes there: "
                             "make it writable, then retry (nothing was changed)")


def _why_read_only(folder: Path) -> str:
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "a read-only file system"
    except OSError:
        pass
    return "permissions, or the immutable attribute"


POLL = 0.02  # seconds between two tries of a held lock


@contextlib.contextmanager
def file_lock(path: Path, holder: str, *, timeout: float | None = None) -> Iterator[None]:
    """Hold the lock file `path`; give up after `timeout` (default: the lock timeout) with a LockTimeout
    naming `holder`.  Each call opens the file anew, so a second taker waits even in the same process
    (another thread of the MCP server)."""
    descriptor = _acquire(path, holder, lock_timeout() if timeout is None else timeout)
    try:
        yield
    finally:
        os.close(descriptor)  # closing the only descriptor of the open file releases the lock


def _acquire(path: Path, holder: str, timeout: float) -> int:
    import fcntl

    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:  # the lock file cannot be made or opened: read-only, or a folder in its place
        raise OsFailure(f"cannot take the lock {describe_os_error(error, path)} (nothing was changed)") from None
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return descriptor
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(descriptor)
                raise LockTimeout(
                    f"{holder} has held {path} for {timeout:g}s; retry when it finishes (or raise {ENV_TIMEOUT})",
                ) from None
            time.sleep(POLL)
        except OSError as error:
            os.close(descriptor)
            raise OsFailure(f"cannot take the lock {describe_os_error(error, path)} (nothing was changed)") from None
