"""Issue 23: a command run from an agent hook has a wall-clock bound (APM_GIT_HOOK_TIMEOUT) and stops with one
line and exit 3 when it passes it, leaving no process behind and losing nothing."""
from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store.repo import STATE_DIR, MemoryRepo
from tests.conftest import git

APM = str(Path(sys.executable).parent / "apm-git")
RECALL = str(Path(sys.executable).parent / "apm-git-recall")


def _payload(repo: MemoryRepo, event: str, **extra: str) -> str:
    return json.dumps({"session_id": "sess-1", "hook_event_name": event, "cwd": str(repo.root), **extra})


def _run(args: list[str], payload: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, input=payload, text=True, capture_output=True, check=False,
                          env={**os.environ, **env}, timeout=120)


def _processes_naming(path: Path) -> list[str]:
    """The processes whose command line names `path` (the bounded command's child would)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(str(path).encode() in word for word in words):
                found.append(entry.name)
    return found


def test_a_hook_flush_past_its_bound_stops_with_one_line_and_leaves_nothing_running(repo: MemoryRepo) -> None:
    journal = repo.memory / "2026-04-06.md"
    journal.write_text("# Journal 2026-04-06\n\n- waited for the lock\n")
    head = git(repo.root, "rev-parse", "HEAD")
    lock = repo.git_dir / STATE_DIR / "lock"
    lock.parent.mkdir(exist_ok=True)
    with lock.open("a") as held:  # another writer holds the repository: the flush waits for it
        fcntl.flock(held, fcntl.LOCK_EX)
        ran = _run([APM, "--repo", str(repo.root), "flush", "--hook-input", "-"], _payload(repo, "PreCompact"),
                   APM_GIT_HOOK_TIMEOUT="1", APM_GIT_LOCK_TIMEOUT="60")
        assert _processes_naming(repo.root) == []  # the waiting child was stopped with its parent
    assert ran.returncode == 3, ran.stderr
    (line,) = ran.stderr.splitlines()
    assert "stopped after 1 s, the time bound of a command run from an agent hook (APM_GIT_HOOK_TIMEOUT" in line
    assert git(repo.root, "rev-parse", "HEAD") == head
    assert journal.read_text() == "# Journal 2026-04-06\n\n- waited for the lock\n"
    after = _run([APM, "--repo", str(repo.root), "flush", "--hook-input", "-"], _payload(repo, "PreCompact"))
    assert after.returncode == 0, after.stderr
    assert "memory/2026-04-06.md" in git(repo.root, "show", "--name-only", "--format=", "HEAD")


@pytest.mark.slow
def test_the_bound_passes_the_command_s_own_exit_code_and_output_through(repo: MemoryRepo) -> None:
    started = _run([APM, "--repo", str(repo.root), "load", "--format", "claude-hook", "--hook-input", "-"],
                   _payload(repo, "SessionStart", source="startup"))
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    refused = _run([APM, "--repo", str(repo.root), "flush", "--scope", "nope:x", "--hook-input", "-"],
                   _payload(repo, "SessionEnd"))
    assert refused.returncode == 1 and len(refused.stderr.splitlines()) == 1  # a usage error, never 2 in a hook
    recalled = _run([RECALL, "--repo", str(repo.root), "--hook-input", "-"],
                    _payload(repo, "UserPromptSubmit", prompt="deploy"), APM_GIT_HOOK_TIMEOUT="30")
    assert recalled.returncode == 0, recalled.stderr


@pytest.mark.slow  # waits out the lock's own bound (1 s)
def test_zero_turns_the_bound_off_and_the_lock_s_own_bound_still_holds(repo: MemoryRepo) -> None:
    lock = repo.git_dir / STATE_DIR / "lock"
    lock.parent.mkdir(exist_ok=True)
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        ran = _run([APM, "--repo", str(repo.root), "flush", "--hook-input", "-"], _payload(repo, "PreCompact"),
                   APM_GIT_HOOK_TIMEOUT="0", APM_GIT_LOCK_TIMEOUT="1")
    assert ran.returncode == 3 and "time bound" not in ran.stderr and "another apm-git process" in ran.stderr
