"""`apm-git import`: turn free-form dated sections and session notes into records, as one commit.

Planned first (`--plan`, or the text plan when run without options), then carried out from a
plan (`--apply`), re-checked against the files as they are then.
"""
from __future__ import annotations

from typing import Any

from apm_git import clock
from apm_git.dreaming.importing import ImportPlan, import_from_json, plan_import
from apm_git.operations.consolidation import StageResult, run
from apm_git.operations.stages import Import, import_inputs
from apm_git.present.shapes_plans import plan_json
from apm_git.store.repo import MemoryRepo


def import_plan(repo: MemoryRepo) -> ImportPlan:
    files, taken = import_inputs(repo)
    return plan_import(files, repo.config.routing, taken, clock.today(), repo.config.budget_for)


def import_plan_json(repo: MemoryRepo) -> dict[str, Any]:
    return plan_json(import_plan(repo), repo.memory_prefix)


def import_apply(repo: MemoryRepo, plan_data: Any) -> StageResult:
    """Carry out a plan printed by `import --plan` (items may be dropped or their kind changed)."""
    return run(repo, Import(import_from_json(plan_data, repo.memory_prefix, clock.today())))
