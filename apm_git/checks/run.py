"""Run the checks of DESIGN 5 on a snapshot, in the order of the hook manifest."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from apm_git.checks import append_only, budget, index_fresh, no_loss, no_secrets, record_format, state_json
from apm_git.checks.manifest import HOOK_IDS
from apm_git.checks.snapshot import Finding, Snapshot

Check = Callable[[Snapshot], Iterable[Finding]]
CHECKS: dict[str, Check] = {
    module.ID: module.validate
    for module in (budget, record_format, append_only, no_loss, index_fresh, state_json, no_secrets)
}


def run_checks(snap: Snapshot, hooks: Iterable[str] = HOOK_IDS) -> list[Finding]:
    """Every finding of the chosen checks, sorted by path and line, each once."""
    findings: set[Finding] = set()
    for hook in hooks:
        findings.update(CHECKS[hook](snap))
    return sorted(findings)
