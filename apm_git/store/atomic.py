"""Replace a file whole or not at all: the one way apm-git writes a file.

Only `os` (not even `typing` or `pathlib`): the pre-commit hook's fast path writes through it.
"""
from __future__ import annotations

import os

# The name every temporary file of apm-git ends with: status and flush never take such a file.
TEMP_SUFFIX = ".apm-tmp"


def write_atomic(path: str | os.PathLike[str], data: bytes, *, sync: bool = True) -> None:
    """Write `data` to a temporary file beside `path`, then rename it over `path`.

    A crash leaves the old file or the new one, never half of one: with `sync` (the default)
    the bytes are on disk before the rename.  Only a cache, which reads a torn file as a miss,
    passes `sync=False`.  An existing file keeps its permissions; a new one is private (0600).
    """
    path = os.fspath(path)
    folder, name = os.path.split(path)
    os.makedirs(folder or ".", exist_ok=True)
    try:
        mode: int | None = os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        mode = None
    tmp = os.path.join(folder, f".{name}.{os.getpid()}{TEMP_SUFFIX}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if mode is not None:
                os.fchmod(fd, mode)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise
