"""Done when (issue 12): eight clones write, hit, flush, dream and sync at random, interleaved, against
a real `git daemon` on loopback (and a bare repository by path); then all hold the same memory and
nothing written is lost."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from sync_writers import Outcome, simulate


def check(outcome: Outcome) -> None:
    audit, tally = outcome.audit, outcome.tally
    assert tally.unexpected == []
    assert audit.written > 0 and tally.sync_seconds
    assert audit.identical
    assert audit.lost == [] and audit.history_missing == []
    assert audit.markers == [] and audit.fsck_failed == [] and audit.dirty == []
    # A merge may put a category file over its line budget (both sides promoted into it): a finding for
    # the next REM, not a loss.  Anything else lint finds fails the test.
    findings = [line for line in audit.lint_output.splitlines() if not line.startswith("apm-git lint:")]
    assert all(": apm-budget: " in line for line in findings), audit.lint_output
    assert audit.lint_exit == (1 if findings else 0), audit.lint_output
    assert audit.merges > 0  # the writers did diverge, and were merged


@pytest.mark.slow
def test_eight_writers_through_git_daemon_lose_nothing(tmp_path: Path) -> None:
    check(simulate(tmp_path, writers=8, rounds=10, mode="one-branch", remote="daemon", seed=7))


@pytest.mark.slow
def test_one_branch_per_agent_by_path_loses_nothing(tmp_path: Path) -> None:
    check(simulate(tmp_path, writers=4, rounds=8, mode="per-agent", remote="path", seed=3))
