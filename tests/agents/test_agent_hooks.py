"""The Claude Code settings snippet in hooks/ works as shipped: each hook command, fed a real payload through a
shell, as Claude Code runs it."""
from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from apm_git.agents.claude_settings import commands
from apm_git.commands.journal import add
from apm_git.model import trailers
from apm_git.store.repo import MemoryRepo
from tests.conftest import git

SNIPPET = Path(__file__).resolve().parents[2] / "hooks" / "claude-code-settings.json"
EVENTS = {
    "PreCompact": ({"trigger": "manual", "custom_instructions": ""}, "pre-compact"),
    "SessionEnd": ({"reason": "logout"}, "session-end"),
}


def hook_commands() -> list[tuple[str, str]]:
    settings = json.loads(SNIPPET.read_text())
    return [
        (event, hook["command"])
        for event, matchers in settings["hooks"].items()
        for matcher in matchers
        for hook in matcher["hooks"]
    ]


def shell(command: str, *extra: str, stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    line = command if not extra else command.replace(" --hook-input -", " " + shlex.join(extra) + " --hook-input -")
    return subprocess.run(("/bin/sh", "-c", line), input=stdin, text=True, capture_output=True, cwd=cwd, check=False)


def test_snippet_is_what_install_writes() -> None:
    """The snippet carries install's mark, so a hand-merged copy is apm-git's own to update and uninstall."""
    assert dict(hook_commands()) == commands(None)


@pytest.mark.parametrize(("event", "command"), [(event, command) for event, command in hook_commands()
                                                 if event in EVENTS])
def test_each_hook_command_flushes_with_its_payload(repo: MemoryRepo, tmp_path: Path, event: str, command: str) -> None:
    add(repo, f"learned before {event}", kind="lesson")
    extra, trigger = EVENTS[event]
    payload = {"session_id": f"sess-{event}", "transcript_path": str(tmp_path / "t.jsonl"),
               "hook_event_name": event, "cwd": str(repo.root), **extra}
    proc = shell(command, stdin=json.dumps(payload), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    found = dict(trailers.parse(git(repo.root, "log", "-1", "--format=%B")))
    assert found.pop("Apm-Clone") == (repo.git_dir / "apm-git/clone-id").read_text().split("\t")[0]  # the clone's id
    assert found == {"Apm-Trigger": trigger, "Apm-Scope": "all", "Apm-Session": f"sess-{event}"}
    assert git(repo.root, "status", "--porcelain") == ""


@pytest.mark.slow
def test_sessionstart_hook_loads_memory_into_the_context(repo: MemoryRepo, tmp_path: Path) -> None:
    add(repo, "the staging proxy needs NO_PROXY for localhost", kind="tool", title="Staging proxy")
    (command,) = [command for event, command in hook_commands() if event == "SessionStart"]
    payload = {"session_id": "sess-start", "transcript_path": str(tmp_path / "t.jsonl"),
               "hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo.root)}
    proc = shell(command, stdin=json.dumps(payload), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    output = json.loads(proc.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = output["hookSpecificOutput"]["additionalContext"]
    assert 0 < len(context) < 10_000
    assert "- memory/INDEX.md (L1, " in context and "Staging proxy" in context
    assert "session sess-start" in context
    assert (repo.state_dir / "sessions" / "sess-start.json").is_file()


@pytest.mark.parametrize(("stdin", "message"), [
    ("", "the hook input is empty"),
    ("{not json", "not valid JSON"),
])
def test_sessionstart_hook_never_exits_2(tmp_path: Path, stdin: str, message: str) -> None:
    (command,) = [command for event, command in hook_commands() if event == "SessionStart"]
    for extra in ([], ["--budget", "0"], ["--format", "nonsense"]):
        proc = shell(command, *extra, stdin=stdin, cwd=tmp_path)
        assert proc.returncode in (1, 3), (extra, proc.stderr)
        assert proc.stdout == ""
        assert (message if not extra else "Invalid value") in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("cwd", ["/nonexistent/dir", "plain"])
def test_each_hook_in_a_folder_no_memory_serves_exits_0_and_says_nothing(tmp_path: Path, cwd: str) -> None:
    """A user-wide install runs in every project: most keep no memory, and there the hooks stay silent."""
    folder = tmp_path / cwd if cwd == "plain" else Path(cwd)
    if cwd == "plain":
        folder.mkdir()
        git(folder, "init", "-q")
    for event, command in [*hook_commands(), ("UserPromptSubmit", commands(None, recall=True)["UserPromptSubmit"])]:
        payload = {"session_id": "s", "hook_event_name": event, "cwd": str(folder), "prompt": "fix the build"}
        proc = shell(command, stdin=json.dumps(payload), cwd=tmp_path)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", ""), (event, proc.stderr)
