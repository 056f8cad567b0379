"""Where the hooks run: a memory of its own (the agent is told `--repo` in every command), a user-wide install
in folders no memory serves (silent), and a PATH that lacks apm-git (install writes its full path).

Real installs, the installed commands run through a shell as Claude Code runs them.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.agents.claude_settings import Settings
from apm_git.commands.init import init
from apm_git.store.repo import MemoryRepo, open_repo
from tests.cli.test_errors import one_line
from tests.conftest import BIN, git, run_apm

MINIMAL_PATH = "/usr/bin:/bin"


@pytest.fixture
def apart(tmp_path: Path) -> tuple[Path, MemoryRepo]:
    """A project (a git repository of code) and a memory repository of its own beside it."""
    project = tmp_path / "shop"
    project.mkdir()
    git(project, "init", "-q")
    (project / "app.py").write_text("print('shop')\n")
    init(tmp_path / "memory", install=False)
    return project, open_repo(tmp_path / "memory")


def shell(command: str, payload: dict[str, str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(("/bin/sh", "-c", command), input=json.dumps(payload), text=True, capture_output=True,
                          cwd=cwd, env={**os.environ, **env}, check=False)


def event_commands(path: Path) -> dict[str, str]:
    return {event: commands[0] for event, commands in Settings.read(path).installed().items()}


def start_payload(project: Path) -> dict[str, str]:
    return {"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(project),
            "transcript_path": ""}


@pytest.mark.slow
def test_a_memory_of_its_own_is_named_in_every_command_the_agent_is_told(apart: tuple[Path, MemoryRepo],
                                                                         tmp_path: Path) -> None:
    project, memory = apart
    assert run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), cwd=project).exit_code == 0
    start = event_commands(project / ".claude" / "settings.json")["SessionStart"]
    env_file = tmp_path / "claude-env.sh"
    ran = shell(start, start_payload(project), project, CLAUDE_ENV_FILE=str(env_file))
    assert ran.returncode == 0, ran.stderr
    context = json.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"]
    told = re.findall(r"`(apm-git[^`]*)`", context)
    assert told and all(command.startswith(f"apm-git --repo {memory.root} ") for command in told), told
    assert env_file.read_text() == f"export APM_GIT_REPO={shlex.quote(str(memory.root))}\n"
    assert shell(start, start_payload(project), project, CLAUDE_ENV_FILE=str(env_file)).returncode == 0
    assert env_file.read_text().count("export APM_GIT_REPO=") == 1, "exported once per session file"

    # The agent runs what it was told, from the project folder: it lands in the memory, nowhere else.
    (journal,) = [command for command in told if " journal add " in command]
    command = journal.replace('"what, and why"', '"ship on Tuesdays, the release train leaves then"')
    done = subprocess.run(("/bin/sh", "-c", command), cwd=project, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "ship on Tuesdays" in "".join(path.read_text() for path in memory.memory.glob("20*.md"))
    assert git(project, "status", "--porcelain") == "?? .claude/\n?? app.py\n"
    # The same command without --repo is told where the memory is, never to `init` the project.
    bare = subprocess.run(("/bin/sh", "-c", command.replace(f" --repo {memory.root}", "")), cwd=project,
                          capture_output=True, text=True, check=False)
    assert bare.returncode == 3
    line = one_line(bare.stderr)
    assert f"this project's Claude Code hooks use the memory at {memory.root}" in line and "init" not in line
    assert not (project / "apm.yaml").exists()


def test_inside_the_project_the_commands_stay_short(repo: MemoryRepo, tmp_path: Path) -> None:
    env_file = tmp_path / "claude-env.sh"
    ran = shell("apm-git load --format claude-hook --hook-input -", start_payload(repo.root), repo.root,
                CLAUDE_ENV_FILE=str(env_file))
    assert ran.returncode == 0, ran.stderr
    context = json.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "`apm-git journal add " in context and "--repo" not in context
    assert not env_file.exists()


@pytest.mark.slow
def test_a_user_wide_install_is_silent_where_no_memory_is(apart: tuple[Path, MemoryRepo], tmp_path: Path) -> None:
    project, memory = apart
    ran = run_apm("hooks", "install", "claude-code", "--user", "--recall", cwd=project)
    assert ran.exit_code == 0, ran.stderr
    assert "in a folder with no apm.yaml the hooks do nothing and print nothing" in ran.stdout
    home_settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    try:
        commands = event_commands(home_settings)
        assert set(commands) == {"SessionStart", "PreCompact", "SessionEnd", "UserPromptSubmit"}
        for event, command in commands.items():
            payload = {**start_payload(project), "hook_event_name": event, "prompt": "fix the checkout page"}
            done = shell(command, payload, project)
            assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), (event, done.stderr)
            served = shell(command, {**payload, "cwd": str(memory.root)}, memory.root)
            assert served.returncode == 0, (event, served.stderr)
        status = run_apm("hooks", "status", "--json", cwd=project)
        assert status.exit_code == 0, status.stdout
        (user,) = [place for place in json.loads(status.stdout)["places"] if place["where"] == "user"]
        assert {check["passed"] for check in user["hooks"]} == {True}
        assert all(check["detail"].startswith(f"does nothing here: no memory serves {project}")
                   for check in user["hooks"])
        listed = run_apm("hooks", "status", "--no-run", cwd=project)
        assert "PASS" not in listed.stdout and "---- SessionStart: apm-git load" in listed.stdout, listed.stdout
    finally:
        assert run_apm("hooks", "uninstall", "claude-code", "--user", cwd=project).exit_code == 0


@pytest.mark.slow
def test_a_path_without_apm_git_gets_its_full_path_and_a_warning(apart: tuple[Path, MemoryRepo]) -> None:
    project, memory = apart
    if any((Path(folder) / "apm-git").exists() for folder in MINIMAL_PATH.split(":")):
        pytest.skip(f"apm-git is installed in {MINIMAL_PATH}: the test needs it off that PATH")
    proc = subprocess.run((sys.executable, "-m", "apm_git", "hooks", "install", "claude-code", "--memory",
                           str(memory.root), "--recall"), cwd=project, capture_output=True, text=True, check=False,
                          env={**os.environ, "PATH": MINIMAL_PATH})
    assert proc.returncode == 0, proc.stderr
    (warning,) = proc.stderr.strip().splitlines()
    assert warning.startswith("apm-git: WARNING: apm-git is not on this shell's PATH") and str(Path(BIN)) in warning
    commands = event_commands(project / ".claude" / "settings.json")
    assert commands["PreCompact"].startswith(f"{Path(BIN).resolve() / 'apm-git'} --repo ")
    assert commands["UserPromptSubmit"].startswith(f"{Path(BIN).resolve() / 'apm-git-recall'} --repo ")
    start = shell(commands["SessionStart"], start_payload(project), project, PATH=MINIMAL_PATH)
    assert start.returncode == 0 and "additionalContext" in start.stdout, start.stderr
    # With apm-git on the PATH, the short names stay.
    again = run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), "--recall", cwd=project)
    assert again.exit_code == 0 and again.stderr == ""
    assert event_commands(project / ".claude" / "settings.json")["PreCompact"].startswith("apm-git --repo ")
