"""`apm-git deep-sleep`: promote journal items into the category files, archive old journals (docs/design.md 6)."""
from __future__ import annotations

import time
from typing import Any, Final

from apm_git import clock
from apm_git.dreaming.execute import Changes, budget_problems, execute_deep_sleep, rescored, validate
from apm_git.dreaming.plan import DeepSleepPlan, deep_sleep_from_json, deep_sleep_json, deep_sleep_trailers
from apm_git.dreaming.plan_deep_sleep import Memory, plan_deep_sleep
from apm_git.errors import PlanRefused
from apm_git.operations.consolidation import (
    StageResult,
    check_guard,
    commit_stage,
    counted,
    flush_first,
    guard_refusal,
    left_out,
    live_entries,
    read_memory,
    without_left_out,
)
from apm_git.store.landing import finish_pending
from apm_git.store.lock import write_lock
from apm_git.store.repo import MemoryRepo

STAGE: Final = "deep-sleep"


def deep_sleep(
    repo: MemoryRepo, *, plan_data: Any = None, dry_run: bool = False, force: bool = False,
) -> StageResult:
    """Run deep sleep now: the computed plan, or `plan_data` (an edited `--plan`) after validating it."""
    started = time.perf_counter()
    finish_pending(repo, wait=not dry_run)  # an interrupted commit first: the plan reads the work tree
    flushed = None
    if not dry_run:
        flushed = flush_first(repo, STAGE, lambda: _plan(repo, read_memory(repo), plan_data, force))
    with write_lock(repo):
        left = [] if dry_run else left_out(repo)
        memory = read_memory(repo, left)
        plan, changes = _plan(repo, memory, plan_data, force or dry_run)  # a dry run shows a plan the guard refuses
        plan = without_left_out(plan, left)
        result = _result(repo, plan, dry_run)
        result.flushed = flushed
        result.left_out = [repo.repo_path(rel) for rel in left]
        if dry_run and not force:
            live = live_entries(list(memory.categories.values()))
            result.refused = guard_refusal(STAGE, len(plan.archivals), live, repo.config.rem)
        if not dry_run:
            commit_stage(repo, result, changes or _execute(repo, plan, memory), _body(plan), plan.day)
    result.elapsed = time.perf_counter() - started
    return result


def deep_sleep_plan(repo: MemoryRepo) -> dict[str, Any]:
    """The plan that `deep-sleep` would carry out now, as JSON (for `--plan`); nothing is changed."""
    return deep_sleep_json(plan_deep_sleep(read_memory(repo), clock.today(), repo.config), repo.memory_prefix)


def _plan(repo: MemoryRepo, memory: Memory, plan_data: Any, force: bool) -> tuple[DeepSleepPlan, Changes | None]:
    """The plan, computed or read from `plan_data` and checked; an edited plan comes with its changes,
    which checking it needed (a computed plan keeps to the budgets by construction)."""
    today = clock.today()
    changes = None
    if plan_data is None:
        plan = plan_deep_sleep(memory, today, repo.config)
    else:
        try:
            plan = deep_sleep_from_json(plan_data, repo.memory_prefix, today)
        except PlanRefused as error:
            raise PlanRefused(f"plan refused, nothing was changed: {error}") from None
        problems = validate(plan, memory, repo.config)
        if not problems:
            plan = rescored(plan, memory, repo.config)
            changes = _execute(repo, plan, memory)
            problems = budget_problems(plan, memory, repo.config, changes)
        if problems:
            more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
            raise PlanRefused(f"plan refused, nothing was changed: {problems[0]}{more}")
    live = live_entries(list(memory.categories.values()))
    check_guard(STAGE, len(plan.archivals), live, repo.config.rem, force)
    return plan, changes


def _execute(repo: MemoryRepo, plan: DeepSleepPlan, memory: Memory) -> Changes:
    archives = {a.target: repo.read(a.target) for a in plan.archivals}
    return execute_deep_sleep(plan, memory, repo.config, archives)


def _result(repo: MemoryRepo, plan: DeepSleepPlan, dry_run: bool) -> StageResult:
    summary = counted(
        [("promoted", len(plan.promotions)), ("archived", len(plan.archivals)),
         ("journals moved", len(plan.journal_moves))],
        "nothing to promote",
    )
    return StageResult(
        STAGE, f"{STAGE} {summary}", deep_sleep_json(plan, repo.memory_prefix),
        deep_sleep_trailers(plan, repo.memory_prefix), dry_run=dry_run,
    )


def _body(plan: DeepSleepPlan) -> str:
    lines = [f"Deep sleep of {plan.day.isoformat()}: journal items promoted by kind into the category files."]
    lines += [f"Kept {k.entry_id} in {k.source}: {k.reason}." for k in plan.kept[:20]]
    if len(plan.kept) > 20:
        lines.append(f"... and {len(plan.kept) - 20} more kept.")
    return "\n".join(lines)

