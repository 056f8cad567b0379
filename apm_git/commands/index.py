"""`apm-git index`: rebuild memory/INDEX.md from the files themselves."""
from __future__ import annotations

import dataclasses

from apm_git import clock
from apm_git.model import names
from apm_git.store.memory_index import refresh_index
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import write_lock


@dataclasses.dataclass(frozen=True)
class IndexResult:
    path: str
    changed: bool


def index(repo: MemoryRepo) -> IndexResult:
    with write_lock(repo):
        changed = refresh_index(repo, clock.today())
    return IndexResult(repo.repo_path(names.INDEX), changed)
