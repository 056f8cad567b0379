"""Consolidation as a new user meets it (issue 14): each case failed before its fix."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from apm_git.commands.flush import flush
from apm_git.commands.journal import add
from apm_git.dreaming.plan_deep_sleep import Memory, plan_deep_sleep
from apm_git.model.config import Config, DeepSleepSettings
from apm_git.model.records import parse
from apm_git.store.repo import MemoryRepo
from tests.commands.test_deep_sleep import head, snapshot
from tests.conftest import Invoke
from tests.records import memory_file, record, write

NOW = "2026-06-01T09:00:00+00:00"
OLD = "2026-03-01"


def stale(n: int, kind: str = "lesson") -> list[str]:
    return [record("2026-01-01", f"Stale {kind} {i}", kind, value="LOW", last=OLD) for i in range(n)]


def healthy(n: int, kind: str = "lesson") -> list[str]:
    return [record("2026-05-20", f"Healthy {kind} {i}", kind, last="2026-05-30", hits=1) for i in range(n)]


# --------------------------------------------------------------------------- the guard's floor


def test_one_stale_entry_of_three_is_archived_and_dream_succeeds(repo: MemoryRepo, run_cli: Invoke) -> None:
    write(repo.memory, "lessons.md", *stale(1), *healthy(2))
    flush(repo)
    ran = run_cli("--repo", str(repo.root), "dream", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    assert "rem archived 1" in ran.stdout
    assert [r.title for r in parse((repo.memory / "archive/2026-06.md").read_text()).entries] == ["Stale lesson 0"]


def test_the_floor_is_rem_guard_min_entries(repo: MemoryRepo, run_cli: Invoke) -> None:
    config = (repo.root / "apm.yaml").read_text()
    assert "guard_min_entries: 5" in config  # every default is written out
    (repo.root / "apm.yaml").write_text(config.replace("guard_min_entries: 5", "guard_min_entries: 0"))
    write(repo.memory, "lessons.md", *stale(1), *healthy(2))
    flush(repo)
    ran = run_cli("--repo", str(repo.root), "rem", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 1
    assert "rem would archive 1 of 3 live entries (33%)" in ran.stderr and "rem.guard_min_entries (0)" in ran.stderr


def test_a_run_past_both_the_share_and_the_floor_is_refused(repo: MemoryRepo, run_cli: Invoke) -> None:
    write(repo.memory, "lessons.md", *stale(6), *healthy(2))
    flush(repo)
    ran = run_cli("--repo", str(repo.root), "rem", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 1 and "rem would archive 6 of 8 live entries (75%)" in ran.stderr


# --------------------------------------------------------------------------- dry runs under the guard


def test_rem_dry_run_under_the_guard_shows_the_plan_and_marks_the_refusal(repo: MemoryRepo, run_cli: Invoke) -> None:
    write(repo.memory, "lessons.md", *stale(6), *healthy(2))
    flush(repo)
    before, files = head(repo.root), snapshot(repo.root)
    text = run_cli("--repo", str(repo.root), "rem", "--dry-run", env={"APM_GIT_NOW": NOW})
    assert text.exit_code == 0, text.stderr
    assert "rem archived 6 (dry run: nothing changed); a real run would be REFUSED" in text.stdout
    assert text.stdout.count("<- the guard refuses the run for these") == 6
    assert "guard: rem would archive 6 of 8 live entries (75%)" in text.stdout and "--force" in text.stdout
    assert "--dry-run" not in text.stdout + text.stderr  # it does not send the user to what they just ran
    data = json.loads(run_cli("--repo", str(repo.root), "rem", "--dry-run", "--json",
                              env={"APM_GIT_NOW": NOW}).stdout)
    assert data["dry_run"] is True and data["refused"].startswith("rem would archive 6 of 8 live entries")
    assert len(data["plan"]["archive"]) == 6
    assert head(repo.root) == before and snapshot(repo.root) == files


def test_a_dry_run_the_guard_lets_through_says_nothing_of_it(repo: MemoryRepo, run_cli: Invoke) -> None:
    write(repo.memory, "lessons.md", *stale(1), *healthy(2))
    flush(repo)
    ran = run_cli("--repo", str(repo.root), "--json", "rem", "--dry-run", env={"APM_GIT_NOW": NOW})
    assert json.loads(ran.stdout)["refused"] is None
    forced = run_cli("--repo", str(repo.root), "rem", "--dry-run", "--force", env={"APM_GIT_NOW": NOW})
    assert "REFUSED" not in forced.stdout


def test_deep_sleep_dry_run_under_the_guard_shows_the_plan(repo: MemoryRepo, run_cli: Invoke) -> None:
    config = (repo.root / "apm.yaml").read_text().replace("lessons.md: 300", "lessons.md: 32")
    (repo.root / "apm.yaml").write_text(config)
    write(repo.memory, "lessons.md", *stale(6))  # 32 lines: full
    write(repo.memory, "2026-05-31.md", *(record("2026-05-31", f"Fresh lesson {i}", "lesson") for i in range(6)))
    before, files = head(repo.root), snapshot(repo.root)
    ran = run_cli("--repo", str(repo.root), "deep-sleep", "--dry-run", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    # six 6-line newcomers (with `Source:`) compete for 30 lines: five fit once the six stale entries go
    assert "deep-sleep promoted 5, archived 6 (dry run: nothing changed); a real run would be REFUSED" in ran.stdout
    assert "guard: deep-sleep would archive 6 of 6 live entries (100%)" in ran.stdout
    data = json.loads(run_cli("--repo", str(repo.root), "deep-sleep", "--dry-run", "--json",
                              env={"APM_GIT_NOW": NOW}).stdout)
    assert data["refused"].startswith("deep-sleep would archive 6 of 6") and len(data["plan"]["archive"]) == 6
    assert head(repo.root) == before and snapshot(repo.root) == files
    refused = run_cli("--repo", str(repo.root), "deep-sleep", env={"APM_GIT_NOW": NOW})
    assert refused.exit_code == 1 and "--force" in refused.stderr
    assert head(repo.root) == before and snapshot(repo.root) == files


# --------------------------------------------------------------------------- promotion of decisions


def test_a_decision_with_the_default_value_is_promoted(repo: MemoryRepo, run_cli: Invoke,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-06T09:00:00+00:00")
    medium = add(repo, "Use Redis for the session cache", kind="decision").entry_id  # --value defaults to MEDIUM
    low = add(repo, "Name the branch after the ticket", kind="decision", value="LOW").entry_id
    flush(repo)
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-07T09:00:00+00:00")
    ran = run_cli("--repo", str(repo.root), "deep-sleep")
    assert ran.exit_code == 0, ran.stderr
    assert f"promote: {medium} memory/2026-04-06.md -> memory/decisions.md (decision)" in ran.stdout
    assert medium in {r.id for r in parse((repo.memory / "decisions.md").read_text()).entries}
    assert [r.id for r in parse((repo.memory / "2026-04-06.md").read_text()).entries] == [low]


# --------------------------------------------------------------------------- edited plans


def plan_file(run_cli: Invoke, repo: MemoryRepo, tmp_path: Path, edit: dict[str, object]) -> Path:
    plan = json.loads(run_cli("--repo", str(repo.root), "deep-sleep", "--plan").stdout)
    plan.update(edit)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    return path


def test_a_plan_of_an_unknown_version_is_refused(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    path = plan_file(run_cli, repo, tmp_path, {"version": 99})
    before, files = head(repo.root), snapshot(repo.root)
    ran = run_cli("--repo", str(repo.root), "deep-sleep", "--apply", str(path))
    assert ran.exit_code == 1
    assert ran.stderr.strip() == (
        "apm-git: plan refused, nothing was changed: the plan has version 99; this apm-git reads version 1 only: "
        "print a fresh plan with `apm-git deep-sleep --plan`"
    )
    assert head(repo.root) == before and snapshot(repo.root) == files


def test_an_edited_archival_keeps_its_reason(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-10T09:00:00+00:00")
    write(repo.memory, "people.md", record("2026-01-01", "Old contact", "person", last="2026-01-01", value="LOW"),
          *(record("2026-04-01", f"Contact {n}", "person") for n in range(4)))
    flush(repo)
    archive = [{"id": "2026-01-01-old-contact", "from": "memory/people.md", "to": "memory/archive/2026-04.md",
                "reason": "left the company"}]
    path = plan_file(run_cli, repo, tmp_path, {"archive": archive})
    ran = run_cli("--repo", str(repo.root), "--json", "deep-sleep", "--apply", str(path), "--dry-run")
    assert ran.exit_code == 0, ran.stderr
    assert [a["reason"] for a in json.loads(ran.stdout)["plan"]["archive"]] == ["left the company"]
    del archive[0]["reason"]
    path = plan_file(run_cli, repo, tmp_path, {"archive": archive})
    ran = run_cli("--repo", str(repo.root), "--json", "deep-sleep", "--apply", str(path), "--dry-run")
    assert [a["reason"] for a in json.loads(ran.stdout)["plan"]["archive"]] == ["edited plan"]


# --------------------------------------------------------------------------- deep_sleep.look_back_days


def test_look_back_days_is_the_window_in_which_a_title_recurs() -> None:
    journals = {
        "2026-04-01.md": memory_file(record("2026-04-01", "Staging runs on eu-west-1 nodes", "context")),
        "2026-04-06.md": memory_file(record("2026-04-06", "Staging runs on the eu-west-1 nodes", "context")),
    }
    memory = Memory(journals, {}, {})
    today = dt.date(2026, 4, 7)
    narrow = Config()._replace(deep_sleep=DeepSleepSettings(look_back_days=3))
    assert plan_deep_sleep(memory, today, narrow).promotions == []  # five days apart: no recurrence
    wide = Config()._replace(deep_sleep=DeepSleepSettings(look_back_days=5))
    assert [(p.entry_id, p.reason) for p in plan_deep_sleep(memory, today, wide).promotions] == [
        ("2026-04-01-staging-runs-on-eu-west-1-nodes", "recurring"),
        ("2026-04-06-staging-runs-on-the-eu-west-1-nodes", "recurring"),
    ]
