"""Small caches under `.git/apm-git/`: marshal files replaced whole; any doubt reads as a miss.

Only `os`, `marshal` and apm_git.store.atomic (itself only `os`; not even `typing`): the pre-commit
hook's fast path reads a cache on every commit, in each of its seven processes.
"""
from __future__ import annotations

import marshal
import os

from apm_git.store.atomic import write_atomic


def read(path: str | os.PathLike[str]) -> object:
    """The cached value, or None when there is none or it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return marshal.loads(handle.read())  # marshal.load would read the file object by object
    except (OSError, EOFError, ValueError, TypeError):
        return None


def write(path: str | os.PathLike[str], value: object) -> None:
    """Replace the cache whole; a cache that cannot be written only costs the next run its work."""
    try:
        # Not synced to disk: a cache that a crash tore reads as a miss.
        write_atomic(path, marshal.dumps(value), sync=False)  # type: ignore[arg-type]
    except (OSError, ValueError):
        return
