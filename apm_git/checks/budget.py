"""apm-budget: a memory file is over its line budget (`budgets` in apm.yaml)."""
from __future__ import annotations

from collections.abc import Iterator

from apm_git.checks.snapshot import Finding, Snapshot
from apm_git.model.records import count_lines

ID = "apm-budget"


def validate(snap: Snapshot) -> Iterator[Finding]:
    for path in snap.targets:
        rel = snap.rel(path)
        text = snap.new.get(path)
        budget = None if rel is None else snap.config.budget_for(rel)
        if text is None or budget is None:
            continue
        lines = count_lines(text)
        if lines > budget:
            yield Finding(
                path, budget + 1, ID,
                f"{lines}/{budget} lines: over its line budget by {lines - budget}; archive or move entries "
                "(`apm-git rem`), or raise its budget in apm.yaml",
            )
