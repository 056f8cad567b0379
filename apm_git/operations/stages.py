"""The consolidation stages that `consolidation.run` carries out: deep sleep, REM and import.

Each reads the memory it plans from, calls its pure planner (apm_git/dreaming/) once, and says what
carrying the plan out writes.  None of them takes the lock, flushes or commits.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection
from typing import Any, ClassVar, Literal

from apm_git.dreaming.execute import Changes, budget_problems, execute_deep_sleep, rescored, validate
from apm_git.dreaming.importing import ImportPlan, execute_import, import_trailers
from apm_git.dreaming.plan import (
    DeepSleepPlan,
    RemPlan,
    deep_sleep_from_json,
    deep_sleep_trailers,
    rem_trailers,
)
from apm_git.dreaming.plan_deep_sleep import Memory, plan_deep_sleep
from apm_git.dreaming.plan_rem import plan_rem
from apm_git.errors import PlanRefused
from apm_git.model import dated
from apm_git.model.records import parse
from apm_git.operations.consolidation import (
    Planned,
    StageResult,
    counted,
    live_entries,
    read_memory,
    scored_files,
    without_left_out,
)
from apm_git.present.shapes_plans import plan_json
from apm_git.store import layout
from apm_git.store.repo import MemoryRepo


@dataclasses.dataclass
class DeepSleep:
    """Stage 2: promote journal items into the category files; archive old journals (docs/design.md 6)."""

    plan_data: Any = None  # an edited `deep-sleep --plan`, checked before it is carried out
    name: ClassVar[Literal["deep-sleep"]] = "deep-sleep"
    leaves_out: ClassVar[bool] = True

    def plan(self, repo: MemoryRepo, today: dt.date, left: Collection[str]) -> Planned:
        memory = read_memory(repo, left)
        plan, changes = self._planned(repo, memory, today)
        plan = without_left_out(plan, left)
        summary = counted(
            [("promoted", len(plan.promotions)), ("archived", len(plan.archivals)),
             ("journals moved", len(plan.journal_moves))],
            "nothing to promote",
        )
        result = StageResult(self.name, f"{self.name} {summary}", plan_json(plan, repo.memory_prefix),
                             deep_sleep_trailers(plan, repo.memory_prefix))
        return Planned(
            result, _deep_sleep_body(plan), plan.day, lambda: changes or _execute(repo, plan, memory),
            archived=len(plan.archivals), live=live_entries(list(memory.categories.values())),
        )

    def _planned(self, repo: MemoryRepo, memory: Memory, today: dt.date) -> tuple[DeepSleepPlan, Changes | None]:
        """The plan, computed or read from `plan_data` and checked; an edited plan comes with its changes,
        which checking it needed (a computed plan keeps to the budgets by construction)."""
        if self.plan_data is None:
            return plan_deep_sleep(memory, today, repo.config), None
        plan = deep_sleep_from_json(self.plan_data, repo.memory_prefix, today)
        changes = None
        problems = validate(plan, memory, repo.config)
        if not problems:
            plan = rescored(plan, memory, repo.config)
            changes = _execute(repo, plan, memory)
            problems = budget_problems(plan, memory, repo.config, changes)
        if problems:
            more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
            raise PlanRefused(f"plan refused, nothing was changed: {problems[0]}{more}")
        return plan, changes


def _execute(repo: MemoryRepo, plan: DeepSleepPlan, memory: Memory) -> Changes:
    archives = {a.target: repo.read(a.target) for a in plan.archivals}
    return execute_deep_sleep(plan, memory, repo.config, archives)


def _deep_sleep_body(plan: DeepSleepPlan) -> str:
    lines = [f"Deep sleep of {plan.day.isoformat()}: journal items promoted by kind into the category files."]
    lines += [f"Kept {k.entry_id} in {k.source}: {k.reason}." for k in plan.kept[:20]]
    if len(plan.kept) > 20:
        lines.append(f"... and {len(plan.kept) - 20} more kept.")
    return "\n".join(lines)


@dataclasses.dataclass
class Rem:
    """Stage 3: the survival merge over the category files and the groups' experience (docs/design.md 6)."""

    fresh: frozenset[str] = frozenset()  # ids promoted earlier in the same `dream`, never archived by this run
    name: ClassVar[Literal["rem"]] = "rem"
    leaves_out: ClassVar[bool] = True

    def plan(self, repo: MemoryRepo, today: dt.date, left: Collection[str]) -> Planned:
        files = {name: repo.read(name) or "" for name in scored_files(repo, left)}
        outcome = plan_rem(files, repo.read(dated.archive_file(today)), today, repo.config, self.fresh)
        plan = outcome.plan
        if _old_journals(repo, today):  # worth asking deep sleep which of them have nothing left to promote
            memory = read_memory(repo, left)
            plan.journal_moves = without_left_out(plan_deep_sleep(memory, today, repo.config), left).journal_moves
            outcome.read.update((move.source, memory.journals[move.source]) for move in plan.journal_moves)
        summary = counted(
            [("archived", len(plan.archivals)), ("proven", len(plan.proven)),
             ("superseded", len(plan.supersessions)), ("merged", sum(len(f.folded) for f in plan.folds)),
             ("journals moved", len(plan.journal_moves))],
            "nothing to change",
        )
        result = StageResult(self.name, f"{self.name} {summary}", plan_json(plan, repo.memory_prefix),
                             rem_trailers(plan, repo.memory_prefix))
        moves = [(move.source, move.target) for move in plan.journal_moves]
        return Planned(
            result, _rem_body(plan, repo.memory_prefix), plan.day, lambda: Changes(outcome.writes, moves, outcome.read),
            archived=len(plan.archivals), live=plan.live,
        )


