"""A team's repository that already uses pre-commit: one person keeps memory in it with apm-git, a teammate
without apm-git clones it and keeps committing code.

Real `git clone`, real `pre-commit install` and real commits through pre-commit's own git hook, the
teammate's PATH holding no apm-git.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.commands.init import init
from apm_git.operations.precommit import hook_command
from tests.checks.helpers import record
from tests.conftest import BIN, git

MINIMAL_PATH = "/usr/bin:/bin"
TEAM_CONFIG = """\
# the team's own hooks
repos:
  - repo: local
    hooks:
      - id: no-breakpoints
        name: no breakpoints left in
        entry: 'breakpoint\\(\\)'
        language: pygrep
        files: \\.py$
"""
HINT = ("apm-checks: apm-git is not installed here, so the memory checks cannot run: install apm-git, then run "
        "apm-git setup in this clone; or commit without them: SKIP=apm-checks git commit")


def commit(root: Path, message: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`git commit -am` as a teammate runs it: pre-commit's git hook, a PATH without apm-git."""
    return subprocess.run(("git", "commit", "-qam", message), cwd=root, capture_output=True, text=True, check=False,
                          env={**os.environ, "PATH": MINIMAL_PATH, **env})


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path]:
    """The shared repository (bare) after Alice added her memory; Bob's fresh clone with the team's hooks."""
    if shutil.which("git", path=MINIMAL_PATH) is None or shutil.which("sh", path=MINIMAL_PATH) is None:
        pytest.skip(f"git and sh are not in {MINIMAL_PATH} on this machine")
    if shutil.which("apm-git-hook-run", path=MINIMAL_PATH) is not None:
        pytest.skip(f"apm-git is installed in {MINIMAL_PATH}: the teammate needs a PATH without it")
    shared = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", str(shared))
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(shared), str(alice))
    (alice / "src").mkdir()
    (alice / "src/app.py").write_text("print('shop')\n")
    (alice / ".pre-commit-config.yaml").write_text(TEAM_CONFIG)
    git(alice, "add", "-A")
    git(alice, "commit", "-qm", "the shop")
    result = init(alice)  # with `pre-commit install`, as a user runs it
    assert result.hooks_installed, result.warning
    git(alice, "push", "-q", "origin", "HEAD:main")
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(shared), str(bob))
    subprocess.run((sys.executable, "-m", "pre_commit", "install"), cwd=bob, check=True, capture_output=True)
    return alice, bob


@pytest.mark.slow
def test_a_teammate_without_apm_git_commits_code_and_is_told_how_to_commit_memory(team: tuple[Path, Path]) -> None:
    alice, bob = team
    shared_config = (bob / ".pre-commit-config.yaml").read_text()
    for machine_specific in (str(alice.parent), BIN):
        assert machine_specific not in shared_config, machine_specific
    assert "# the team's own hooks" in shared_config and "id: no-breakpoints" in shared_config
    assert git(bob, "config", "--get", "apm-git.apm-git-hook-run", check=False) == ""

    (bob / "src/app.py").write_text("print('shop, now with a cart')\n")
    code = commit(bob, "a cart")
    assert code.returncode == 0, code.stdout + code.stderr
    assert "apm-checks" in code.stderr and "apm-git" not in code.stderr.replace("apm-checks", "")
    assert "no breakpoints left in" in code.stderr  # the team's own hook still runs

    decisions = bob / "memory/decisions.md"
    decisions.write_text(decisions.read_text() + "\n" + record("2026-04-06", "Carts expire after a day"))
    memory = commit(bob, "a decision")
    output = memory.stdout + memory.stderr
    assert memory.returncode == 1, output
    assert [line for line in output.splitlines() if "apm-git" in line] == [HINT]
    assert "127" not in output and "not found" not in output
    assert git(bob, "log", "-1", "--format=%s").strip() == "a cart", "the memory commit was refused"
    skipped = commit(bob, "a decision", SKIP="apm-checks")
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr

    # A commit that only deletes a memory file reaches the hook too (pre-commit hands it no file name).
    git(bob, "rm", "-q", "memory/lessons.md")
    deleted = subprocess.run(("git", "commit", "-qm", "no lessons"), cwd=bob, capture_output=True, text=True,
                             check=False, env={**os.environ, "PATH": MINIMAL_PATH})
    assert deleted.returncode == 1 and HINT in deleted.stdout + deleted.stderr


@pytest.mark.slow
def test_the_member_with_apm_git_still_gets_the_checks_from_an_ide(team: tuple[Path, Path]) -> None:
    """Alice's clone registered its own path to the hook program: a commit whose PATH lacks apm-git checks."""
    alice, _ = team
    git(alice, "rm", "-q", "memory/main/index.md")  # a deletion alone: the append-only index is checked
    gone = commit(alice, "no DM index")
    assert gone.returncode == 1 and "apm-append-only" in gone.stderr and "append-only file deleted" in gone.stderr
    git(alice, "reset", "-q", "--hard")
    decisions = alice / "memory/decisions.md"
    decisions.write_text(decisions.read_text() + "\n## [2026-04-06] A record without fields\n")
    ran = commit(alice, "a broken record")
    assert ran.returncode == 1
    assert "apm-record-format" in ran.stderr and "not installed" not in ran.stderr
    (alice / "src/app.py").write_text("print('shop v2')\n")
    git(alice, "checkout", "-q", "--", "memory/decisions.md")
    assert commit(alice, "code only").returncode == 0


def test_init_brings_the_entry_an_older_apm_git_wrote_to_the_shared_form(tmp_path: Path) -> None:
    root = tmp_path / "old"
    root.mkdir()
    git(root, "init", "-q")
    old_entry = ("sh -c 'h=/home/alice/.venv/bin/apm-git-hook-run; [ -x \"$h\" ] || h=apm-git-hook-run; "
                 "exec \"$h\" \"$@\"' apm-git-hook-run apm-checks")
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n  # apm-git: memory checks\n  - repo: local\n    hooks:\n      - id: apm-checks\n"
        "        name: apm-checks\n"
        f"        entry: {json.dumps(old_entry)}\n"
        "        language: system\n        files: ^memory/\n        require_serial: true\n        always_run: true\n"
        "      - id: mine\n        name: mine\n        entry: 'TODO'\n        language: pygrep\n")
    result = init(root, install=False)
    assert ".pre-commit-config.yaml" in result.updated
    text = (root / ".pre-commit-config.yaml").read_text()
    assert "/home/alice" not in text and "files: ^(memory/|apm\\.yaml$)" in text
    assert hook_command("apm-git-hook-run", "memory") in text and "always_run: true" in text
    assert "# apm-git: memory checks" in text and "id: mine" in text
