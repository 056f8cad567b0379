"""Issue 23.1 on real processes: memory with a 2 MB token-like line and with lines of 200,000 characters of the
shapes that made a regular expression go quadratic (spaces where a pattern backtracked, a path run without end)
goes through flush, lint, load, search and deep sleep.

Nothing is timed.  The hook commands run under their own wall-clock bound (APM_GIT_HOOK_TIMEOUT, default 50 s),
so a scan that went quadratic again would end them with exit 3 and fail the exit-code assertions; the other
commands have a generous `timeout` so that such a regression fails instead of hanging the suite."""
from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.checks.helpers import record
from tests.conftest import git

APM = str(Path(sys.executable).parent / "apm-git")
NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
WIDE = 200_000
HANG_GUARD = 900  # seconds: not a measure, only so that a regression fails rather than hangs


def _apm(repo: MemoryRepo, *args: str, payload: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([APM, "--repo", str(repo.root), *args], input=json.dumps(payload) if payload else None,
                          text=True, capture_output=True, check=False, env={**os.environ, **NOW}, timeout=HANG_GUARD)


def _write(repo: MemoryRepo, rel: str, text: str) -> None:
    path = repo.memory / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_long_lines_of_every_hard_shape_pass_through_every_command(repo: MemoryRepo) -> None:
    blob = "".join(random.Random(23).choices(string.ascii_letters + string.digits + "-_", k=2 * 1024 * 1024))
    spaces = " " * WIDE
    _write(repo, "2026-04-06.md", "# Journal 2026-04-06\n\n"
           + record("2026-04-06", "Pinned the runner image", tags="lesson") + "\n"
           + record("2026-04-06", "Pasted the export", tags="context", body=blob) + "\n"
           + f"## 2026-04-06 12:00{spaces}x\n\nA dated section whose heading runs on.\n\n"
           + f"## Notes{spaces}#x\n\n{'x' * WIDE}\n")
    _write(repo, "lessons.md", "# Lessons\n\n" + record("2026-04-05", "Cache the wheels", tags="lesson").replace(
        "hit_count=0", f"hit_count=0{spaces}"))
    _write(repo, "main/attention.md", f"# Attention (DM)\n\n## Tasks\n\n- [todo] a{spaces}b (updated 2026-04-06)\n")
    _write(repo, "group_names.json", json.dumps({"room-a": "alpha"}))
    assert _apm(repo, "flush", "--scope", "main").returncode == 0
    _write(repo, "groups/alpha/project.md", f"# Project\n\n{'a/' * (WIDE // 2)}conventions\n")
    _write(repo, "groups/alpha.md", "# alpha\n\n## Routing\n\n| Trigger keywords | File | Priority |\n"
                                    f"|---{spaces}x\n| project | project.md | P1 |\n")

    hook = {"session_id": "sess-1", "hook_event_name": "PreCompact", "cwd": str(repo.root), "trigger": "auto"}
    flushed = _apm(repo, "flush", "--hook-input", "-", payload=hook)
    assert flushed.returncode == 1, flushed.stderr  # the over-long run is withheld, with its section only
    assert "(Over-long Token), so it was NOT committed (the rest of the file was)" in flushed.stderr
    committed = git(repo.root, "show", "HEAD:memory/2026-04-06.md")
    assert "Pinned the runner image" in committed and blob[:100] not in committed
    assert "- [todo] a" in git(repo.root, "show", "HEAD:memory/main/attention.md")

    linted = _apm(repo, "lint", "--all")
    assert linted.returncode == 1 and "Over-long Token" in linted.stdout

    start = {"session_id": "sess-1", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo.root)}
    loaded = _apm(repo, "load", "--format", "claude-hook", "--hook-input", "-", payload=start)
    assert loaded.returncode == 0, loaded.stderr
    context = json.loads(loaded.stdout)["hookSpecificOutput"]["additionalContext"]
    assert blob[:100] not in context
    assert "memory/2026-04-06.md:12, section \"[2026-04-06] Pasted the export\"" in context

    assert _apm(repo, "load", "--group", "alpha", "--intent", "project").returncode == 0
    assert _apm(repo, "search", "wheels", "--scan").returncode == 0
    assert _apm(repo, "search", "notes").returncode == 0
    planned = _apm(repo, "--json", "deep-sleep", "--plan")
    assert planned.returncode in (0, 1), planned.stderr
    remembered = _apm(repo, "remember", "--scope", "main", "--task", "a b", "--status", "done")
    assert remembered.returncode == 0, remembered.stderr
