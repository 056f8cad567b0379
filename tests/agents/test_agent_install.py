"""`apm-git hooks install|uninstall|status claude-code`, `recall`, and the hook errors that name the fix.

Real settings files, real subprocesses, real payloads on stdin; the memory repository lives outside
the project, reached only through the commands that install wrote.
"""
from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from apm_git.agents.claude_settings import MARK
from apm_git.commands.init import init
from apm_git.commands.journal import add
from apm_git.model import trailers
from apm_git.store.repo import MemoryRepo, open_repo
from tests.cli.test_errors import one_line
from tests.conftest import git, run_apm

USER_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]}],
        "SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send bye"}]}],
    },
    "env": {"FOO": "1"},
}


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, MemoryRepo]:
    """A project (a git repository without apm.yaml) and a memory repository of its own beside it."""
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    init(tmp_path / "memory", install=False)
    return project, open_repo(tmp_path / "memory")


def settings_file(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def installed_commands(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text())
    return {event: hook["command"] for event, groups in data["hooks"].items() for group in groups
            for hook in group["hooks"] if hook["command"].startswith("apm-git")}


def run_hook(command: str, payload: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """As Claude Code runs a hook: through a shell, the payload on stdin, in the project folder."""
    return subprocess.run(("/bin/sh", "-c", command), input=json.dumps(payload), text=True, capture_output=True,
                          cwd=cwd, check=False)


@pytest.mark.slow
@pytest.mark.parametrize("indent", [2, 4, "\t"])
def test_install_twice_then_uninstall_restores_every_byte(layout: tuple[Path, MemoryRepo], indent: int | str) -> None:
    project, memory = layout
    path = settings_file(project)
    path.parent.mkdir()
    original = (json.dumps(USER_SETTINGS, indent=indent) + "\n").encode()
    path.write_bytes(original)

    first = run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), cwd=project)
    assert first.exit_code == 0, first.stderr
    once = path.read_bytes()
    data = json.loads(once)
    assert list(data) == list(USER_SETTINGS)  # key order kept
    assert {key: data[key] for key in ("model", "permissions", "env")} == \
        {key: USER_SETTINGS[key] for key in ("model", "permissions", "env")}
    assert data["hooks"]["PreToolUse"] == USER_SETTINGS["hooks"]["PreToolUse"]  # type: ignore[index]
    assert data["hooks"]["SessionEnd"][0] == USER_SETTINGS["hooks"]["SessionEnd"][0]  # type: ignore[index]
    assert once.decode().splitlines()[1].startswith((" " * indent) if isinstance(indent, int) else indent)
    assert installed_commands(path)["PreCompact"] == f"apm-git --repo {memory.root} flush --hook-input -{MARK}"

    second = run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), cwd=project)
    assert second.exit_code == 0, second.stderr
    assert "nothing changed" in second.stdout
    assert path.read_bytes() == once

    removed = run_apm("hooks", "uninstall", "claude-code", cwd=project)
    assert removed.exit_code == 0, removed.stderr
    assert path.read_bytes() == original


@pytest.mark.slow
def test_uninstall_takes_out_the_hooks_key_it_brought(layout: tuple[Path, MemoryRepo]) -> None:
    project, memory = layout
    path = settings_file(project)
    path.parent.mkdir()
    original = b'{\n  "model": "sonnet"\n}\n'
    path.write_bytes(original)
    assert run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), "--recall",
                   cwd=project).exit_code == 0
    assert set(installed_commands(path)) == {"SessionStart", "PreCompact", "SessionEnd", "UserPromptSubmit"}
    assert run_apm("hooks", "uninstall", "claude-code", cwd=project).exit_code == 0
    assert path.read_bytes() == original


