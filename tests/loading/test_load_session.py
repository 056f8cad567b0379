"""The loading discipline per `--session`: 2 P0-P2 files + 1 P3 file, reset on switching scope."""
from __future__ import annotations

import json
from typing import Any

import pytest

from apm_git.store.repo import MemoryRepo
from apm_git.store.session import session_file_name
from tests.conftest import Invoke, git
from tests.loading.conftest import cli_json


def load(run_cli: Invoke, mem: MemoryRepo, *args: str) -> dict[str, Any]:
    return cli_json(run_cli, mem, "load", *args)


def routed(data: dict[str, Any]) -> list[str]:
    return [item["path"].rsplit("/", 1)[-1] for item in data["files"] if item["role"] == "routed"]


def test_two_core_files_and_one_p3_file_per_session(mem: MemoryRepo, run_cli: Invoke) -> None:
    session = ("--group", "alpha", "--session", "s1")
    assert routed(load(run_cli, mem, *session, "--intent", "todo")) == ["attention.md"]
    assert routed(load(run_cli, mem, *session, "--intent", "why did we")) == ["experience.md"]
    third = load(run_cli, mem, *session, "--intent", "the stack")
    assert routed(third) == []
    assert third["skipped"][0]["reason"] == (
        "discipline: this session already holds 2 P0-P2 files (limit 2: memory/groups/alpha/attention.md, "
        "memory/groups/alpha/experience.md); start a new session or switch scope to reset")
    assert routed(load(run_cli, mem, *session, "--intent", "who")) == ["people.md"]  # the one P3 file
    # a file the session holds is delivered again without counting twice
    assert routed(load(run_cli, mem, *session, "--intent", "todo")) == ["attention.md"]
    # another session, or no session, is not limited by s1
    assert routed(load(run_cli, mem, "--group", "alpha", "--session", "s2", "--intent", "stack")) == ["project.md"]
    assert routed(load(run_cli, mem, "--group", "alpha", "--intent", "stack")) == ["project.md"]


def test_the_p3_limit(mem: MemoryRepo, run_cli: Invoke) -> None:
    index = mem.memory / "groups/alpha.md"
    index.write_text(index.read_text() + "| rulebook | conventions/deploy.md | P3 |\n")
    assert routed(load(run_cli, mem, "--group", "alpha", "--session", "p", "--intent", "who")) == ["people.md"]
    second = load(run_cli, mem, "--group", "alpha", "--session", "p", "--intent", "the rulebook")
    assert routed(second) == [] and "already holds 1 P3 file (limit 1" in second["skipped"][0]["reason"]


def test_switching_group_starts_again_from_the_index(mem: MemoryRepo, run_cli: Invoke) -> None:
    for intent in ("todo", "why"):
        load(run_cli, mem, "--group", "alpha", "--session", "s", "--intent", intent)
    beta = load(run_cli, mem, "--room", "room-b", "--session", "s", "--intent", "stack")
    assert [item["path"] for item in beta["files"]][:2] == ["memory/groups/beta.md", "memory/groups/beta/project.md"]
    assert "switched from group:alpha to group:beta" in beta["warnings"][0]
    state = json.loads((mem.state_dir / "sessions" / "s.json").read_text())
    assert state["scope"] == "group:beta"
    assert [item["path"] for item in state["files"]] == ["memory/groups/beta/project.md",
                                                         "memory/groups/beta/conventions/api.md"]
    back = load(run_cli, mem, "--group", "alpha", "--session", "s", "--intent", "stack")
    assert routed(back) == ["project.md"]  # alpha's earlier two files no longer count


def test_one_conventions_file_per_session(mem: MemoryRepo, run_cli: Invoke) -> None:
    experience = mem.memory / "groups/alpha/experience.md"
    experience.write_text(experience.read_text() + "See conventions/deploy.md.\n")
    first = load(run_cli, mem, "--group", "alpha", "--session", "c", "--intent", "stack")
    assert first["files"][-1]["path"].endswith("conventions/api.md")
    second = load(run_cli, mem, "--group", "alpha", "--session", "c", "--intent", "why")
    assert second["files"][-1]["path"].endswith("experience.md")
    assert second["skipped"][0]["reason"].startswith("discipline: this session already holds 1 conventions/ file")


