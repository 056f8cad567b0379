"""Lint across merges: each merge commit of a range is checked against each of its parents.

The comparison of a range (base..tip) sees only what the base held. An entry that one
branch added inside the range and a merge then dropped was never at the base, so that
comparison cannot see it go. So every merge commit in the range is compared with each of
its parents, with the two checks that compare sides: `apm-no-loss` (every entry of the
parent is, in the merge, live, archived, named in a `Merged:` or `Supersedes:` field, or
forgotten by an `Apm-Forget` trailer in parent..merge) and `apm-append-only`. The checks
of one side's content (budgets, record format, index, state, secrets) hold for the tip,
which the range's own comparison checks.
"""
from __future__ import annotations

from apm_git import git
from apm_git.checks import append_only, no_loss
from apm_git.checks.run import run_checks
from apm_git.model.snapshot import Finding, Snapshot
from apm_git.model.vocabulary import CheckId
from apm_git.operations.gather import INDEX, WORKTREE, Sides, gather
from apm_git.store.repo import MemoryRepo

CHECKS: tuple[CheckId, ...] = (append_only.ID, no_loss.ID)


def merge_commits(repo: MemoryRepo, sides: Sides) -> list[tuple[str, list[str]]]:
    """The merges between the base and the new side (HEAD when that is the index or the work tree);
    none, and no git process, when the base is HEAD (an ordinary commit's hook, a flush)."""
    if sides.base is None:
        return []
    if sides.new in (INDEX, WORKTREE):
        if sides.base_name == "HEAD":
            return []
        tip = git.head(repo.root)
        if tip is None:
            return []
    else:
        tip = sides.new
    return [] if tip == sides.base else git.merges(repo.root, sides.base, tip)


def across_merges(repo: MemoryRepo, merges: list[tuple[str, list[str]]], net: Snapshot) -> list[Finding]:
    """The findings of each merge against each parent, each loss said once: an entry the range's own
    comparison (`net`) already reports lost, or an earlier merge did, is not reported again."""
    said = set(no_loss.lost(net))
    said_lines = {(finding.path, finding.message) for finding in run_checks(net, [append_only.ID])}
    found: list[Finding] = []
    for merge, parents in merges:
        for number, parent in enumerate(parents, start=1):
            snap = gather(repo, Sides(parent, merge, parent[:12], merge[:12]), targets=())
            lost = no_loss.lost(snap)
            again = {place for entry, place in lost.items() if entry in said}
            said.update(lost)
            where = f"merge {merge[:12]} against its parent {number} ({parent[:12]})"
            for finding in run_checks(snap, CHECKS):
                if finding.hook == no_loss.ID and (finding.path, finding.line) in again:
                    continue
                if finding.hook == append_only.ID:
                    if (finding.path, finding.message) in said_lines:
                        continue
                    said_lines.add((finding.path, finding.message))
                found.append(finding._replace(message=f"{where}: {finding.message}"))
    return found
