"""`apm-git hooks install|uninstall timer`: systemd user units under $XDG_CONFIG_HOME and crontab lines
in a real file named by APM_GIT_CRONTAB_FILE; idempotent, and uninstall takes out only what install put."""
from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from apm_git.commands.journal import add
from apm_git.store.repo import MemoryRepo
from tests.conftest import git, run_apm


@pytest.mark.slow
def test_systemd_units_written_idempotent_and_removed(repo: MemoryRepo, tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    units = tmp_path / "config" / "systemd" / "user"
    units.mkdir(parents=True)
    (units / "other.timer").write_text("[Timer]\nOnCalendar=daily\n")
    first = run_apm("hooks", "install", "timer", "--systemd", cwd=repo.root, env=env)
    assert first.exit_code == 0, first.stderr
    names = sorted(path.name for path in units.iterdir())
    assert len(names) == 5 and "other.timer" in names
    (flush_timer,) = [name for name in names if name.startswith("apm-git-flush-") and name.endswith(".timer")]
    assert "OnCalendar=*:0/5" in (units / flush_timer).read_text()
    service = (units / flush_timer.replace(".timer", ".service")).read_text()
    assert f"--repo {repo.root.resolve()} flush --trigger idle --if-idle" in service
    (dream,) = [name for name in names if name.startswith("apm-git-dream-") and name.endswith(".timer")]
    assert "OnCalendar=hourly" in (units / dream).read_text()
    assert "systemctl --user enable --now" in first.stdout
    before = {path.name: path.read_bytes() for path in units.iterdir()}
    again = run_apm("hooks", "install", "timer", "--systemd", cwd=repo.root, env=env)
    assert "nothing to change" in again.stdout
    assert {path.name: path.read_bytes() for path in units.iterdir()} == before
    gone = run_apm("hooks", "uninstall", "timer", "--systemd", cwd=repo.root, env=env)
    assert gone.exit_code == 0, gone.stderr
    assert [path.name for path in units.iterdir()] == ["other.timer"]


@pytest.mark.slow
def test_crontab_lines_added_once_and_removed(repo: MemoryRepo, tmp_path: Path) -> None:
    table = tmp_path / "crontab"
    original = "MAILTO=me@example.invalid\n0 3 * * * /usr/bin/backup\n"
    table.write_text(original)
    env = {"APM_GIT_CRONTAB_FILE": str(table)}
    assert run_apm("hooks", "install", "timer", "--cron", cwd=repo.root, env=env).exit_code == 0
    lines = table.read_text().splitlines()
    assert lines[:2] == original.splitlines()
    ours = lines[2:]
    assert len(ours) == 2 and ours[0].startswith("*/5 * * * * ") and ours[1].startswith("7 * * * * ")
    once = table.read_bytes()
    assert run_apm("hooks", "install", "timer", "--cron", cwd=repo.root, env=env).exit_code == 0
    assert table.read_bytes() == once
    assert run_apm("hooks", "uninstall", "timer", "--cron", cwd=repo.root, env=env).exit_code == 0
    assert table.read_text() == original


@pytest.mark.slow
def test_the_installed_cron_command_flushes_when_idle(repo: MemoryRepo, tmp_path: Path) -> None:
    table = tmp_path / "crontab"
    env = {"APM_GIT_CRONTAB_FILE": str(table)}
    assert run_apm("hooks", "install", "timer", "--cron", cwd=repo.root, env=env).exit_code == 0
    flush_line = table.read_text().splitlines()[0]
    command = flush_line.split(" ", 5)[5].split(" >/dev/null")[0]
    add(repo, "idle note", kind="context")
    later = {"APM_GIT_NOW": "2099-01-01T12:00:00"}
    proc = subprocess.run(shlex.split(command), cwd=tmp_path, capture_output=True, text=True, check=False,
                          env={**__import__("os").environ, **later})
    assert proc.returncode == 0, proc.stderr
    assert "Apm-Trigger: idle" in git(repo.root, "log", "-1", "--format=%B")


def test_timer_outside_a_memory_repository_names_the_fix(tmp_path: Path) -> None:
    ran = run_apm("hooks", "install", "timer", "--cron", cwd=tmp_path,
                  env={"APM_GIT_CRONTAB_FILE": str(tmp_path / "crontab")})
    assert ran.exit_code == 3
    assert "apm-git init" in ran.stderr
    assert not (tmp_path / "crontab").exists()


@pytest.mark.slow
def test_hooks_status_reports_the_timers(repo: MemoryRepo, tmp_path: Path) -> None:
    table = tmp_path / "crontab"
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "APM_GIT_CRONTAB_FILE": str(table)}
    units = tmp_path / "config" / "systemd" / "user"
    none = run_apm("hooks", "status", "--no-run", cwd=tmp_path, env=env)
    assert none.exit_code == 0 and "timer" not in none.stdout

    assert run_apm("hooks", "install", "timer", "--systemd", cwd=repo.root, env=env).exit_code == 0
    assert run_apm("hooks", "install", "timer", "--cron", cwd=repo.root, env=env).exit_code == 0
    ran = run_apm("hooks", "status", "--no-run", cwd=tmp_path, env=env)
    assert ran.exit_code == 1  # the systemd timers are written, not enabled
    assert f"timer (systemd): {units}" in ran.stdout and f"timer (cron): {table}" in ran.stdout
    assert ran.stdout.count("systemctl --user daemon-reload && systemctl --user enable --now apm-git-") == 2
    cron = [place for place in json.loads(run_apm("hooks", "status", "--json", "--no-run", cwd=tmp_path,
                                                  env=env).stdout)["places"] if place["where"] == "timer (cron)"]
    assert [(check["event"], check["passed"]) for check in cron[0]["hooks"]] == [("flush", True), ("dream", True)]

    wants = units / "timers.target.wants"
    wants.mkdir()
    for unit in units.glob("apm-git-*.timer"):
        (wants / unit.name).symlink_to(unit)  # what `systemctl --user enable` does
    enabled = run_apm("hooks", "status", "--no-run", cwd=tmp_path, env=env)
    assert enabled.exit_code == 0, enabled.stdout
    assert "FAIL" not in enabled.stdout and "PASS flush:" in enabled.stdout and "PASS dream:" in enabled.stdout

    program = shlex.split(table.read_text().splitlines()[0].split(" ", 5)[5])[0]
    table.write_text(table.read_text().replace(program, str(tmp_path / "gone" / "apm-git")))
    moved = run_apm("hooks", "status", "--no-run", cwd=tmp_path, env=env)
    assert moved.exit_code == 1
    assert moved.stdout.count("gone/apm-git does not exist any more: run `apm-git hooks install timer` again") == 2
