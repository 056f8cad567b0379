"""`apm-git dream`: run whichever of deep sleep and REM is due; safe to call every hour."""
from __future__ import annotations

import dataclasses

from apm_git import clock
from apm_git.dreaming.due import due_dates
from apm_git.errors import PlanRefused
from apm_git.model.vocabulary import DueStage
from apm_git.operations.consolidation import StageResult, run
from apm_git.operations.proposals import Proposed, propose
from apm_git.operations.stages import DeepSleep, Rem
from apm_git.store.repo import MemoryRepo
from apm_git.store.state import load_flush_state, with_quiet_runs


@dataclasses.dataclass
class DreamResult:
    ran: list[StageResult] = dataclasses.field(default_factory=list)
    refused: str | None = None  # why a due stage was refused (the mass-archive guard)
    proposed: list[Proposed] = dataclasses.field(default_factory=list)  # with `propose`: one per stage that ran


def due_stages(repo: MemoryRepo) -> list[DueStage]:
    every: dict[DueStage, int] = {
        DeepSleep.name: repo.config.deep_sleep.every_days, Rem.name: repo.config.rem.every_days}
    state = with_quiet_runs(repo, load_flush_state(repo))  # a quiet run made no commit but counts
    return [due.stage for due in due_dates(state, clock.today(), every) if due.due_now]


def dream(repo: MemoryRepo, *, force: bool = False, propose: bool = False) -> DreamResult:
    """Deep sleep when `deep_sleep.every_days` have passed since it last ran, then REM likewise; with
    `propose`, each as a proposal on a branch of its own (operations/proposals.py)."""
    if propose:
        return _dream_proposals(repo, force)
    result = DreamResult()
    promoted: frozenset[str] = frozenset()  # a record promoted in this run is not archived in it
    for stage in (DeepSleep.name, Rem.name):
        if stage not in due_stages(repo):
            continue
        try:
            if stage == DeepSleep.name:
                result.ran.append(run(repo, DeepSleep(), force=force))
                promoted = frozenset(str(p["id"]) for p in result.ran[-1].plan.get("promote", []))
            else:
                result.ran.append(run(repo, Rem(promoted), force=force))
        except PlanRefused as refused:
            result.refused = str(refused)
            break
    return result


def _dream_proposals(repo: MemoryRepo, force: bool) -> DreamResult:
    """Each due stage proposed on its own, both planned on the memory as it is (nothing lands between them)."""
    result = DreamResult()
    for stage in due_stages(repo):
        try:
            made = propose(repo, DeepSleep() if stage == DeepSleep.name else Rem(), force=force)
        except PlanRefused as refused:
            result.refused = str(refused)
            break
        result.ran.append(made.result)
        result.proposed.append(made)
    return result
