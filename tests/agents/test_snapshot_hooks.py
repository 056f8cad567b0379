"""Wiring the snapshot hooks of tracked folders (apm_git/agents/snapshot_hooks.py) and the timer of
`hooks install timer --tracked`: only their own entries, never the user's or apm-git's other hooks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.agents.snapshot_hooks import MARK, install, uninstall
from apm_git.store import tracked as store
from tests.conftest import Invoke
from tests.tracked_homes import machine

THEIRS = {"hooks": {"PreCompact": [{"matcher": "", "hooks": [
    {"type": "command", "command": "apm-git flush --hook-input -"},
    {"type": "command", "command": "notify-send compacting"}]}]}, "model": "gpt-5-codex"}


def test_codex_hooks_sit_beside_the_users_and_leave_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    laptop = machine(tmp_path, monkeypatch)
    hooks_file = laptop.home / ".codex" / "hooks.json"
    hooks_file.parent.mkdir(parents=True)
    hooks_file.write_text(json.dumps(THEIRS, indent=4) + "\n")
    tracked = store.Tracked("codex-m-1", "codex", str(laptop.home / ".codex" / "memories"), None, "default", None)
    added = install(tracked)
    assert added[0]["events"] == ["SessionStart", "PreCompact", "PostCompact"] and added[0]["written"]
    data = json.loads(hooks_file.read_text())
    commands = [hook["command"] for group in data["hooks"]["PreCompact"] for hook in group["hooks"]]
    assert commands[:2] == ["apm-git flush --hook-input -", "notify-send compacting"]
    assert commands[2].endswith(MARK) and "apm-git-snapshot --agent codex --hook-input -" in commands[2]
    assert '    "model"' in hooks_file.read_text()  # the file's indent kept
    assert install(tracked)[0]["written"] is False
    removed = uninstall("codex")
    assert sorted(removed[0]["events"]) == ["PostCompact", "PreCompact", "SessionStart"]
    assert json.loads(hooks_file.read_text()) == THEIRS


def test_a_settings_file_that_does_not_parse_is_left_as_it_is(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    laptop = machine(tmp_path, monkeypatch)
    settings = laptop.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{broken")
    tracked = store.Tracked("claude-code-x-1", "claude-code", str(tmp_path), str(tmp_path), None, None)
    item = install(tracked)[0]
    assert item["written"] is False and item["what"].startswith("NOT wired:")
    assert settings.read_text() == "{broken"


def test_the_timer_of_the_tracked_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    table = tmp_path / "crontab"
    table.write_text("0 * * * * backup.sh\n")
    env = {"APM_GIT_CRONTAB_FILE": str(table)}
    ran = run_cli("hooks", "install", "timer", "--tracked", "--cron", "--json", env=env)
    assert ran.exit_code == 0, ran.stderr
    lines = table.read_text().splitlines()
    assert lines[0] == "0 * * * * backup.sh"
    assert lines[1].startswith("*/10 * * * * ") and " snapshot --all --trigger timer " in lines[1]
    assert lines[1].endswith(f"# apm-git timer for {laptop.data}")
    status = json.loads(run_cli("hooks", "status", "--no-run", "--json", env=env).stdout)
    jobs = [hook["event"] for place in status["places"] if place["where"] == "timer (cron)" for hook in place["hooks"]]
    assert jobs == ["snapshot"]
    assert run_cli("hooks", "uninstall", "timer", "--tracked", "--cron", env=env).exit_code == 0
    assert table.read_text() == "0 * * * * backup.sh\n"
    both = run_cli("hooks", "install", "timer", "--tracked", "--memory", str(tmp_path), env=env)
    assert both.exit_code == 2 and "give no --memory" in both.stderr
    wrong = run_cli("hooks", "install", "claude-code", "--tracked", env=env)
    assert wrong.exit_code == 2 and "`apm-git track` wires" in wrong.stderr
