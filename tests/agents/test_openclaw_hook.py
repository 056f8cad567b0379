"""The OpenClaw hook pack in hooks/openclaw/: its handler, run by a real node, flushes the memory."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.commands.journal import add
from apm_git.store.repo import MemoryRepo
from tests.conftest import git

PACK = Path(__file__).resolve().parents[2] / "hooks" / "openclaw" / "apm-git-flush"
NODE = shutil.which("node")
RUNNER = """
import handler from %s;
handler(%s);
"""


def run_handler(event: dict[str, object], repo: MemoryRepo, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    script = tmp_path / "run.mjs"
    script.write_text(RUNNER % (json.dumps((PACK / "handler.js").as_uri()), json.dumps(event)))
    env = {**os.environ, "APM_GIT_REPO": str(repo.root), "APM_GIT_BIN": str(Path(sys.executable).parent / "apm-git")}
    return subprocess.run((NODE, str(script)), capture_output=True, text=True, env=env, cwd=tmp_path, check=False)


def test_hook_md_names_the_events() -> None:
    head = (PACK / "HOOK.md").read_text().split("---")[1]
    metadata = json.loads(head.split("metadata:", 1)[1].strip())
    assert metadata["openclaw"]["events"] == ["session:compact:before", "command:new", "command:reset",
                                              "command:stop"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize(("event_type", "action", "trigger"), [("session", "compact:before", "pre-compact"),
                                                              ("command", "reset", "session-end")])
def test_handler_flushes(repo: MemoryRepo, tmp_path: Path, event_type: str, action: str, trigger: str) -> None:
    add(repo, f"note before {action}", kind="context")
    ran = run_handler({"type": event_type, "action": action, "sessionKey": "agent:main:main", "messages": [],
                       "context": {}}, repo, tmp_path)
    assert ran.returncode == 0, ran.stderr
    body = git(repo.root, "log", "-1", "--format=%B")
    assert f"Apm-Trigger: {trigger}" in body and "Apm-Session: agent:main:main" in body


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_handler_ignores_other_events(repo: MemoryRepo, tmp_path: Path) -> None:
    head = git(repo.root, "rev-parse", "HEAD")
    add(repo, "unrelated", kind="context")
    ran = run_handler({"type": "message", "action": "received", "context": {}}, repo, tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert git(repo.root, "rev-parse", "HEAD") == head
