"""The Claude Code settings snippet in hooks/ works as shipped: each hook command, fed a real payload."""
from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

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


def test_snippet_has_sessionstart_precompact_and_sessionend() -> None:
    assert {event for event, _ in hook_commands()} == {"SessionStart", "PreCompact", "SessionEnd"}


@pytest.mark.parametrize(("event", "command"), [(event, command) for event, command in hook_commands()
                                                 if event in EVENTS])
def test_each_hook_command_flushes_with_its_payload(repo: MemoryRepo, tmp_path: Path, event: str, command: str) -> None:
    add(repo, f"learned before {event}", kind="lesson")
    extra, trigger = EVENTS[event]
    payload = {"session_id": f"sess-{event}", "transcript_path": str(tmp_path / "t.jsonl"),
               "hook_event_name": event, "cwd": str(repo.root), **extra}
    proc = subprocess.run(shlex.split(command), input=json.dumps(payload), text=True, capture_output=True,
                          cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr
    found = dict(trailers.parse(git(repo.root, "log", "-1", "--format=%B")))
    assert found.pop("Apm-Clone") == (repo.git_dir / "apm-git/clone-id").read_text().split("\t")[0]  # the clone's id
    assert found == {"Apm-Trigger": trigger, "Apm-Scope": "all", "Apm-Session": f"sess-{event}"}
    assert git(repo.root, "status", "--porcelain") == ""


def test_sessionstart_hook_loads_memory_into_the_context(repo: MemoryRepo, tmp_path: Path) -> None:
    add(repo, "the staging proxy needs NO_PROXY for localhost", kind="tool", title="Staging proxy")
    (command,) = [command for event, command in hook_commands() if event == "SessionStart"]
    payload = {"session_id": "sess-start", "transcript_path": str(tmp_path / "t.jsonl"),
               "hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo.root)}
    proc = subprocess.run(shlex.split(command), input=json.dumps(payload), text=True, capture_output=True,
                          cwd=tmp_path, check=False)
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
    (json.dumps({"session_id": "s", "hook_event_name": "SessionStart", "cwd": "/nonexistent/dir"}), "does not exist"),
])
def test_sessionstart_hook_never_exits_2(tmp_path: Path, stdin: str, message: str) -> None:
    (command,) = [command for event, command in hook_commands() if event == "SessionStart"]
    for extra in ([], ["--budget", "0"], ["--format", "nonsense"]):
        proc = subprocess.run([*shlex.split(command), *extra], input=stdin, text=True, capture_output=True,
                              cwd=tmp_path, check=False)
        assert proc.returncode in (1, 3), (extra, proc.stderr)
        assert proc.stdout == ""
        assert (message if not extra else "Invalid value") in proc.stderr