@pytest.mark.slow
def test_user_install_writes_home_settings_only(layout: tuple[Path, MemoryRepo]) -> None:
    project, memory = layout
    ran = run_apm("hooks", "install", "claude-code", "--user", "--memory", str(memory.root), cwd=project)
    assert ran.exit_code == 0, ran.stderr
    home = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    try:
        assert "PreCompact" in installed_commands(home)
        assert not settings_file(project).exists()
    finally:
        assert run_apm("hooks", "uninstall", "claude-code", "--user", cwd=project).exit_code == 0
    assert not home.exists()  # install created it: uninstall takes it out again


def test_install_into_a_project_without_memory_names_the_fix(layout: tuple[Path, MemoryRepo]) -> None:
    project, _ = layout
    ran = run_apm("hooks", "install", "claude-code", cwd=project)
    assert ran.exit_code == 2
    assert "--memory PATH" in ran.stderr and len(ran.stderr.strip().splitlines()) == 1
    assert not settings_file(project).exists()


def test_corrupt_settings_file_is_left_alone(layout: tuple[Path, MemoryRepo]) -> None:
    project, memory = layout
    path = settings_file(project)
    path.parent.mkdir()
    path.write_text('{"hooks": [')
    ran = run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), cwd=project)
    assert ran.exit_code == 3
    assert "not valid JSON" in ran.stderr
    assert path.read_text() == '{"hooks": ['


@pytest.mark.slow
def test_memory_outside_the_project_through_the_installed_commands(layout: tuple[Path, MemoryRepo]) -> None:
    project, memory = layout
    assert run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), "--recall",
                   cwd=project).exit_code == 0
    commands = installed_commands(settings_file(project))
    base = {"transcript_path": str(project / "t.jsonl"), "cwd": str(project)}

    add(memory, "the staging proxy needs NO_PROXY=localhost for the redis tunnel", kind="tool",
        title="Staging proxy redis tunnel")
    pre = run_hook(commands["PreCompact"], {**base, "session_id": "s-1", "hook_event_name": "PreCompact",
                                            "trigger": "auto", "custom_instructions": ""}, project)
    assert pre.returncode == 0, pre.stderr
    found = dict(trailers.parse(git(memory.root, "log", "-1", "--format=%B")))
    assert found["Apm-Trigger"] == "pre-compact" and found["Apm-Session"] == "s-1"
    assert git(project, "status", "--porcelain") == "?? .claude/\n"  # nothing else written into the project

    start = run_hook(commands["SessionStart"], {**base, "session_id": "s-1", "hook_event_name": "SessionStart",
                                                "source": "compact"}, project)
    assert start.returncode == 0, start.stderr
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Staging proxy redis tunnel" in context

    prompt = {**base, "session_id": "s-1", "hook_event_name": "UserPromptSubmit"}
    hit = run_hook(commands["UserPromptSubmit"], {**prompt, "prompt": "why does the redis tunnel fail on staging?"},
                   project)
    assert hit.returncode == 0, hit.stderr
    output = json.loads(hit.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "UserPromptSubmit"
    assert "NO_PROXY=localhost" in output["additionalContext"]
    assert len(output["additionalContext"]) < 10_000
    miss = run_hook(commands["UserPromptSubmit"], {**prompt, "prompt": "rename the kubernetes helm chart"}, project)
    assert miss.returncode == 0, miss.stderr
    assert miss.stdout == ""

    end = run_hook(commands["SessionEnd"], {**base, "session_id": "s-1", "hook_event_name": "SessionEnd",
                                            "reason": "logout"}, project)
    assert end.returncode == 0, end.stderr


@pytest.mark.slow
def test_status_runs_each_hook_and_reports_pass(layout: tuple[Path, MemoryRepo]) -> None:
    project, memory = layout
    assert run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), "--recall",
                   cwd=project).exit_code == 0
    ran = run_apm("hooks", "status", cwd=project)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    for event in ("SessionStart", "PreCompact", "SessionEnd", "UserPromptSubmit"):
        assert f"PASS {event}" in ran.stdout
    assert "\nuser: " in ran.stdout  # the user settings are reported too


