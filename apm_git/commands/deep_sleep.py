"""`apm-git deep-sleep`: promote journal items into the category files, archive old journals (docs/design.md 6)."""
from __future__ import annotations

from typing import Any

from apm_git import clock
from apm_git.dreaming.plan_deep_sleep import plan_deep_sleep
from apm_git.operations.consolidation import StageResult, read_memory, run
from apm_git.operations.stages import DeepSleep
from apm_git.present.shapes_plans import plan_json
from apm_git.store.repo import MemoryRepo


def deep_sleep(
    repo: MemoryRepo, *, plan_data: Any = None, dry_run: bool = False, force: bool = False,
) -> StageResult:
    """Run deep sleep now: the computed plan, or `plan_data` (an edited `--plan`) after validating it."""
    return run(repo, DeepSleep(plan_data), dry_run=dry_run, force=force)


def deep_sleep_plan(repo: MemoryRepo) -> dict[str, Any]:
    """The plan that `deep-sleep` would carry out now, as JSON (for `--plan`); nothing is changed."""
    return plan_json(plan_deep_sleep(read_memory(repo), clock.today(), repo.config), repo.memory_prefix)
