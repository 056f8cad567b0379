"""`apm-git baseline`: the findings that hold now are recorded as known, and lint stops reporting them."""
from __future__ import annotations

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke


def test_baseline_records_what_lint_reports_and_lint_then_passes(repo: MemoryRepo, run_cli: Invoke) -> None:
    budget = repo.config.budget_for("people.md")
    assert budget is not None
    (repo.memory / "people.md").write_text("# People\n\n" + "".join(f"- note {n}\n" for n in range(budget + 5)))
    at = ("--repo", str(repo.root))
    assert run_cli(*at, "lint", "--all").exit_code == 1
    ran = run_cli(*at, "baseline")
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout.startswith("apm-git: memory/apm-baseline.json: 1 finding(s) recorded, 1 known in all"), ran.stdout
    assert (repo.memory / "apm-baseline.json").is_file()
    assert run_cli(*at, "lint", "--all").exit_code == 0
    again = run_cli(*at, "baseline")
    assert again.exit_code == 0 and "0 finding(s) recorded, 1 known in all" in again.stdout, again.stdout
