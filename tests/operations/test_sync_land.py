"""sync's merge (operations/sync_land.py) and the settings of the merged apm.yaml: the budgets the two
sides agreed on decide what the merge archives."""
from __future__ import annotations

import json
from pathlib import Path

from tests.commands.test_sync import NOW, over_budget_by_a_merge
from tests.conftest import Invoke
from tests.sync_helpers import bare_remote, git


def budget_changed_by_the_remote(run_cli: Invoke, tmp_path: Path, budget: int) -> Path:
    """decisions.md with a budget of 30 lines; the laptop sets it to `budget` in apm.yaml and promotes two
    decisions (25 lines), the server two others (25 lines), the laptop pushes first. The server, whose
    merge holds 35 lines and the laptop's budget."""
    return over_budget_by_a_merge(run_cli, tmp_path, str(bare_remote(tmp_path)), laptop_sets=budget)[1]


def test_a_budget_the_remote_raised_decides_the_merge_nothing_is_archived(run_cli: Invoke, tmp_path: Path) -> None:
    server = budget_changed_by_the_remote(run_cli, tmp_path, 40)  # 35 lines: over the old 30, within the new 40
    ran = run_cli("--repo", str(server), "--json", "sync", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    (step,) = data["integrated"]
    assert (step["kind"], step["archived"], data["notes"]) == ("merge", [], [])
    assert "  decisions.md: 40\n" in git(server, "show", "HEAD:apm.yaml")
    decisions = git(server, "show", "HEAD:memory/decisions.md")
    assert len(decisions.splitlines()) == 35 and "An old choice" in decisions
    assert "Apm-Archive" not in git(server, "log", "-1", "--format=%B")
    assert not (server / "memory" / "archive" / "2026-05.md").exists()
    lint = run_cli("--repo", str(server), "--json", "lint", "--from-ref", "HEAD^", "--to-ref", "HEAD")
    assert lint.exit_code == 0 and json.loads(lint.stdout)["findings"] == [], lint.stdout


def test_a_budget_the_remote_lowered_decides_the_merge_archived_down_to_it(run_cli: Invoke, tmp_path: Path) -> None:
    server = budget_changed_by_the_remote(run_cli, tmp_path, 26)  # 35 lines: two entries go (the old 30: one)
    ran = run_cli("--repo", str(server), "--json", "sync", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    (step,) = json.loads(ran.stdout)["integrated"]
    assert len(step["archived"]) == 2
    assert step["archived"][0] == "2026-01-10-an-old-choice memory/decisions.md -> memory/archive/2026-05.md (score 0)"
    decisions = git(server, "show", "HEAD:memory/decisions.md")
    assert len(decisions.splitlines()) == 25 and "An old choice" not in decisions
    assert git(server, "log", "-1", "--format=%B").count("Apm-Archive: ") == 2
    lint = run_cli("--repo", str(server), "--json", "lint", "--from-ref", "HEAD^", "--to-ref", "HEAD")
    assert lint.exit_code == 0 and json.loads(lint.stdout)["findings"] == [], lint.stdout


def test_a_merged_apm_yaml_that_does_not_read_leaves_the_local_budgets_and_says_so(
    run_cli: Invoke, tmp_path: Path,
) -> None:
    server = budget_changed_by_the_remote(run_cli, tmp_path, 30)
    laptop = tmp_path / "laptop"
    (laptop / "apm.yaml").write_text("budgets: [1, 2]\n")  # pushed with git itself: apm-git would refuse it
    git(laptop, "commit", "-qam", "a broken apm.yaml", "--no-verify")
    git(laptop, "push", "-q", "origin", "main")
    ran = run_cli("--repo", str(server), "--json", "sync", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    (note,) = data["notes"]
    assert note.startswith("the merged apm.yaml does not read (apm.yaml:1: budgets must map file names")
    assert "the merge used the budgets and routing of the local apm.yaml" in note
    assert f"apm-git: WARNING: {note}" in ran.stderr
    (step,) = data["integrated"]
    assert step["notes"] == [note]
    assert [line.split()[0] for line in step["archived"]] == ["2026-01-10-an-old-choice"]  # down to the local 30
    assert len(git(server, "show", "HEAD:memory/decisions.md").splitlines()) == 30
