"""One place runs a consolidation (deep sleep, REM, `dream`'s stages, `import --apply`): `run`.

In order, under the write lock:

1. finish a consolidation a kill interrupted (taking the lock does it: store/landing.py rolls the
   journal forward, docs/crash-safety.md), so the plan reads the memory as it was committed;
2. plan, once: the stage reads the memory and calls its pure planner (apm_git/dreaming/);
   the mass-archive guard refuses here, before anything is written or committed;
3. flush the user's uncommitted memory, when there is some, so the run's commit holds only the run;
4. execute the plan in memory and commit it (operations/apply.py), then bring the work tree to it;
5. once the lock is released, `git gc --auto` packs the repository when its loose objects passed
   `PACK_LOOSE_OBJECTS`, detached as after `git commit`: a `dream` run from an agent's SessionEnd hook
   pays only git's quick count, never the packing.

A file flush withholds (a suspected secret) is found before the plan and left out of it: the run
neither reads nor touches it.  The stages themselves are in operations/stages.py.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import time
from collections.abc import Callable, Collection
from typing import Any, ClassVar, Protocol

from apm_git import clock, git
from apm_git.dreaming.execute import Changes
from apm_git.dreaming.plan import DeepSleepPlan, Kept
from apm_git.dreaming.plan_deep_sleep import Memory
from apm_git.errors import PlanRefused, StateError
from apm_git.model import names
from apm_git.model.config import RemSettings
from apm_git.model.records import parse
from apm_git.model.vocabulary import StageName
from apm_git.operations.apply import commit_run, dirty
from apm_git.operations.flush import flush_locked
from apm_git.store import layout
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import finish_pending, write_lock

# apm-git builds its commits from git's plumbing, which never runs `git gc --auto` as `git commit` does: a year
# of daily flushes and dreams left 3.5-5.3k loose objects, below git's own 6,700, in 3-4 times the space packed.
PACK_LOOSE_OBJECTS = 1000
RECORD_HEADING = "## ["  # how every record's heading starts (model/records.py)


@dataclasses.dataclass
class StageResult:
    stage: StageName
    subject: str
    plan: dict[str, Any]
    trailers: list[tuple[str, str]]
    commit: str | None = None
    flushed: str | None = None  # the flush that committed the user's changes first
    dry_run: bool = False
    elapsed: float = 0.0
    refused: str | None = None  # dry run: why the mass-archive guard would refuse a real run (None: it would not)
    left_out: list[str] = dataclasses.field(default_factory=list)  # memory files the run did not read (withheld)


@dataclasses.dataclass
class Planned:
    """A stage's plan, before anything is written: its result so far, and how to carry it out."""

    result: StageResult
    body: str  # the commit message's body
    day: dt.date
    execute: Callable[[], Changes | None]  # the plan's writes and moves, in memory; None: nothing to commit
    archived: int = 0  # the entries it archives, of `live`: the mass-archive guard's figures
    live: int = 0


class Stage(Protocol):
    """A consolidation stage: reads the memory, plans, says what carrying the plan out writes.  It takes
    no lock, flushes nothing and commits nothing: `run` does."""

    @property
    def name(self) -> StageName: ...  # deep-sleep, rem or import: the trailer Apm-Trigger and the messages

    leaves_out: ClassVar[bool]  # whether files flush withholds are left out of the plan

    def plan(self, repo: MemoryRepo, today: dt.date, left: Collection[str]) -> Planned: ...


Propose = Callable[[StageResult, Changes, str, dt.date], None]  # commits the run elsewhere (operations/proposals.py)


def run(repo: MemoryRepo, stage: Stage, *, dry_run: bool = False, force: bool = False,
        propose: Propose | None = None) -> StageResult:
    """Carry out `stage` (see the module's docstring); a dry run plans and says what the guard would do;
    `propose` commits the run (result, changes, body, day) in place of step 4, leaving the branch alone."""
    started = time.perf_counter()
    if dry_run:
        finish_pending(repo, wait=False)  # a reader notes an interrupted commit it cannot finish
    with write_lock(repo):  # finishes an interrupted commit (store/writer.py) first, once
        changed = [] if dry_run else git.status(repo.root, [repo.memory_prefix])
        left = withheld(repo, changed) if stage.leaves_out else []
        planned = stage.plan(repo, clock.today(), left)
        result = planned.result
        result.left_out = [repo.repo_path(rel) for rel in left]
        if dry_run:
            result.dry_run = True
            if not force:
                result.refused = guard_refusal(stage.name, planned.archived, planned.live, repo.config.rem)
        else:
            check_guard(stage.name, planned.archived, planned.live, repo.config.rem, force)
            if changed:
                result.flushed = flush_locked(repo, trigger="manual", message=f"Flushed before {stage.name}.").commit
            changes = planned.execute()
            if changes is not None:
                (propose or functools.partial(commit_stage, repo))(result, changes, planned.body, planned.day)
    if result.commit is not None:  # after the lock: a flush never waits for it
        git.gc_auto(repo.root, PACK_LOOSE_OBJECTS)
    result.elapsed = time.perf_counter() - started
    return result


def scored_files(repo: MemoryRepo, left: Collection[str] = ()) -> list[str]:
    """The files REM scores: the category files, then each group's experience.md (none that is `left` out)."""
    files = [name for name in layout.category_files(repo) if repo.exists(name)]
    experience = [f"{layout.group_dir(group)}/{names.EXPERIENCE}" for group in layout.groups(repo)]
    return [name for name in files + [name for name in experience if repo.exists(name)] if name not in left]


