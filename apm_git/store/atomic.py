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
    passes `sync=False`.  An existing file keeps its permissions; a new one gets what the umask
    allows, as `open()` would give it (0644 under umask 022): a memory in a shared folder stays
    readable.  Only the temporary file is private while it is written.
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
            os.fchmod(fd, mode if mode is not None else 0o666 & ~umask())
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise



def umask() -> int:
    """The process's umask, without changing it (Linux: /proc; elsewhere set and put back at once)."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    value = os.umask(0o022)
    os.umask(value)
    return value
