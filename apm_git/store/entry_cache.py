"""The entry summaries of blobs, cached under `.git/apm-git/` by blob id (content-addressed: never stale)."""
from __future__ import annotations

from pathlib import Path

from apm_git import __version__
from apm_git.store import cache

CACHE = "entries.cache"
FORMAT = 2  # 2: ordinary headings (`## [18:10] …`) are no longer records


def load(state_dir: Path) -> dict[str, str]:
    data = cache.read(state_dir / CACHE)
    if isinstance(data, tuple) and len(data) == 2 and data[0] == (FORMAT, __version__) and isinstance(data[1], dict):
        return data[1]
    return {}


def save(state_dir: Path, blobs: dict[str, str]) -> None:
    cache.write(state_dir / CACHE, ((FORMAT, __version__), blobs))
