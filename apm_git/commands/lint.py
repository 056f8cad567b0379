"""`apm-git lint`: every check of docs/design.md 5 in one process."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from apm_git.checks import baseline
from apm_git.checks.run import run_checks
from apm_git.errors import UsageError
from apm_git.model.snapshot import Finding
from apm_git.operations.gather import gather, resolve_sides
from apm_git.operations.lint_merges import across_merges, merge_commits
from apm_git.store.repo import MemoryRepo


@dataclasses.dataclass
class LintResult:
    base: str
    new: str
    checked: list[str]
    findings: list[Finding]
    known: list[Finding] = dataclasses.field(default_factory=list)  # findings the baseline knows
    merges: list[str] = dataclasses.field(default_factory=list)  # merge commits checked against each parent


def lint(
    repo: MemoryRepo,
    paths: Sequence[str] = (),
    *,
    from_ref: str | None = None,
    to_ref: str | None = None,
    all_files: bool = False,
    baseline_too: bool = False,
) -> LintResult:
    """Check the changes from the base to the new side; per-file checks on `paths`, all files, or the changed ones.

    `findings` are those the findings baseline does not know; `baseline_too` puts the known ones there too.
    A range (`from_ref` given) also checks each merge commit in it against each of its parents.
    """
    sides = resolve_sides(repo.root, from_ref=from_ref, to_ref=to_ref)
    snap = gather(repo, sides, targets=list(paths) if paths else None, all_files=all_files)
    for path in paths:
        if not any(name == path or name.startswith(path.rstrip("/") + "/") for name in snap.targets):
            raise UsageError(
                f"{path}: no such memory file in {sides.new_name}; name a file under {repo.memory_prefix}/",
            )
    everything = run_checks(snap, baseline_too=True)
    merges = merge_commits(repo, sides)
    if merges:
        everything += across_merges(repo, merges, snap)
    new, known = baseline.split(snap, everything)
    return LintResult(sides.base_name, sides.new_name, snap.targets, everything if baseline_too else new, known,
                      [merge for merge, _ in merges])
