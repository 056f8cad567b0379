"""Run the checks of docs/design.md 5 on a snapshot: those the catalog lists, most harmful first."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from apm_git.checks import baseline
from apm_git.checks.catalog import CHECKS as DECLARED
from apm_git.model.snapshot import Finding, Snapshot
from apm_git.model.vocabulary import CheckId

Check = Callable[[Snapshot], Iterable[Finding]]
CHECKS: dict[CheckId, Check] = {check.id: check.validate for check in DECLARED}
PER_FILE = frozenset(check.id for check in DECLARED if check.per_file)  # the others look at the whole snapshot


def run_checks(snap: Snapshot, hooks: Iterable[CheckId] = CHECKS, *, baseline_too: bool = False) -> list[Finding]:
    """Every finding of the chosen checks that the findings baseline does not know (all of them with
    `baseline_too`), sorted by path and line, each once."""
    findings: set[Finding] = set()
    for hook in hooks:
        findings.update(CHECKS[hook](snap))
    own = baseline.path_in(snap)  # the baseline holds hashes, which look random: never a finding
    found = sorted(finding for finding in findings if finding.path != own)
    return found if baseline_too else baseline.split(snap, found)[0]
