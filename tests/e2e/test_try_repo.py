"""This repository as a pre-commit hook repository: `pre-commit try-repo <it> <id> --all-files` for each hook id.

The project's source is committed into a private repository at a fixed ref; pre-commit
builds the hook environment once per session (PRE_COMMIT_HOME) and reuses it.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.commands.init import init
from tests.checks.helpers import record
from tests.checks.test_no_secrets import SECRETS
from tests.conftest import git

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This project's files, as they are now, committed into a repository of their own."""
    source = tmp_path_factory.mktemp("hook-repo")
    listed = subprocess.run(("git", "ls-files", "-z", "-co", "--exclude-standard"), cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "apm-git under test")
    return source, git(source, "rev-parse", "HEAD").strip()


def try_repo(memory: Path, hook_repo: tuple[Path, str], hook_id: str) -> subprocess.CompletedProcess[str]:
    source, ref = hook_repo
    return subprocess.run(
        (sys.executable, "-m", "pre_commit", "try-repo", str(source), hook_id, "--ref", ref, "--all-files"),
        cwd=memory, capture_output=True, text=True, check=False,
    )


EXPECTED = {
    "apm-budget": "memory/people.md:101: apm-budget: 205/100 lines",
    "apm-record-format": "memory/lessons.md:7: apm-record-format: missing field '- Fitness:'",
    "apm-state-json": "memory/group_names.json:1: apm-state-json: room 'r' maps to unsafe group name '../x'",
    "apm-no-secrets": "memory/tools-config.md:10: apm-no-secrets: looks like a credential (GitHub Token)",
    "apm-append-only": "memory/main/index.md:1: apm-append-only: append-only file deleted",
    "apm-no-loss": "memory/decisions.md:7: apm-no-loss: entry 2026-01-15-old-server-config",
    "apm-index-fresh": "apm-index-fresh: names runbooks.md, which does not exist",
}


@pytest.mark.slow
def test_each_hook_id_runs_through_try_repo(tmp_path: Path, hook_repo: tuple[Path, str]) -> None:
    memory = init(tmp_path / "mem", install=False).root
    clean = try_repo(memory, hook_repo, "apm-no-loss")
    assert clean.returncode == 0 and "apm-no-loss" in clean.stdout and "Passed" in clean.stdout, clean.stdout

    # Violations of the per-file checks, committed without checks: --all-files finds them.
    (memory / "memory/people.md").write_text("# People\n" + "- someone\n" * 204)
    lessons = memory / "memory/lessons.md"
    lessons.write_text(lessons.read_text() + "\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: b\n")
    (memory / "memory/group_names.json").write_text('{"r": "../x"}\n')
    tools = memory / "memory/tools-config.md"
    tools.write_text(tools.read_text() + "\n" + record("2026-04-06", "CI", tags="tool", body=SECRETS["GitHub Token"]))
    decisions = memory / "memory/decisions.md"
    decisions.write_text(decisions.read_text() + "\n" + record("2026-01-15", "Old server config"))
    git(memory, "add", "-A")
    git(memory, "commit", "-qm", "violations, committed with --no-verify", "--no-verify")
    # Violations of the cross-file checks, staged: they compare HEAD with the index.
    (memory / "memory/main/index.md").unlink()
    decisions.write_text(decisions.read_text().replace(record("2026-01-15", "Old server config"), ""))
    index = memory / "memory/INDEX.md"
    index.write_text(index.read_text().replace("| people.md |", "| runbooks.md | 1 | — | x |\n| people.md |"))
    git(memory, "add", "-A")

    for hook_id, expected in EXPECTED.items():
        ran = try_repo(memory, hook_repo, hook_id)
        assert ran.returncode == 1, (hook_id, ran.stdout, ran.stderr)
        assert expected in ran.stdout, (hook_id, ran.stdout)
