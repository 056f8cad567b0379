"""`apm-git rem`: the survival merge over the category files and the groups' experience (docs/design.md 6)."""
from __future__ import annotations

from apm_git.operations.consolidation import StageResult, run
from apm_git.operations.stages import Rem
from apm_git.store.repo import MemoryRepo


def rem(
    repo: MemoryRepo, *, dry_run: bool = False, force: bool = False, fresh: frozenset[str] = frozenset(),
) -> StageResult:
    """`fresh`: ids promoted earlier in the same run (by `dream`'s deep sleep), never archived by this one."""
    return run(repo, Rem(fresh), dry_run=dry_run, force=force)
