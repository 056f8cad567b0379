"""`apm-git status`: budgets used, the findings that hold now, last flushes, pending items, and what is due.

The findings are computed afresh (the checks on the work tree), never read from the last
flush's record: a finding shows for as long as it holds.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from apm_git import clock, git
from apm_git.dreaming.due import Due, due_dates
from apm_git.errors import ApmGitError
from apm_git.model import names
from apm_git.model.config import CONFIG_FILE
from apm_git.model.snapshot import Finding
from apm_git.model.vocabulary import CHECK_IDS, CheckId, DueStage
from apm_git.operations.embedding import VectorsState, vectors_state
from apm_git.operations.setup import missing
from apm_git.store.repo import MemoryRepo
from apm_git.store.state import load_flush_state, with_quiet_runs


@dataclasses.dataclass(frozen=True)
class FileBudget:
    file: str
    lines: int
    budget: int | None

    @property
    def over(self) -> bool:
        return self.budget is not None and self.lines > self.budget


@dataclasses.dataclass
class Findings:
    """What the checks find in the work tree now: new findings, those the baseline knows, and the
    suspected secrets that keep a file out of every commit (not marked false positives)."""

    new: list[Finding] = dataclasses.field(default_factory=list)
    known: list[Finding] = dataclasses.field(default_factory=list)
    withheld: list[Finding] = dataclasses.field(default_factory=list)
    problem: str | None = None  # why the checks could not run

    def totals(self, which: list[Finding]) -> dict[str, int]:
        return dict(Counter(finding.hook for finding in which).most_common())

    def worst(self, limit: int) -> list[Finding]:
        """The few new findings to look at first: by how much they put memory at risk, then where."""
        return sorted(self.new, key=lambda finding: (SEVERITY.index(finding.hook)
                                                     if finding.hook in SEVERITY else len(SEVERITY), finding))[:limit]


@dataclasses.dataclass(frozen=True)
class InConflict:
    """A live entry with a `Conflicts:` field (docs/design.md 2.1): an unresolved contradiction, e.g. the two
    versions that a merge kept of an entry whose body both sides changed (docs/merge.md)."""

    entry: str
    file: str
    line: int
    conflicts: str


@dataclasses.dataclass(frozen=True)
class PendingRecord:
    """A `pending` item of a live journal (`journal add --kind pending`, or a `- **Pending:**` note line):
    an unfinished task, which deep sleep never promotes, so it waits in its journal."""

    entry: str
    file: str  # repo-relative
    line: int
    title: str


@dataclasses.dataclass
class StatusResult:
    files: list[FileBudget]
    last_flush: dict[str, str | None]
    pending_items: list[Any]
    due: list[Due]
    uncommitted: list[str]
    findings: Findings = dataclasses.field(default_factory=Findings)
    not_set_up: list[str] = dataclasses.field(default_factory=list)  # what `apm-git setup` would add
    in_conflict: list[InConflict] = dataclasses.field(default_factory=list)
    pending_records: list[PendingRecord] = dataclasses.field(default_factory=list)
    vectors: list[VectorsState] = dataclasses.field(default_factory=list)  # where `apm-git embed` made them


# Most harmful first: a secret about to leak, memory lost, then shape and size (each check's `severity`; the
# generated check ids are in that order, docs/checks.md).
SEVERITY: tuple[CheckId, ...] = CHECK_IDS


def status(repo: MemoryRepo) -> StatusResult:
    files = []
    for rel in repo.markdown_files():
        if rel.startswith(f"{names.ARCHIVE}/"):
            continue
        budget = repo.config.budget_for(rel)
        # Counting lines needs no decoding, and goes in chunks: a damaged or huge file still shows.
        files.append(FileBudget(repo.repo_path(rel), repo.count_lines(rel), budget))
    state = with_quiet_runs(repo, load_flush_state(repo))
    last_flush: dict[str, str | None] = {"main": state["main_session"].get("last_flush_time")}
    for group, value in sorted(state["groups"].items()):
        if isinstance(value, dict):
            last_flush[f"group:{group}"] = value.get("last_flush_time")
    every: dict[DueStage, int] = {"deep-sleep": repo.config.deep_sleep.every_days, "rem": repo.config.rem.every_days}
    changes = git.status(repo.root, [repo.memory_prefix, CONFIG_FILE])
    return StatusResult(
        files=files,
        last_flush=last_flush,
        pending_items=list(state["pending_items"]),
        due=due_dates(state, clock.today(), every),
        uncommitted=sorted(change.path for change in changes),
        findings=current_findings(repo),
        not_set_up=missing(repo.root),
        in_conflict=in_conflict(repo),
        pending_records=pending_records(repo),
        vectors=vectors_state(repo),
    )


def pending_records(repo: MemoryRepo) -> list[PendingRecord]:
    """Every pending item of the live journals, oldest journal first (both forms of docs/design.md 2.1)."""
    from apm_git.dreaming.items import collect_items
    from apm_git.model import dated
    from apm_git.model.records import parse
    from apm_git.store import layout

    found = []
    for name in layout.journals(repo):
        try:
            text = repo.read(name)
        except ApmGitError:
            continue  # unreadable or too large: the findings say so
        day = dated.journal_date(name)
        if not text or day is None:
            continue
        parsed = parse(text)
        for item in collect_items(name, day, parsed):
            if item.kind == "pending":
                block = parsed.blocks[item.place.block]
                line = block.line_no + (item.place.lines[0] if item.place.lines else 0)
                found.append(PendingRecord(item.entry_id, repo.repo_path(name), line, item.title))
    return found


def in_conflict(repo: MemoryRepo) -> list[InConflict]:
    """Every live entry with a `Conflicts:` field, in file order (the archive never holds one: REM
    does not archive an entry in conflict)."""
    from apm_git.model.records import parse

    found = []
    for rel in repo.markdown_files():
        if rel.startswith(f"{names.ARCHIVE}/"):
            continue
        try:
            text = repo.read(rel)
        except ApmGitError:
            continue  # unreadable or too large: the findings say so
        if not text or "- Conflicts:" not in text:
            continue
        for record in parse(text).records:
            value = record.field("Conflicts")
            if value and record.date and record.title:
                found.append(InConflict(record.id, repo.repo_path(rel), record.line_no, value))
    return found


def current_findings(repo: MemoryRepo) -> Findings:
    """Every check on every memory file of the work tree, split by the findings baseline."""
    from apm_git.checks import baseline, no_secrets
    from apm_git.checks.run import run_checks
    from apm_git.operations.baseline import work_tree

    try:
        snap = work_tree(repo)
        everything = run_checks(snap, baseline_too=True)
        new, known = baseline.split(snap, everything)
    except ApmGitError as error:
        return Findings(problem=str(error))
    uncommitted = {change.path for change in snap.changes if change.status != "D"}
    secrets = [finding for finding in everything if finding.hook == no_secrets.ID and finding.path in uncommitted]
    withheld, _ = baseline.withheld_secrets(snap, secrets)
    return Findings(new, known, withheld)
