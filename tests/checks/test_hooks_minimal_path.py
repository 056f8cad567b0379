"""A commit from an IDE or a GUI: git runs the hooks with a PATH that lacks apm-git's virtualenv."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from apm_git.checks.manifest import RUNNER
from apm_git.commands.init import init
from apm_git.operations.precommit import installed_hook_script
from tests.checks.helpers import record
from tests.conftest import git

MINIMAL_PATH = "/usr/bin:/bin"


def commit_with_minimal_path(root: Path) -> subprocess.CompletedProcess[str]:
    git(root, "add", "-A")
    env = {**os.environ, "PATH": MINIMAL_PATH}
    return subprocess.run(("git", "commit", "-m", "from the IDE"), cwd=root, env=env,
                          capture_output=True, text=True, check=False)


@pytest.fixture
def hooked(tmp_path: Path) -> Path:
    if shutil.which("git", path=MINIMAL_PATH) is None or shutil.which("sh", path=MINIMAL_PATH) is None:
        pytest.skip(f"git and sh are not in {MINIMAL_PATH} on this machine")
    if shutil.which(RUNNER, path=MINIMAL_PATH) is not None:
        pytest.skip(f"apm-git is installed in {MINIMAL_PATH}: the test needs it off the minimal PATH")
    result = init(tmp_path / "mem")
    assert result.hooks_installed, result.warning
    return result.root


def test_the_clone_names_the_installed_hook_script_and_the_shared_config_does_not(hooked: Path) -> None:
    script = installed_hook_script(RUNNER)
    assert script is not None and Path(script).is_absolute()
    assert git(hooked, "config", "--get", f"apm-git.{RUNNER}").strip() == script
    assert str(Path(script).parent) not in (hooked / ".pre-commit-config.yaml").read_text()


@pytest.mark.slow
def test_a_commit_with_a_minimal_path_runs_the_hooks(hooked: Path) -> None:
    decisions = hooked / "memory/decisions.md"
    decisions.write_text(decisions.read_text() + "\n" + record("2026-04-06", "Redis cache strategy"))
    good = commit_with_minimal_path(hooked)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "not found" not in good.stdout + good.stderr and "apm-checks" in good.stdout + good.stderr
    decisions.write_text(decisions.read_text().replace("## [2026-04-06] Redis cache strategy", "## gone"))
    bad = commit_with_minimal_path(hooked)
    assert bad.returncode == 1
    assert "apm-no-loss: entry 2026-04-06-redis-cache-strategy" in bad.stdout + bad.stderr