def test_dm_session_counts_its_two_files(mem: MemoryRepo, run_cli: Invoke) -> None:
    first = load(run_cli, mem, "--main", "--session", "dm")
    assert routed(first) == ["attention.md", "longterm.md"]
    second = load(run_cli, mem, "--main", "--session", "dm", "--intent", "daily recap")
    # daily-synced.md would be a third P0-P2 file; the two files the session holds come again
    assert routed(second) == ["attention.md", "longterm.md"]
    assert [item["path"] for item in second["skipped"]][:1] == ["memory/main/daily-synced.md"]


def test_limits_follow_apm_yaml(mem: MemoryRepo, run_cli: Invoke) -> None:
    config = mem.root / "apm.yaml"
    config.write_text(config.read_text().replace("max_core_files: 2", "max_core_files: 1"))
    assert "max_core_files: 1" in config.read_text()
    load(run_cli, mem, "--group", "alpha", "--session", "one")
    second = load(run_cli, mem, "--group", "alpha", "--session", "one", "--intent", "why")
    assert routed(second) == [] and "(limit 1:" in second["skipped"][0]["reason"]


def test_a_compacted_or_cleared_session_starts_afresh(mem: MemoryRepo, run_cli: Invoke) -> None:
    for intent in ("todo", "why"):
        load(run_cli, mem, "--group", "alpha", "--session", "hs", "--intent", intent)
    payload = {"session_id": "hs", "hook_event_name": "SessionStart", "source": "compact", "cwd": str(mem.root)}
    ran = run_cli("load", "--group", "alpha", "--intent", "stack", "--format", "json", "--hook-input", "-",
                  input=json.dumps(payload))
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["session"] == "hs" and routed(data) == ["project.md"]
    resumed = {**payload, "source": "resume"}
    ran = run_cli("load", "--group", "alpha", "--intent", "why", "--format", "json", "--hook-input", "-",
                  input=json.dumps(resumed))
    assert routed(json.loads(ran.stdout)) == ["experience.md"]
    ran = run_cli("load", "--group", "alpha", "--intent", "who", "--format", "json", "--hook-input", "-",
                  input=json.dumps(resumed))
    assert routed(json.loads(ran.stdout)) == ["people.md"]
    ran = run_cli("load", "--group", "alpha", "--intent", "todo", "--format", "json", "--hook-input", "-",
                  input=json.dumps(resumed))
    assert routed(json.loads(ran.stdout)) == []  # project + experience held since the compaction


@pytest.mark.parametrize("session", ["../../escape", "a/b", "x" * 300, ".hidden", "名前"])
def test_any_session_id_stays_inside_the_sessions_folder(mem: MemoryRepo, run_cli: Invoke, session: str) -> None:
    load(run_cli, mem, "--group", "alpha", "--session", session)
    name = session_file_name(session)
    assert "/" not in name and not name.startswith(".") and len(name) < 80
    assert (mem.state_dir / "sessions" / name).is_file()
    assert sorted(p.name for p in (mem.state_dir / "sessions").iterdir() if p.suffix == ".json") == [name]
    assert git(mem.root, "status", "--porcelain", "--ignored") == ""


def test_a_plain_session_id_names_its_file(mem: MemoryRepo, run_cli: Invoke) -> None:
    load(run_cli, mem, "--main", "--session", "abc-123_x.y")
    assert (mem.state_dir / "sessions" / "abc-123_x.y.json").is_file()


def test_damaged_session_state_only_resets_the_limits(mem: MemoryRepo, run_cli: Invoke) -> None:
    folder = mem.state_dir / "sessions"
    folder.mkdir(exist_ok=True)
    (folder / "bad.json").write_text("{not json")
    data = load(run_cli, mem, "--group", "alpha", "--session", "bad")
    assert routed(data) == ["attention.md"]
    assert data["warnings"] == ["bad.json was unreadable; the session's limits start again"]
    assert json.loads((folder / "bad.json").read_text())["scope"] == "group:alpha"
