"""`apm-git flush`: the memory of one scope becomes one commit (docs/design.md 3, 7; the steps are
apm_git/operations/flush.py)."""
from __future__ import annotations

from apm_git.model.vocabulary import FlushTrigger
from apm_git.operations.flush import ALL, FlushResult, flush_locked
from apm_git.store.repo import MemoryRepo
from apm_git.store.scope import Scope
from apm_git.store.writer import write_lock


def flush(
    repo: MemoryRepo,
    *,
    trigger: FlushTrigger = "manual",
    scope: Scope = ALL,
    session: str | None = None,
    message: str | None = None,
    if_idle: bool = False,
    hook: bool = False,
) -> FlushResult:
    with write_lock(repo):
        return flush_locked(repo, trigger=trigger, scope=scope, session=session, message=message, if_idle=if_idle,
                             hook=hook)
