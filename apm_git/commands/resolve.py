"""`apm-git resolve ENTRY-ID --keep this|other|both [--with OTHER-ID]`: settle a conflict in one commit.

A sync merge keeps both versions of an entry whose body both sides changed, linked by `Conflicts:`
(docs/merge.md).  Deleting one by hand is a loss that apm-no-loss refuses; this command keeps the
version asked for and records the other as superseded (archived with `Superseded-by:`) or merged
into it, so the commit passes every check.  The planning is apm_git/dreaming/settle.py (pure); the
run is a consolidation (operations/consolidation.run): under the lock, the user's uncommitted memory
flushed first, one commit whose trailers say what moved, then the work tree.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection
from typing import ClassVar, Literal

from apm_git.dreaming.execute import Changes
from apm_git.dreaming.settle import Settled, settle
from apm_git.errors import ApmGitError, UsageError
from apm_git.model import dated, names
from apm_git.model.entry_id import is_entry_id
from apm_git.model.snapshot import RECORD_KINDS, file_kind
from apm_git.model.vocabulary import Keep
from apm_git.operations.consolidation import Planned, StageResult, run
from apm_git.store.repo import MemoryRepo


@dataclasses.dataclass
class ResolveResult:
    settled: Settled
    commit: str | None
    flushed: str | None  # the flush that committed the user's changes first
    trailers: list[tuple[str, str]]


@dataclasses.dataclass
class Resolve:
    """The stage that settles one conflict (see the module's docstring)."""

    entry_id: str
    keep: Keep
    other_id: str | None = None
    settled: Settled | None = None
    name: ClassVar[Literal["resolve"]] = "resolve"
    leaves_out: ClassVar[bool] = False  # a version in a withheld file stops the run (`commit_stage` names it)

    def plan(self, repo: MemoryRepo, today: dt.date, left: Collection[str]) -> Planned:
        month = dated.archive_file(today)
        settled = settle(live_record_files(repo), self.entry_id, self.keep, self.other_id, today, repo.config,
                         repo.read(month))
        self.settled = settled
        what = {"superseded": f"{settled.gone} superseded", "merged": f"{settled.gone} merged into it",
                None: "the other version was gone already"}[settled.how]
        subject = f"resolve {settled.entry} (kept {settled.keep}: {settled.kept}; {what})"
        body = (f"Settled the conflict between {settled.entry} and {settled.other}, kept from a merge; "
                f"`apm-git resolve {settled.entry} --keep {settled.keep}`.")
        result = StageResult(self.name, subject, {}, settled.trailers)
        return Planned(result, body, today, lambda: Changes(settled.writes, [], settled.read))


def resolve(repo: MemoryRepo, entry_id: str, keep: Keep, other_id: str | None = None) -> ResolveResult:
    for given in (entry_id, other_id):
        if given is not None and not is_entry_id(given):
            raise UsageError(f"{given!r} is not an entry id; ids look like 2026-04-06-redis-cache-strategy "
                             "(`apm-git status` lists the entries in conflict)")
    stage = Resolve(entry_id, keep, other_id)
    result = run(repo, stage)
    assert stage.settled is not None
    return ResolveResult(stage.settled, result.commit, result.flushed,
                         [*result.trailers, ("Apm-Trigger", "resolve"), ("Apm-Scope", "all")])


def live_record_files(repo: MemoryRepo) -> dict[str, str]:
    """Memory-relative path -> text of every live record file (journals, category files, groups' experience);
    one that cannot be read is left out (lint and status name it)."""
    texts = {}
    for rel in repo.markdown_files():
        if rel == names.INDEX or rel.startswith(f"{names.ARCHIVE}/"):
            continue
        if file_kind(rel, repo.config) not in RECORD_KINDS:
            continue
        try:
            text = repo.read(rel)
        except ApmGitError:
            continue
        if text and "## [" in text:
            texts[rel] = text
    return texts
