"""sync's merge (operations/sync_land.py) and the settings of the merged apm.yaml: the budgets the two
sides agreed on decide what the merge archives; a journal the merge puts over its budget is reported."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_json_schemas import validator
from tests.commands.test_sync import NOW, add, over_budget_by_a_merge, sync
from tests.conftest import Invoke
from tests.sync_helpers import bare_remote, clone, first_clone, git


def budget_changed_by_the_remote(run_cli: Invoke, tmp_path: Path, budget: int) -> Path:
    """decisions.md with a budget of 30 lines; the laptop sets it to `budget` in apm.yaml and promotes two
    decisions (25 lines), the server two others (25 lines), the laptop pushes first. The server, whose
    merge holds 35 lines and the laptop's budget."""
    return over_budget_by_a_merge(run_cli, tmp_path, str(bare_remote(tmp_path)), laptop_sets=budget)[1]


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
    assert not list(validator("sync").iter_errors(data))
    assert [line.split()[0] for line in step["archived"]] == ["2026-01-10-an-old-choice"]  # down to the local 30
    assert len(git(server, "show", "HEAD:memory/decisions.md").splitlines()) == 30


def set_budget(root: Path, key: str, old: int, new: int) -> None:
    config = root / "apm.yaml"
    text = config.read_text()
    assert f"  {key}: {old}\n" in text
    config.write_text(text.replace(f"  {key}: {old}\n", f"  {key}: {new}\n"))


def journals_on_both_sides(run_cli: Invoke, tmp_path: Path, each: int) -> tuple[Path, str]:
    """A journal budget of 20 lines; the laptop and the server each write `each` items on the same day, the
    laptop pushes first. The server, and the journal's repo-relative path."""
    url = str(bare_remote(tmp_path))
    laptop = first_clone(tmp_path / "laptop", url)
    set_budget(laptop, "journal", 100, 20)
    assert sync(run_cli, laptop)[0] == 0
    server = clone(tmp_path / "server", url)
    journal = "memory/2026-05-04.md"
    for root, side in ((laptop, "laptop"), (server, "server")):
        for number in range(each):
            add(run_cli, root, f"{side} lesson {number}")
        assert len((root / journal).read_text().splitlines()) <= 20
    assert sync(run_cli, laptop)[0] == 0
    return server, journal


@pytest.mark.slow
def test_a_merge_that_puts_a_journal_over_its_budget_keeps_every_item_and_says_so(
    run_cli: Invoke, tmp_path: Path,
) -> None:
    server, journal = journals_on_both_sides(run_cli, tmp_path, 3)
    ran = run_cli("--repo", str(server), "--json", "sync", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    text = git(server, "show", f"HEAD:{journal}")
    lines = len(text.splitlines())
    assert lines > 20
    for side in ("laptop", "server"):
        for number in range(3):
            assert f"{side} lesson {number}" in text  # no merge step shortens a journal
    data = json.loads(ran.stdout)
    expected = {"path": journal, "lines": lines, "budget": 20}
    assert data["journals_over_budget"] == [expected]
    assert data["integrated"][0]["journals_over_budget"] == [expected]
    assert not list(validator("sync").iter_errors(data))
    assert data["integrated"][0]["archived"] == []
    (warning,) = [line for line in ran.stderr.splitlines() if "over its line budget" in line]
    assert warning.startswith(f"apm-git: WARNING: {journal} is over its line budget after this merge ({lines}/20 "
                              "lines): ")
    assert "`apm-git deep-sleep`" in warning and warning.endswith("(`budgets` -> `journal` in apm.yaml)")
    # Lint finds it, and says what to do: deep sleep, or a journal budget sized for the writers; not REM.
    lint = run_cli("--repo", str(server), "--json", "lint", "--from-ref", "HEAD^", "--to-ref", "HEAD")
    (finding,) = json.loads(lint.stdout)["findings"]
    assert finding["hook"] == "apm-budget" and finding["path"] == journal, finding
    assert "`budgets` -> `journal` in apm.yaml" in finding["message"] and "apm-git rem" not in finding["message"]


def test_a_journal_within_its_budget_after_the_merge_is_not_reported(run_cli: Invoke, tmp_path: Path) -> None:
    server, journal = journals_on_both_sides(run_cli, tmp_path, 1)
    ran = run_cli("--repo", str(server), "--json", "sync", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    assert json.loads(ran.stdout)["journals_over_budget"] == [] and "over its line budget" not in ran.stderr
    assert len(git(server, "show", f"HEAD:{journal}").splitlines()) <= 20


@pytest.mark.slow
def test_a_journal_one_side_had_over_its_budget_alone_is_not_the_merges_doing(
    run_cli: Invoke, tmp_path: Path,
) -> None:
    url = str(bare_remote(tmp_path))
    laptop = first_clone(tmp_path / "laptop", url)
    set_budget(laptop, "journal", 100, 20)
    assert sync(run_cli, laptop)[0] == 0
    server = clone(tmp_path / "server", url)
    for number in range(6):  # a busy day on the laptop: its own flush lets the journal pass its budget
        add(run_cli, laptop, f"laptop lesson {number}")
    assert sync(run_cli, laptop)[0] == 0
    (server / "memory" / "people.md").write_text((server / "memory" / "people.md").read_text() + "\nA note.\n")
    ran = run_cli("--repo", str(server), "--json", "sync", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["integrated"][0]["kind"] == "merge"
    assert data["journals_over_budget"] == [] and "over its line budget" not in ran.stderr
