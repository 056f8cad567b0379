"""Issue 23.2: the session-start context says what flush keeps uncommitted for a suspected secret (file, line,
section, kind) and how to clear it, and never holds the secret: its section is left out of what is loaded."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.checks.helpers import record
from tests.conftest import git

NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
AWS_KEY = "AKIA" + "Q7XW2M4KZP3RT9BN"  # fake, of the real shape
APM = str(Path(sys.executable).parent / "apm-git")


def _session_start(repo: MemoryRepo) -> tuple[int, str, str]:
    payload = {"session_id": "sess-1", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo.root)}
    ran = subprocess.run([APM, "load", "--format", "claude-hook", "--hook-input", "-"], input=json.dumps(payload),
                         text=True, capture_output=True, cwd=repo.root, check=False, env={**os.environ, **NOW})
    context = json.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"] if ran.returncode == 0 else ""
    return ran.returncode, context, ran.stderr


@pytest.mark.slow
def test_session_start_names_the_withheld_section_and_never_loads_the_secret(repo: MemoryRepo) -> None:
    journal = repo.memory / "2026-04-06.md"
    journal.write_text("# Journal 2026-04-06\n\n" + record("2026-04-06", "Pinned the runner image", tags="lesson")
                       + "\n" + record("2026-04-06", "Rotated the deploy key", tags="tool",
                                       body=f"the new key is {AWS_KEY}"))
    subprocess.run([APM, "flush"], cwd=repo.root, capture_output=True, check=False, env={**os.environ, **NOW})
    assert AWS_KEY not in git(repo.root, "log", "-p", "--all")

    code, context, said = _session_start(repo)
    assert code == 0, said
    assert AWS_KEY not in context
    assert "Pinned the runner image" in context  # the rest of the journal is loaded
    assert ("- memory/2026-04-06.md:12, section \"[2026-04-06] Rotated the deploy key\": AWS Access Key"
            in context.splitlines())
    assert "Withheld (suspected secrets)" in context and "`apm-git allow-secret PATH:LINE`" in context
    assert "[apm-git: the rest of this section is left out here: it holds what looks like a credential " \
           "(AWS Access Key)]" in context

    ran = subprocess.run([APM, "allow-secret", "memory/2026-04-06.md:12"], cwd=repo.root, capture_output=True,
                         text=True, check=False, env={**os.environ, **NOW})
    assert ran.returncode == 0, ran.stderr  # a person says it is no secret: shown again, and no longer withheld
    code, context, _ = _session_start(repo)
    assert code == 0 and "Withheld" not in context and f"the new key is {AWS_KEY}" in context


def test_a_json_load_lists_the_withheld_sections(repo: MemoryRepo) -> None:
    journal = repo.memory / "2026-04-06.md"
    journal.write_text(f"# Journal 2026-04-06\n\nthe key is {AWS_KEY}\n")
    ran = subprocess.run([APM, "--json", "load"], cwd=repo.root, capture_output=True, text=True, check=False,
                         env={**os.environ, **NOW})
    assert ran.returncode == 0, ran.stderr
    shown = json.loads(ran.stdout)
    assert shown["withheld"] == [{"path": "memory/2026-04-06.md", "line": 3, "heading": "",
                                  "kinds": ["AWS Access Key"]}]
    assert AWS_KEY not in ran.stdout
