"""The Claude Code settings snippet in hooks/ works as shipped: each hook command, fed a real payload."""
from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from apm_git.commands.journal import add
from apm_git.model import trailers
from apm_git.repo import MemoryRepo
from tests.conftest import git

SNIPPET = Path(__file__).resolve().parent.parent / "hooks" / "claude-code-settings.json"
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


def test_snippet_has_precompact_and_sessionend() -> None:
    assert {event for event, _ in hook_commands()} == {"PreCompact", "SessionEnd"}


@pytest.mark.parametrize(("event", "command"), hook_commands())
def test_each_hook_command_flushes_with_its_payload(repo: MemoryRepo, tmp_path: Path, event: str, command: str) -> None:
    add(repo, f"learned before {event}", kind="lesson")
    extra, trigger = EVENTS[event]
    payload = {"session_id": f"sess-{event}", "transcript_path": str(tmp_path / "t.jsonl"),
               "hook_event_name": event, "cwd": str(repo.root), **extra}
    proc = subprocess.run(shlex.split(command), input=json.dumps(payload), text=True, capture_output=True,
                          cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr
    found = dict(trailers.parse(git(repo.root, "log", "-1", "--format=%B")))
    assert found == {"Apm-Trigger": trigger, "Apm-Scope": "all", "Apm-Session": f"sess-{event}"}
    assert git(repo.root, "status", "--porcelain") == ""
