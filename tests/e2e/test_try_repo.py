"""This repository as a pre-commit hook repository (`.pre-commit-hooks.yaml`).

The published manifest is checked two ways on the same memory:

- fast, in every run: each manifest hook as pre-commit reads it (id, entry, files, pass_filenames,
  always_run, require_serial), as a `repo: local` hook run by `pre-commit run`; only `language`
  becomes `system`, so the installed `apm-git-hook-run` runs and no hook environment is built;
- slow, once: one `pre-commit try-repo` of the project's source with every hook, which builds the
  `language: python` environment a user of the hook repository gets (about a minute).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from apm_git.commands.init import init
from tests.checks.helpers import record
from tests.checks.test_no_secrets import SECRETS
from tests.conftest import git

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"

EXPECTED = {
    "apm-budget": "memory/people.md:101: apm-budget: 205/100 lines",
    "apm-record-format": "memory/lessons.md:7: apm-record-format: missing field '- Fitness:'",
    "apm-state-json": "memory/group_names.json:1: apm-state-json: room 'r' maps to unsafe group name '../x'",
    "apm-no-secrets": "memory/tools-config.md:10: apm-no-secrets: looks like a credential (GitHub Token)",
    "apm-append-only": "memory/main/index.md:1: apm-append-only: append-only file deleted",
    "apm-no-loss": "memory/decisions.md:7: apm-no-loss: entry 2026-01-15-old-server-config",
    "apm-index-fresh": "apm-index-fresh: names runbooks.md, which does not exist",
}


def violations(memory: Path) -> None:
    """Violations of the per-file checks committed without checks (--all-files finds them), then
    violations of the cross-file checks staged (they compare HEAD with the index)."""
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
    (memory / "memory/main/index.md").unlink()
    decisions.write_text(decisions.read_text().replace(record("2026-01-15", "Old server config"), ""))
    index = memory / "memory/INDEX.md"
    index.write_text(index.read_text().replace("| people.md |", "| runbooks.md | 1 | — | x |\n| people.md |"))
    git(memory, "add", "-A")


def local_config(path: Path) -> Path:
    """The manifest's hooks as `repo: local` hooks: everything as published but `language`."""
    hooks = YAML(typ="safe").load(MANIFEST.read_text())
    assert {hook["language"] for hook in hooks} == {"python"}
    local = [{**hook, "language": "system"} for hook in hooks]
    config = path / "manifest-as-local.yaml"
    with config.open("w") as handle:
        YAML(typ="safe").dump({"repos": [{"repo": "local", "hooks": local}]}, handle)
    return config


def pre_commit(memory: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run((sys.executable, "-m", "pre_commit", *args), cwd=memory, capture_output=True, text=True,
                          check=False, env={**os.environ, **(env or {})})


@pytest.mark.slow
def test_each_manifest_hook_runs_through_pre_commit(tmp_path: Path) -> None:
    memory = init(tmp_path / "mem", install=False).root
    config = str(local_config(tmp_path))
    clean = pre_commit(memory, "run", "apm-no-loss", "--all-files", "-c", config)
    assert clean.returncode == 0 and "apm-no-loss" in clean.stdout and "Passed" in clean.stdout, clean.stdout
    violations(memory)
    for hook_id, expected in EXPECTED.items():
        ran = pre_commit(memory, "run", hook_id, "--all-files", "-c", config)
        assert ran.returncode == 1, (hook_id, ran.stdout, ran.stderr)
        assert expected in ran.stdout, (hook_id, ran.stdout)


@pytest.mark.slow
def test_try_repo_builds_the_published_hooks_and_runs_them_all(tmp_path: Path) -> None:
    """The only test that pre-commit installs apm-git from this repository (`language: python`)."""
    source = tmp_path / "hook-repo"
    listed = subprocess.run(("git", "ls-files", "-z", "-co", "--exclude-standard"), cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "apm-git under test")
    memory = init(tmp_path / "mem", install=False).root
    violations(memory)
    # No hook id: every hook of the manifest, in one hook environment (try-repo builds it in a temporary store).
    ran = pre_commit(memory, "try-repo", str(source), "--ref", git(source, "rev-parse", "HEAD").strip(), "--all-files")
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    for hook_id, expected in EXPECTED.items():
        assert expected in ran.stdout, (hook_id, ran.stdout)
