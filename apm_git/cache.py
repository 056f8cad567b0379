"""Small caches under `.git/apm-git/`: marshal files replaced whole; any doubt reads as a miss.

Only `os` and `marshal` (not even `typing`): the pre-commit hook's fast path reads a cache on
every commit, in each of its seven processes.
"""
from __future__ import annotations

import marshal
import os


def read(path: str | os.PathLike[str]) -> object:
    """The cached value, or None when there is none or it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return marshal.load(handle)
    except (OSError, EOFError, ValueError, TypeError):
        return None


def write(path: str | os.PathLike[str], value: object) -> None:
    """Replace the cache whole; a cache that cannot be written only costs the next run its work."""
    path = os.fspath(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as handle:
            marshal.dump(value, handle)  # type: ignore[arg-type]
        os.replace(tmp, path)
    except (OSError, ValueError):
        if os.path.exists(tmp):
            os.unlink(tmp)
