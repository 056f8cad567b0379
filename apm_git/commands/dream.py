"""`apm-git dream`: run whichever of deep sleep and REM is due; safe to call every hour.

Then it brings the meaning layer's vectors up to date where someone made them (`apm-git embed`, once): the
passages written since are embedded, those gone dropped, so the per-prompt hook and `search --meaning` find
new memory by meaning without anyone running `embed` again.  A scope without vectors gets none (embedding is
the user's choice: minutes of CPU for a large memory), and without the extra `dream` says so in one line."""
from __future__ import annotations

import dataclasses

from apm_git import clock
from apm_git.dreaming.due import due_dates
from apm_git.errors import ApmGitError, PlanRefused
from apm_git.model.vocabulary import DueStage
from apm_git.operations.consolidation import StageResult, run
from apm_git.operations.embedding import EmbedResult
from apm_git.operations.proposals import Proposed, propose
from apm_git.operations.stages import DeepSleep, Rem
from apm_git.store.repo import MemoryRepo
from apm_git.store.state import load_flush_state, with_quiet_runs


@dataclasses.dataclass
class DreamResult:
    ran: list[StageResult] = dataclasses.field(default_factory=list)
    refused: str | None = None  # why a due stage was refused (the mass-archive guard)
    proposed: list[Proposed] = dataclasses.field(default_factory=list)  # with `propose`: one per stage that ran
    vectors: list[EmbedResult] = dataclasses.field(default_factory=list)  # the scopes whose vectors were refreshed
    vectors_note: str | None = None  # why vectors there were not refreshed (the extra is missing)


def due_stages(repo: MemoryRepo) -> list[DueStage]:
    every: dict[DueStage, int] = {
        DeepSleep.name: repo.config.deep_sleep.every_days, Rem.name: repo.config.rem.every_days}
    state = with_quiet_runs(repo, load_flush_state(repo))  # a quiet run made no commit but counts
    return [due.stage for due in due_dates(state, clock.today(), every) if due.due_now]


def dream(repo: MemoryRepo, *, force: bool = False, propose: bool = False) -> DreamResult:
    """Deep sleep when `deep_sleep.every_days` have passed since it last ran, then REM likewise; with
    `propose`, each as a proposal on a branch of its own (operations/proposals.py)."""
    result = _dream_proposals(repo, force) if propose else _dream(repo, force)
    _refresh_vectors(repo, result)
    return result


def _dream(repo: MemoryRepo, force: bool) -> DreamResult:
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


def _refresh_vectors(repo: MemoryRepo, result: DreamResult) -> None:
    """Embed the new passages of each scope that has a vectors file (operations/embedding.py)."""
    from apm_git.errors import MissingExtra
    from apm_git.operations.embedding import embed, scopes_with_vectors

    for scope in scopes_with_vectors(repo):
        try:
            result.vectors.append(embed(repo, group=scope.group))
        except MissingExtra as missing:
            result.vectors_note = f"the vectors were not brought up to date: {missing}"
            return
        except ApmGitError as error:  # another process embedding, a group's name no longer valid
            result.vectors_note = f"the vectors of {scope.name} were not brought up to date: {error}"
