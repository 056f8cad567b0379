"""`apm-git allow-secret`: mark suspected secrets as false positives in the baseline (docs/baseline.md)."""
from __future__ import annotations

from apm_git.checks import no_secrets
from apm_git.errors import UsageError
from apm_git.model.snapshot import Finding
from apm_git.operations.baseline import BaselineResult, save, work_tree
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import write_lock


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
        return save(repo, snap, chosen, false_positive=True)
