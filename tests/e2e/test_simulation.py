"""Thirty days of an agent's life (benchmarks/simulate_year.py): nothing lost, budgets held, history finds
all, every commit passes lint."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from apm_git.store.repo import open_repo
from tests.conftest import git

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from simulate_year import lint_every_commit, simulate


@pytest.mark.slow
def test_thirty_days_lose_nothing_keep_every_budget_and_pass_lint(tmp_path: Path) -> None:
    report = simulate(tmp_path / "mem", days=30, seed=11, lint=lint_every_commit)
    written = set(report.written)
    assert len(written) > 200  # about 8 a day, some as session notes
    assert report.lost == []
    assert report.history_checked == len(written) and report.history_missing == []
    assert report.over_budget == [] and report.budgets
    assert report.refused == []
    assert report.lint_checked and report.lint_failures == []
    assert report.commits > 40  # a flush a day, and every deep sleep and REM, each linted
    # Every kind of consolidation happened along the way.
    log = git(report.root, "log", "--format=%s%n%(trailers:only,unfold)")
    for trailer in ("Apm-Promote:", "Apm-Archive:", "Apm-Supersede:", "Apm-Move:", "Apm-Proven:"):
        assert trailer in log
    assert written & report.archived and written & report.merged and report.proven
    assert any(path.is_file() for path in (report.root / "memory/archive/journals").iterdir())
    assert git(report.root, "status", "--porcelain") == ""
    # The lint of every commit is real: a commit that breaks a record is caught.
    decisions = report.root / "memory/decisions.md"
    decisions.write_text(decisions.read_text() + "## [2026-13-45] broken\n- Body: no tags\n")
    git(report.root, "commit", "-qam", "break a record")
    sha = git(report.root, "rev-parse", "--short=12", "HEAD").strip()
    failures = lint_every_commit(open_repo(report.root))
    assert failures and all(line.startswith(sha) for line in failures)
