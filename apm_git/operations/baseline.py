"""The findings baseline written (docs/baseline.md): the work tree's snapshot, recording every finding that
holds, marking false positives.  `baseline`, `allow-secret`, `init` and `status` use it."""
from __future__ import annotations

import dataclasses

from apm_git.checks import baseline
from apm_git.checks.run import run_checks
from apm_git.model import names
from apm_git.model.snapshot import Finding, Snapshot
from apm_git.operations.gather import WORKTREE, Sides, gather
from apm_git.store.repo import MemoryRepo


@dataclasses.dataclass
class BaselineResult:
    path: str  # the baseline file, repo-relative
    added: list[str]  # the findings recorded by this run (`path:line: hook: message`)
    total: int  # findings the baseline knows now


def work_tree(repo: MemoryRepo, targets: list[str] | None = None) -> Snapshot:
    """The memory as it is on disk, compared with HEAD; every file, or `targets`."""
    from apm_git import git

    sides = Sides(git.head(repo.root), WORKTREE, "HEAD", "the work tree")
    return gather(repo, sides, targets=targets, all_files=targets is None)


def record(repo: MemoryRepo) -> BaselineResult:
    """Write the baseline afresh: every finding that holds in the work tree now (`lint --all --baseline-too`),
    and the false positives marked before; what no longer holds is dropped."""
    snap = work_tree(repo)
    old = baseline.of(snap)
    findings = run_checks(snap, baseline_too=True)
    added = [str(finding) for finding in findings if old.match(finding, snap.new.get(finding.path)) is None]
    fresh = baseline.Baseline([known for known in old.known if known.false_positive])
    fresh.add(findings, snap.new)
    if fresh.known or repo.exists(names.BASELINE):  # no file until there is something to record
        repo.write(names.BASELINE, fresh.render())
    return BaselineResult(repo.repo_path(names.BASELINE), added, len(fresh.known))


def save(repo: MemoryRepo, snap: Snapshot, findings: list[Finding], *, false_positive: bool) -> BaselineResult:
    """Add `findings` to the baseline (as false positives when asked) and write it."""
    known = baseline.of(snap)
    before = {str(finding) for finding in findings if _recorded(known, snap, finding, false_positive)}
    known.add(findings, snap.new, false_positive=false_positive)
    repo.write(names.BASELINE, known.render())
    added = [str(finding) for finding in findings if str(finding) not in before]
    return BaselineResult(repo.repo_path(names.BASELINE), added, len(known.known))


def _recorded(known: baseline.Baseline, snap: Snapshot, finding: Finding, false_positive: bool) -> bool:
    match = known.match(finding, snap.new.get(finding.path))
    return match is not None and (match.false_positive or not false_positive)
