"""Done when (issue 12): eight clones write, hit, flush, dream and sync at random, interleaved, against
a real `git daemon` on loopback (and a bare repository by path); then all hold the same memory and
nothing written is lost."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from sync_writers import JOURNAL_BUDGET, Outcome, by_check, counted, simulate

from tests.sync_helpers import git


def check(outcome: Outcome) -> None:
    audit, tally = outcome.audit, outcome.tally
    assert tally.unexpected == []
    assert audit.written > 0 and tally.sync_seconds
    assert audit.identical
    assert audit.lost == [] and audit.history_missing == []
    assert audit.markers == [] and audit.fsck_failed == [] and audit.dirty == []
    # Every commit passes lint, with no finding of any kind: the range (merges against each parent), and
    # each commit alone against its parent(s), budgets included (sync archives what a merge put over one).
    assert (audit.lint_exit, audit.commit_findings) == (0, []), audit.lint_output + "\n".join(audit.commit_findings)
    assert audit.commits > audit.merges
    assert audit.merges > 0  # the writers did diverge, and were merged


@pytest.mark.slow
def test_eight_writers_through_git_daemon_lose_nothing(tmp_path: Path) -> None:
    check(simulate(tmp_path, writers=8, rounds=10, mode="one-branch", remote="daemon", seed=7))


@pytest.mark.slow
def test_one_branch_per_agent_by_path_loses_nothing(tmp_path: Path) -> None:
    check(simulate(tmp_path, writers=4, rounds=8, mode="per-agent", remote="path", seed=3))


def test_findings_are_counted_by_check_with_journal_budgets_apart() -> None:
    checks = by_check([("memory/2026-05-04.md", "apm-budget"), ("memory/decisions.md", "apm-budget"),
                       ("memory/2026-05-05.md", "apm-budget"), ("memory/2026-05-05.md", "apm-record-format")])
    assert checks == {JOURNAL_BUDGET: 2, "apm-budget": 1, "apm-record-format": 1}
    assert counted(checks) == "apm-budget (journal) 2, apm-budget 1, apm-record-format 1"
    assert counted({}) == "none"


@pytest.mark.slow
def test_a_journal_budget_is_committed_before_the_clones_and_its_findings_counted_apart(tmp_path: Path) -> None:
    outcome = simulate(tmp_path, writers=3, rounds=6, mode="one-branch", remote="path", seed=5, journal_budget=12,
                       check_history=False)
    audit = outcome.audit
    assert outcome.journal_budget == 12 and audit.lost == [] and audit.identical
    clone = tmp_path / "w0"
    first = git(clone, "rev-list", "--reverse", "HEAD").split()[1]  # the commit after `apm-git init`'s
    assert "  journal: 12\n" in git(clone, "show", f"{first}:apm.yaml")
    assert git(clone, "show", "--format=", "--name-only", first).split() == ["apm.yaml", "memory/flush-state.json"]
    assert audit.longest_journal > 0
    assert sum(audit.commit_by_check.values()) == len(audit.commit_findings)
    assert (audit.longest_journal > 12) == (audit.commit_by_check.get(JOURNAL_BUDGET, 0) > 0)
