"""`apm-git baseline` and `apm-git allow-secret`: write the findings baseline (docs/baseline.md)."""
from __future__ import annotations

import dataclasses

from apm_git.checks import baseline, no_secrets
from apm_git.checks.run import run_checks
from apm_git.checks.snapshot import Finding, Snapshot
from apm_git.errors import UsageError
from apm_git.model import names
from apm_git.operations.gather import WORKTREE, Sides, gather
from apm_git.store.lock import write_lock
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


def record_all(repo: MemoryRepo) -> BaselineResult:
    """`apm-git baseline`: `record`, under the write lock."""
    with write_lock(repo):
        return record(repo)


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


def allow_secret(repo: MemoryRepo, spots: list[tuple[str, int]]) -> BaselineResult:
    """Mark the suspected secrets at these (repo-relative path, line) spots as false positives."""
    for path, _ in spots:
        if repo.memory_rel(path) is None or not (repo.root / path).is_file():
            raise UsageError(f"{path}: no such memory file; name a file under {repo.memory_prefix}/, as lint prints it")
    with write_lock(repo):
        snap = work_tree(repo, sorted({path for path, _ in spots}))
        found = list(no_secrets.validate(snap))
        chosen: list[Finding] = []
        for path, line in spots:
            here = [finding for finding in found if (finding.path, finding.line) == (path, line)]
            if not here:
                raise UsageError(
                    f"{path}:{line}: no suspected secret on that line; `apm-git lint --all --baseline-too` lists them",
                )
            chosen += here
        return _save(repo, snap, chosen, false_positive=True)


def _save(repo: MemoryRepo, snap: Snapshot, findings: list[Finding], *, false_positive: bool) -> BaselineResult:
    known = baseline.of(snap)
    before = {str(finding) for finding in findings if _recorded(known, snap, finding, false_positive)}
    known.add(findings, snap.new, false_positive=false_positive)
    repo.write(names.BASELINE, known.render())
    added = [str(finding) for finding in findings if str(finding) not in before]
    return BaselineResult(repo.repo_path(names.BASELINE), added, len(known.known))


def _recorded(known: baseline.Baseline, snap: Snapshot, finding: Finding, false_positive: bool) -> bool:
    match = known.match(finding, snap.new.get(finding.path))
    return match is not None and (match.false_positive or not false_positive)
