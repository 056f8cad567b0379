"""Quiet commits (issue 11): a flush marks in flush-state.json only what it flushed, and a run
with nothing to do makes no commit."""
from __future__ import annotations

import json

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git

T1 = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
T2 = {"APM_GIT_NOW": "2026-04-06T11:00:00+00:00"}


def two_groups_flushed(repo: MemoryRepo, run_cli: Invoke) -> dict[str, object]:
    """Groups team-a and team-b and the DM memory, all flushed once at T1; the state after."""
    (repo.memory / "group_names.json").write_text('{"room-a": "team-a", "room-b": "team-b"}\n')
    ran = run_cli("--repo", str(repo.root), "flush", env=T1)
    assert ran.exit_code == 0, ran.stderr
    state: dict[str, object] = json.loads((repo.memory / "flush-state.json").read_text())
    return state


def test_a_flush_of_all_marks_only_the_group_it_flushed(repo: MemoryRepo, run_cli: Invoke) -> None:
    before = two_groups_flushed(repo, run_cli)
    attention = repo.memory / "groups/team-a/attention.md"
    attention.write_text(attention.read_text() + "- one more line\n")
    ran = run_cli("--repo", str(repo.root), "flush", env=T2)
    assert ran.exit_code == 0, ran.stderr
    after = json.loads((repo.memory / "flush-state.json").read_text())
    assert after["groups"]["team-a"]["last_flush_time"] == "2026-04-06T11:00:00+00:00"
    assert after["groups"]["last_flush_time"] == "2026-04-06T11:00:00+00:00"
    assert after["groups"]["team-b"] == before["groups"]["team-b"]  # type: ignore[index]
    assert after["main_session"] == before["main_session"]
    diff = git(repo.root, "show", "--format=", "-U0", "HEAD", "--", "memory/flush-state.json")
    changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert len(changed) == 4, diff  # team-a's and the groups' time, each - and +


def test_a_flush_of_dm_memory_leaves_every_group_entry_alone(repo: MemoryRepo, run_cli: Invoke) -> None:
    before = two_groups_flushed(repo, run_cli)
    attention = repo.memory / "main/attention.md"
    attention.write_text(attention.read_text() + "- one more line\n")
    assert run_cli("--repo", str(repo.root), "flush", env=T2).exit_code == 0
    after = json.loads((repo.memory / "flush-state.json").read_text())
    assert after["groups"] == before["groups"]
    assert after["main_session"]["last_flush_time"] == "2026-04-06T11:00:00+00:00"


def test_a_group_scope_flush_marks_that_group_only(repo: MemoryRepo, run_cli: Invoke) -> None:
    before = two_groups_flushed(repo, run_cli)
    for group in ("team-a", "team-b"):
        path = repo.memory / f"groups/{group}/people.md"
        path.write_text(path.read_text() + "- someone\n")
    assert run_cli("--repo", str(repo.root), "flush", "--scope", "group:team-b", env=T2).exit_code == 0
    after = json.loads((repo.memory / "flush-state.json").read_text())
    assert after["groups"]["team-b"]["last_flush_time"] == "2026-04-06T11:00:00+00:00"
    assert after["groups"]["team-a"] == before["groups"]["team-a"]  # type: ignore[index]
    assert after["main_session"] == before["main_session"]


@pytest.mark.parametrize("command", [["flush"], ["dream"], ["rem"], ["deep-sleep"], ["index"], ["dream", "--force"]])
def test_a_run_with_nothing_to_do_makes_no_commit(repo: MemoryRepo, run_cli: Invoke, command: list[str]) -> None:
    head = git(repo.root, "rev-parse", "HEAD")
    state = (repo.memory / "flush-state.json").read_bytes()
    ran = run_cli("--repo", str(repo.root), *command, env=T1)
    assert ran.exit_code == 0, ran.stderr
    assert git(repo.root, "rev-parse", "HEAD") == head
    assert git(repo.root, "status", "--porcelain") == ""  # nothing left uncommitted either
    assert (repo.memory / "flush-state.json").read_bytes() == state


def test_a_quiet_stage_still_counts_as_run_in_this_clone(repo: MemoryRepo, run_cli: Invoke) -> None:
    """REM that had nothing to do is not due again the next day, though it committed nothing."""
    assert run_cli("--repo", str(repo.root), "rem", env=T1).exit_code == 0
    status = run_cli("--repo", str(repo.root), "--json", "status", env=T2)
    due = {item["stage"]: item for item in json.loads(status.stdout)["due"]}
    assert due["rem"]["due_now"] is False and due["deep-sleep"]["due_now"] is True