@pytest.mark.slow
def test_status_reports_the_exact_fix_for_a_broken_hook(layout: tuple[Path, MemoryRepo], tmp_path: Path) -> None:
    project, memory = layout
    assert run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), cwd=project).exit_code == 0
    moved = tmp_path / "moved"
    memory.root.rename(moved)  # the memory repository moved away after install
    ran = run_apm("hooks", "status", "--json", cwd=project)
    assert ran.exit_code == 1
    (place,) = [place for place in json.loads(ran.stdout)["places"] if place["where"] == "project"]
    assert {check["event"] for check in place["hooks"]} == {"SessionStart", "PreCompact", "SessionEnd"}
    for check in place["hooks"]:
        assert not check["passed"]
        assert check["detail"].startswith("exit 3: ") and "does not exist" in check["detail"]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["flush --hook-input -", "load --format claude-hook --hook-input -",
                                     "recall --hook-input -"])
def test_a_wrong_memory_path_is_named_where_it_was_given(layout: tuple[Path, MemoryRepo], command: str) -> None:
    project, _ = layout
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "PreCompact", "prompt": "hello world"}
    missing = project.parent / "moved-away"
    env = {**os.environ, "APM_GIT_REPO": str(missing)}
    ran = subprocess.run(("/bin/sh", "-c", f"apm-git {command}"), input=json.dumps(payload), text=True,
                         capture_output=True, cwd=project, env=env, check=False)
    assert ran.returncode == 3
    (line,) = ran.stderr.strip().splitlines()
    assert line == (f"apm-git: APM_GIT_REPO names {missing}, which does not exist; set APM_GIT_REPO to your memory "
                    "repository's folder, or unset it")
    ran = run_hook(f"apm-git --repo {shlex.quote(str(project))} {command}", payload, project)
    assert ran.returncode == 3
    (line,) = ran.stderr.strip().splitlines()
    assert line.startswith(f"apm-git: --repo names {project}, in {project}, which has no apm.yaml")
    assert "give --repo your memory repository's folder" in line


@pytest.mark.slow
def test_install_names_a_wrong_memory_flag(layout: tuple[Path, MemoryRepo], tmp_path: Path) -> None:
    project, _ = layout
    ran = run_apm("hooks", "install", "claude-code", "--memory", str(tmp_path / "nowhere"), cwd=project)
    assert ran.exit_code == 3
    assert one_line(ran.stderr) == (f"apm-git: --memory names {tmp_path / 'nowhere'}, which does not exist; give "
                                    "--memory your memory repository's folder")
    ran = run_apm("hooks", "install", "claude-code", cwd=project, env={"APM_GIT_REPO": str(project)})
    assert ran.exit_code == 3 and one_line(ran.stderr).startswith(f"apm-git: APM_GIT_REPO names {project}")
    assert not settings_file(project).exists()


def test_hook_usage_error_never_exits_2(layout: tuple[Path, MemoryRepo]) -> None:
    project, memory = layout
    ran = run_hook(f"apm-git --repo {shlex.quote(str(memory.root))} recall --budget 0 --hook-input -",
                   {"prompt": "x"}, project)
    assert ran.returncode == 1
    assert ran.stderr.strip()


@pytest.mark.slow
def test_recall_prompt_on_the_command_line(repo: MemoryRepo) -> None:
    add(repo, "deploys go through the blue green switch on Fridays", kind="decision", title="Blue green deploys")
    ran = run_apm("recall", "how do blue green deploys work", cwd=repo.root)
    assert ran.exit_code == 0, ran.stderr
    assert "Blue green deploys" in ran.stdout
    assert run_apm("recall", "?", cwd=repo.root).stdout == ""
    budget = run_apm("--json", "recall", "blue green deploys", "--budget", "5", cwd=repo.root)
    assert json.loads(budget.stdout)["sections"] == []
