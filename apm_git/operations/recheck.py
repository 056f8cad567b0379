"""Check a commit that was built but has not landed: what it would change, through the checks `lint` runs.

A person's change from the page or the command line (edit, a committed hit, restore) and an accepted
proposal are refused when their commit would lose an entry, break the record format or an append-only
file, leave INDEX.md stale, or make a file that is over its line budget longer.  Findings that already
held at the base are not the change's doing and refuse nothing: only what the commit brings in does.
"""
from __future__ import annotations

import re

from apm_git.checks.run import run_checks
from apm_git.errors import FindingsError
from apm_git.model.snapshot import Finding
from apm_git.operations.gather import Sides, gather
from apm_git.store.repo import MemoryRepo

_LINES = re.compile(r"^(\d+)/(\d+) lines")
BUDGET = "apm-budget"


def introduced(repo: MemoryRepo, base: str, built: str, label: str) -> list[Finding]:
    """The findings of `base..built` that did not hold at `base` already (a budget finding: that made a file
    over its budget longer)."""
    snap = gather(repo, Sides(base, built, "HEAD", label))
    found = run_checks(snap)
    if not found:
        return []
    before = run_checks(gather(repo, Sides(base, base, "HEAD", "HEAD"), targets=sorted({f.path for f in found})))
    held = {(finding.path, finding.hook, finding.message) for finding in before}
    lines_before = {finding.path: _line_count(finding) for finding in before if finding.hook == BUDGET}
    new = []
    for finding in found:
        if finding.hook == BUDGET:
            if finding.path in lines_before and _line_count(finding) <= lines_before[finding.path]:
                continue
        elif (finding.path, finding.hook, finding.message) in held:
            continue
        new.append(finding)
    return new


def refuse_findings(repo: MemoryRepo, base: str, built: str, what: str) -> None:
    """Raise (exit 1, nothing changed) with the first finding `built` brings in, as `lint` prints it."""
    found = introduced(repo, base, built, what)
    if found:
        first = found[0]
        more = f" (and {len(found) - 1} more finding(s))" if len(found) > 1 else ""
        raise FindingsError(f"{what} refused, nothing was changed: {first.path}:{first.line}: {first.hook}: "
                            f"{first.message}{more}")


def _line_count(finding: Finding) -> int:
    match = _LINES.match(finding.message)
    return int(match[1]) if match else 0