def _old_journals(repo: MemoryRepo, today: dt.date) -> list[str]:
    limit = repo.config.journals.archive_after_days
    return [name for name in layout.journals(repo) if (today - (dated.journal_date(name) or today)).days > limit]


def _rem_body(plan: RemPlan, prefix: str) -> str:
    lines = [f"REM of {plan.day.isoformat()}: survival merge of {plan.live} live entries."]
    lines += [
        f"{prefix}/{over.file} stays over budget ({over.lines} > {over.budget} lines): {over.why()}."
        for over in plan.over_budget
    ]
    return "\n".join(lines)


@dataclasses.dataclass
class Import:
    """`import --apply`: free-form dated sections and session notes become records, in place (docs/sections.md)."""

    chosen: ImportPlan  # as printed by `import --plan`, possibly edited
    name: ClassVar[Literal["import"]] = "import"
    leaves_out: ClassVar[bool] = False  # a chosen section in a withheld file stops the run (`commit_stage`)

    def plan(self, repo: MemoryRepo, today: dt.date, left: Collection[str]) -> Planned:
        files, taken = import_inputs(repo)
        writes = execute_import(self.chosen, files, repo.config.routing, taken, repo.config.budget_for)
        count = len(self.chosen.items)
        subject = f"import {count} section{'s' if count != 1 else ''} as records" if count else "import nothing"
        result = StageResult(self.name, subject, plan_json(self.chosen, repo.memory_prefix),
                             import_trailers(self.chosen, repo.memory_prefix))
        body = ("Free-form sections turned into records in place; every line kept "
                "(a dated heading in its record's Source field).")
        changes = Changes(writes, [], {name: files[name] for name in writes}) if writes else None
        return Planned(result, body, self.chosen.day, lambda: changes)


def import_inputs(repo: MemoryRepo) -> tuple[dict[str, str], dict[str, str]]:
    """The texts of the journals and category files, and where each entry id already is."""
    names = [*layout.journals(repo), *(name for name in layout.category_files(repo) if repo.exists(name))]
    files = {name: repo.read(name) or "" for name in names}
    taken: dict[str, str] = {}
    for rel in repo.markdown_files():
        text = files.get(rel)
        for record in parse(text if text is not None else repo.read(rel) or "").records:
            if record.day is not None and record.title:
                taken.setdefault(record.id, repo.repo_path(rel))
    return files, taken
