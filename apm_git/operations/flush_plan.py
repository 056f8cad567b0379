"""What a flush commits, decided before anything is written (issue 28): `scan` reads the scope's
changes, `plan_flush` turns them into a `FlushPlan`, and `operations/flush.flush_locked` carries the
plan out (INDEX.md, flush-state.json, the commit).

The plan writes nothing: not the work tree, not git's index, not the caches under `.git/apm-git`
(their new rows are in the plan, for the execution to write).  It reads what the checks and the
INDEX.md rebuild read, and asks git which gone files the user staged (`keep_losses`).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from apm_git import git
from apm_git.checks import baseline, budget, index_fresh, no_secrets
from apm_git.checks.run import CHECKS, run_checks
from apm_git.errors import ApmGitError, InvalidUtf8
from apm_git.model import names
from apm_git.model.snapshot import Snapshot
from apm_git.model.withhold import WithheldSection
from apm_git.operations.flush_keep import (
    KeptAtFlush,
    committed_index,
    files_line,
    keep_losses,
    loss_line,
    unreadable_line,
    withhold_secrets,
)
from apm_git.operations.gather import WORKTREE, Sides, gather
from apm_git.store.memory_index import index_change
from apm_git.store.repo import MemoryRepo
from apm_git.store.scope import Scope

NOTHING: Mapping[str, str] = MappingProxyType({})


@dataclasses.dataclass(frozen=True)
class FlushPlan:
    """What a flush commits and says.  Paths are repository-relative."""

    findings: tuple[str, ...] = ()  # the checks' findings, and why a check could not run
    notes: tuple[str, ...] = ()  # one line each on the lost entries, gone and unreadable files
    withheld: tuple[str, ...] = ()  # files not committed as the work tree has them (secrets, too large)
    withheld_sections: tuple[WithheldSection, ...] = ()  # suspected secrets, left out
    too_large: tuple[str, ...] = ()  # withheld: too large to check
    lost: Mapping[str, str] = dataclasses.field(default_factory=lambda: NOTHING)  # entry id -> file, kept
    unreadable: tuple[str, ...] = ()  # not UTF-8: HEAD's version kept
    kept_files: tuple[str, ...] = ()  # gone from the work tree: HEAD's version kept
    contents: Mapping[str, bytes] = dataclasses.field(default_factory=lambda: MappingProxyType({}))
    as_head: tuple[str, ...] = ()  # left out of the commit: HEAD's version stays
    index: str | None = None  # INDEX.md's new text for the work tree; None: it stays as it is
    caches: Mapping[Path, object] = dataclasses.field(default_factory=lambda: MappingProxyType({}))

    @property
    def held(self) -> frozenset[str]:
        """The paths whose work tree bytes are not committed.  A file with a withheld section is committed
        less that section (`contents`), not held back whole."""
        return frozenset((set(self.withheld) - set(self.contents)) | set(self.as_head))

    def why_nothing(self) -> str:
        """Why a flush whose every change is held back commits nothing."""
        return "nothing to flush: " + (
            "the only changes are withheld (suspected secrets, files too large)"
            if self.withheld and not set(self.as_head) - set(self.withheld)
            else "every change is held back (see above)")


def scan(repo: MemoryRepo, head: str | None, pathspecs: list[str], changed: list[git.Change]) -> Snapshot | str:
    """The scope's changes, `head` (HEAD's commit, None before the first) -> work tree, with their text; or
    why the checks cannot run.  `changed`: the status of the scope just read, which spares the scan two
    git processes when the scope is the whole memory dir."""
    everything = repo.memory_prefix in pathspecs and not any(spec.startswith(":") for spec in pathspecs)
    try:
        return gather(repo, Sides(head, WORKTREE, "HEAD", "the work tree"), pathspecs=pathspecs,
                      base_texts=True, status=changed if everything else None)
    except ApmGitError as error:
        return f"the checks could not run: {error}"


def plan_flush(repo: MemoryRepo, scope: Scope, today: dt.date, snap: Snapshot | str) -> FlushPlan:
    """The checks of docs/design.md 5 on what `scan` read, and what the commit holds.

    Nothing here refuses to save memory: findings are recorded, and only the sections that
    look like they hold a secret are withheld from the commit (the rest of their file is
    committed; operations/flush_keep.withhold_secrets).  Lost entries and unreadable
    files keep their HEAD version in the commit (`keep_losses`).  INDEX.md is rebuilt
    (dreaming scopes) without any new file that is withheld, so it never names a file
    the commit lacks, and with every file the commit keeps.  `snap` becomes the snapshot of
    the commit (the checks see what is committed).
    """
    memo: dict[Path, object] = {}
    if isinstance(snap, str):  # the work tree is committed as it is, with a fresh INDEX.md
        text, error = _index(repo, today, None, KeptAtFlush(), (), memo) if scope.covers_dreaming else (None, None)
        return FlushPlan(findings=(snap, *filter(None, [error])), index=text, caches=MappingProxyType(memo))
    findings = []
    if problem := baseline.unreadable(snap):
        findings.append(problem)  # said once; the checks run as if there were no baseline
    secrets, new_secrets = baseline.withheld_secrets(snap, no_secrets.validate(snap))
    too_large = sorted(snap.oversized)  # unread, so unchecked: withheld like a secret
    findings += [str(finding) for finding in [*new_secrets, *budget.too_large(snap)]]
    withheld = withhold_secrets(snap, secrets)
    snap.leave_out([*withheld.whole, *too_large])
    for path, committed in withheld.contents.items():
        snap.commit_as(path, committed)
    unreadable = dict(snap.unreadable)
    kept = keep_losses(snap, repo.root)
    for path, committed in withheld.contents.items():  # keep_losses read the same text when it kept an entry
        if path not in kept.contents and path not in kept.as_head:
            kept.contents[path] = committed.encode("utf-8")
    notes = [unreadable_line(path, *unreadable[path]) for path in kept.unreadable]
    notes += [loss_line(kept)] if kept.lost else []
    notes += [files_line(kept)] if kept.files else []
    held_back = sorted({finding.path for finding in secrets} | set(too_large))
    text, error = None, None
    if scope.covers_dreaming:
        whole = [path for path in held_back if path not in withheld.contents]
        text, error = _index(repo, today, snap, kept, whole, memo, partial=withheld.contents)
        if error and not any(error.startswith(f"{path}:") for path in kept.unreadable):  # said once
            findings.append(error)
    hooks = [hook for hook in CHECKS if hook != no_secrets.ID and (scope.covers_dreaming or hook != index_fresh.ID)]
    for finding in run_checks(snap, hooks):
        if not (error and error.startswith(f"{finding.path}:{finding.line}: ")):  # said once
            findings.append(str(finding))
    return FlushPlan(
        findings=tuple(findings), notes=tuple(notes), withheld=tuple(held_back),
        withheld_sections=tuple(withheld.sections), too_large=tuple(too_large), lost=MappingProxyType(kept.lost),
        unreadable=tuple(kept.unreadable), kept_files=tuple(kept.files), contents=MappingProxyType(kept.contents),
        as_head=tuple(kept.as_head), index=text, caches=MappingProxyType(memo),
    )


def _index(
    repo: MemoryRepo, today: dt.date, snap: Snapshot | None, kept: KeptAtFlush, whole: list[str] | tuple[()],
    memo: dict[Path, object], partial: Mapping[str, str] = NOTHING,
) -> tuple[str | None, str | None]:
    """INDEX.md's new text for the work tree (None: unchanged) and why it could not be rebuilt (None: it
    could); what the commit holds for it goes into `kept` and `snap`.  Nothing derived from a withheld
    section is committed: the index reads the committed text (`whole`: files withheld whole, `partial`:
    the committed text of those withheld in part)."""
    added = [repo.memory_rel(path) or path for path in whole if snap and path not in snap.base]
    index = repo.repo_path(names.INDEX)
    base = snap.base if snap else {}
    withheld_texts = {repo.memory_rel(path) or path: base[path] for path in whole if path in base}
    withheld_texts.update({repo.memory_rel(path) or path: snap.new[path] for path in partial if snap})
    # The scan's blob ids spare the rebuild a stat per unchanged file (store/memory_index.py).
    blobs = {repo.memory_rel(path) or path: blob for path, blob in snap.blobs.items()} if snap else {}
    text, error = None, None
    try:
        text = index_change(repo, today, exclude=added, instead=withheld_texts, blobs=blobs, memo=memo)
    except InvalidUtf8 as failure:  # saving memory matters more than a fresh index
        error = str(failure)
    if snap is None:
        return text, error
    if text is not None:
        snap.set_new(index, text)
    committed = committed_index(repo, snap, kept, today, added, withheld_texts, memo)
    if committed is not None and committed == snap.base.get(index):
        kept.as_head.append(index)  # the commit's INDEX.md is HEAD's: nothing to commit for it
        snap.leave_out([index])
    elif committed is not None and committed != snap.new.get(index):
        kept.contents[index] = committed.encode("utf-8")
        snap.set_new(index, committed)
    return text, error
