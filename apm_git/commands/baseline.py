"""`apm-git baseline`: write the findings baseline afresh (docs/baseline.md)."""
from __future__ import annotations

from apm_git.operations.baseline import BaselineResult, record
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import write_lock


def record_all(repo: MemoryRepo) -> BaselineResult:
    """`apm-git baseline`: `record`, under the write lock."""
    with write_lock(repo):
        return record(repo)
