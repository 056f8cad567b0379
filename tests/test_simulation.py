"""Thirty days of an agent's life (benchmarks/simulate_year.py): nothing lost, budgets held, history finds all."""
from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import git

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from simulate_year import simulate


def test_thirty_days_lose_nothing_and_keep_every_budget(tmp_path: Path) -> None:
    report = simulate(tmp_path / "mem", days=30, seed=11)
    written = set(report.written)
    assert len(written) > 200  # about 8 a day, some as session notes
    assert report.lost == []
    assert report.history_checked == len(written) and report.history_missing == []
    assert report.over_budget == [] and report.budgets
    assert report.refused == []
    # Every kind of consolidation happened along the way.
    log = git(report.root, "log", "--format=%s%n%(trailers:only,unfold)")
    for trailer in ("Apm-Promote:", "Apm-Archive:", "Apm-Supersede:", "Apm-Move:", "Apm-Proven:"):
        assert trailer in log
    assert written & report.archived and written & report.merged and report.proven
    assert any(path.is_file() for path in (report.root / "memory/archive/journals").iterdir())
    assert git(report.root, "status", "--porcelain") == ""
