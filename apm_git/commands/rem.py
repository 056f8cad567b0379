"""`apm-git rem`: the survival merge over the category files and the groups' experience (docs/design.md 6)."""
from __future__ import annotations

import datetime as dt
import time
from typing import Final

from apm_git import clock
from apm_git.dreaming.execute import Changes
from apm_git.dreaming.plan import RemPlan, rem_json, rem_trailers
from apm_git.dreaming.plan_deep_sleep import plan_deep_sleep
from apm_git.dreaming.plan_rem import RemOutcome, plan_rem
from apm_git.model import dated
from apm_git.operations.consolidation import (
    StageResult,
    check_guard,
    commit_stage,
    counted,
    flush_first,
    guard_refusal,
    left_out,
    read_memory,
    scored_files,
    without_left_out,
)
from apm_git.store import layout
from apm_git.store.landing import finish_pending
from apm_git.store.lock import write_lock
from apm_git.store.repo import MemoryRepo

STAGE: Final = "rem"


def rem(
    repo: MemoryRepo, *, dry_run: bool = False, force: bool = False, fresh: frozenset[str] = frozenset(),
) -> StageResult:
    """`fresh`: ids promoted earlier in the same run (by `dream`'s deep sleep), never archived by this one."""
    started = time.perf_counter()
    finish_pending(repo, wait=not dry_run)  # an interrupted commit first: the plan reads the work tree
    flushed = None if dry_run else flush_first(repo, STAGE, lambda: _plan(repo, force, fresh))
    with write_lock(repo):
        left = [] if dry_run else left_out(repo)
        outcome = _plan(repo, force or dry_run, fresh, left)  # a dry run shows the plan the guard would refuse
        plan = outcome.plan
        summary = counted(
            [("archived", len(plan.archivals)), ("proven", len(plan.proven)),
             ("superseded", len(plan.supersessions)), ("merged", sum(len(f.folded) for f in plan.folds)),
             ("journals moved", len(plan.journal_moves))],
            "nothing to change",
        )
        result = StageResult(
            STAGE, f"{STAGE} {summary}", rem_json(plan, repo.memory_prefix), rem_trailers(plan, repo.memory_prefix),
            flushed=flushed, dry_run=dry_run, left_out=[repo.repo_path(rel) for rel in left],
        )
        if dry_run and not force:
            result.refused = guard_refusal(STAGE, len(plan.archivals), plan.live, repo.config.rem)
        if not dry_run:
            moves = [(move.source, move.target) for move in plan.journal_moves]
            changes = Changes(outcome.writes, moves, outcome.read)
            commit_stage(repo, result, changes, _body(plan, repo.memory_prefix), plan.day)
    result.elapsed = time.perf_counter() - started
    return result


def _plan(repo: MemoryRepo, force: bool, fresh: frozenset[str], left: list[str] | None = None) -> RemOutcome:
    today = clock.today()
    left = left or []
    files = {name: repo.read(name) or "" for name in scored_files(repo, left)}
    outcome = plan_rem(files, repo.read(dated.archive_file(today)), today, repo.config, fresh)
    if _old_journals(repo, today):  # worth asking deep sleep which of them have nothing left to promote
        memory = read_memory(repo, left)
        outcome.plan.journal_moves = without_left_out(plan_deep_sleep(memory, today, repo.config), left).journal_moves
        outcome.read.update((move.source, memory.journals[move.source]) for move in outcome.plan.journal_moves)
    check_guard(STAGE, len(outcome.plan.archivals), outcome.plan.live, repo.config.rem, force)
    return outcome


def _old_journals(repo: MemoryRepo, today: dt.date) -> list[str]:
    limit = repo.config.journals.archive_after_days
    return [name for name in layout.journals(repo) if (today - (dated.journal_date(name) or today)).days > limit]


def _body(plan: RemPlan, prefix: str) -> str:
    lines = [f"REM of {plan.day.isoformat()}: survival merge of {plan.live} live entries."]
    lines += [
        f"{prefix}/{over.file} stays over budget ({over.lines} > {over.budget} lines): {over.why()}."
        for over in plan.over_budget
    ]
    return "\n".join(lines)