def withheld(repo: MemoryRepo, changed: list[git.Change]) -> list[str]:
    """The memory files (memory-relative) among the uncommitted `changed` that flush will withhold as holding
    a suspected secret.  A run works from the rest: it neither reads nor touches them.  Any other uncommitted
    change (a loss flush keeps out) still stops the run if the run touches it (`commit_stage`)."""
    from apm_git.checks import baseline, no_secrets
    from apm_git.operations.baseline import work_tree

    present = sorted({change.path for change in changed if (repo.root / change.path).is_file()})
    if not present:
        return []
    snap = work_tree(repo, present)
    found, _ = baseline.withheld_secrets(snap, no_secrets.validate(snap))
    return sorted({rel for rel in (repo.memory_rel(finding.path) for finding in found) if rel is not None})


def without_left_out(plan: DeepSleepPlan, left: Collection[str]) -> DeepSleepPlan:
    """The plan less every move into or out of a left-out file; what it would have moved stays, and says why."""
    if not left:
        return plan
    gone = [p for p in plan.promotions if p.target in left or p.source in left]
    plan.kept += [Kept(p.entry_id, p.source, f"{p.target} holds changes flush left out") for p in gone]
    plan.promotions = [p for p in plan.promotions if p not in gone]
    plan.archivals = [a for a in plan.archivals if a.source not in left]
    plan.journal_moves = [m for m in plan.journal_moves if m.source not in left]
    return plan


def left_out_note(paths: Collection[str]) -> str:
    """One line: what a run left out (repo-relative paths) and how to resolve it."""
    files = ", ".join(sorted(paths)[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return (
        f"left out {files}: {'it holds' if len(paths) == 1 else 'each holds'} a section with a suspected secret, "
        "which flush keeps uncommitted; remove the "
        "secret, or mark a false positive with `apm-git allow-secret PATH:LINE` (`apm-git status` shows where), "
        "then `apm-git flush`"
    )


def read_memory(repo: MemoryRepo, left: Collection[str] = ()) -> Memory:
    journals = {name: repo.read(name) or "" for name in layout.journals(repo) if name not in left}
    categories = {name: repo.read(name) or "" for name in layout.category_files(repo)}
    taken: dict[str, str] = {}
    for rel in repo.markdown_files():
        if rel in journals or rel == names.INDEX:
            continue
        text = repo.read(rel) or ""
        if RECORD_HEADING not in text:  # no record in it: most of a workspace's own files, not worth parsing
            continue
        for record in parse(text).records:
            if record.day is not None and record.title:
                taken.setdefault(record.id, repo.repo_path(rel))
    archived = frozenset(
        path.name for path in (repo.memory / names.ARCHIVED_JOURNALS).glob("*.md")
    ) if (repo.memory / names.ARCHIVED_JOURNALS).is_dir() else frozenset()
    return Memory(journals, categories, taken, archived)


def live_entries(texts: list[str]) -> int:
    return sum(len(parse(text).entries) for text in texts)


def guard_refusal(stage: str, archived: int, live: int, rem: RemSettings) -> str | None:
    """Why the mass-archive guard refuses a run, or None when it lets it through.

    It refuses a run that archives more than `rem.max_archive_share` of the live entries, unless
    the run archives at most `rem.guard_min_entries`: in a small memory one stale entry of three
    is a third, and refusing it would make `dream` fail on every run.
    """
    if archived <= rem.guard_min_entries or live == 0 or archived / live <= rem.max_archive_share:
        return None
    return (
        f"{stage} would archive {archived} of {live} live entries ({archived / live:.0%}), more than "
        f"rem.max_archive_share ({rem.max_archive_share:.0%}) and more than rem.guard_min_entries "
        f"({rem.guard_min_entries})"
    )


def check_guard(stage: str, archived: int, live: int, rem: RemSettings, force: bool) -> None:
    """Refuse a run the guard refuses (see `guard_refusal`), unless forced."""
    refusal = None if force else guard_refusal(stage, archived, live, rem)
    if refusal is not None:
        raise PlanRefused(
            f"{refusal}; nothing was changed — review the plan with `apm-git {stage} --dry-run`, "
            "then run again with --force",
        )


def commit_stage(
    repo: MemoryRepo, result: StageResult, changes: Changes, body: str, today: dt.date,
) -> None:
    touched = [*changes.writes, *(path for move in changes.moves for path in move)]
    busy = dirty(repo, [*touched, names.INDEX, names.FLUSH_STATE])
    if busy:
        raise StateError(
            f"{', '.join(busy)} changed while {result.stage} was planned (or hold changes flush left out: a "
            "suspected secret, or entries the work tree lost that HEAD keeps); flush or revert them (restore or "
            f"`apm-git forget` lost entries), then run `apm-git {result.stage}` again",
        )
    trailers = [*result.trailers, ("Apm-Trigger", result.stage), ("Apm-Scope", "all")]
    # INDEX.md describes the commit: a left-out file counts as committed (commit_run).
    result.commit = commit_run(repo, changes, result.stage, result.subject, trailers, body, today)


def counted(parts: list[tuple[str, int]], nothing: str) -> str:
    words = [f"{label} {count}" for label, count in parts if count]
    return ", ".join(words) if words else nothing

