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
