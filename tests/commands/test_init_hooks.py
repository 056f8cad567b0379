"""`apm-git init` and `.pre-commit-config.yaml`: created, or extended round-trip; `pre-commit install`."""
from __future__ import annotations

from pathlib import Path

import pytest

from apm_git.checks.manifest import EVERY
from apm_git.commands.init import init
from apm_git.model.vocabulary import CHECK_IDS
from tests.conftest import Invoke, git

USER_CONFIG = """\
# my project's hooks
default_stages: [pre-commit]
repos:
  # formatting first
  - repo: local
    hooks:
      - id: no-tabs  # keep tabs out
        name: no tabs
        entry: "! grep -P '\\\\t'"
        language: system
        files: \\.py$
fail_fast: false  # the end
"""


def hook_ids(text: str) -> list[str]:
    return [line.split("id:")[1].split()[0] for line in text.splitlines() if line.strip().startswith("- id:")]


def test_an_existing_config_keeps_comments_order_and_other_hooks(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".pre-commit-config.yaml").write_text(USER_CONFIG)
    result = init(root, install=False)
    assert ".pre-commit-config.yaml" in result.updated
    text = (root / ".pre-commit-config.yaml").read_text()
    for kept in ("# my project's hooks", "# formatting first", "- id: no-tabs  # keep tabs out",
                 "entry: \"! grep -P '\\\\t'\"", "fail_fast: false  # the end", "default_stages: [pre-commit]"):
        assert kept in text, kept
    assert text.index("default_stages") < text.index("repos:") < text.index("fail_fast")
    assert hook_ids(text) == ["no-tabs", EVERY.id]
    assert "apm-git-hook-run apm-checks\n" in text and "language: system" in text and "always_run: true" in text
    assert "files: ^(memory/|apm\\.yaml$)" in text and "git diff --cached --quiet -- memory apm.yaml" in text
    assert git(root, "show", "HEAD:.pre-commit-config.yaml") == text
    second = init(root, install=False)
    assert second.commit is None and (root / ".pre-commit-config.yaml").read_text() == text


@pytest.mark.slow
def test_init_creates_the_config_and_installs_pre_commit(tmp_path: Path, run_cli: Invoke) -> None:
    ran = run_cli("init", str(tmp_path / "m"))
    assert ran.exit_code == 0, ran.stderr
    assert "installed the pre-commit hook" in ran.stdout
    root = tmp_path / "m"
    assert hook_ids((root / ".pre-commit-config.yaml").read_text()) == [EVERY.id]
    assert "pre-commit" in (root / ".git/hooks/pre-commit").read_text()
    assert ".pre-commit-config.yaml" in git(root, "show", "--name-only", "--format=", "HEAD").split()


def test_a_config_of_separate_apm_hooks_gets_apm_checks_in_their_place(tmp_path: Path) -> None:
    """Configurations written before `apm-checks` are migrated (tests/operations/test_hook_migration.py)."""
    root = tmp_path / "p"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: apm-budget\n    name: mine\n    entry: apm-git-hook apm-budget\n"
        "    language: system\n")
    init(root, install=False)
    text = (root / ".pre-commit-config.yaml").read_text()
    assert hook_ids(text) == [EVERY.id] and "name: mine" not in text
    assert text.count("- repo: local") == 1


def test_a_config_with_the_one_hook_or_all_seven_ends_with_the_one(tmp_path: Path) -> None:
    for number, ids in enumerate(([EVERY.id], list(CHECK_IDS))):
        root = tmp_path / f"c{number}"
        root.mkdir()
        git(root, "init", "-q")
        hooks = "".join(f"  - id: {hook}\n    name: {hook}\n    entry: apm-git-hook {hook}\n    language: system\n"
                        for hook in ids)
        (root / ".pre-commit-config.yaml").write_text("repos:\n- repo: local\n  hooks:\n" + hooks)
        init(root, install=False)
        assert hook_ids((root / ".pre-commit-config.yaml").read_text()) == [EVERY.id]


def test_a_broken_config_stops_init_with_one_line(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "b"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".pre-commit-config.yaml").write_text("repos: [\n  - oops\n")
    ran = run_cli("init", str(root), "--no-install")
    assert ran.exit_code == 3
    assert ran.stderr.strip().startswith("apm-git: .pre-commit-config.yaml:") and "fix it" in ran.stderr
    assert (root / ".pre-commit-config.yaml").read_text() == "repos: [\n  - oops\n"
    assert not (root / "apm.yaml").exists() and not (root / "memory").exists()  # nothing written
    (root / ".pre-commit-config.yaml").write_text("- just a list\n")
    ran = run_cli("init", str(root), "--no-install")
    assert ran.exit_code == 3 and "`repos:` list" in ran.stderr


@pytest.mark.slow
def test_a_failed_install_is_a_warning_naming_the_fix(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "w"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "core.hooksPath", "elsewhere")
    ran = run_cli("--json", "init", str(root))
    assert ran.exit_code == 0
    assert "WARNING: `pre-commit install` failed" in ran.stderr and "run `pre-commit install`" in ran.stderr
    assert '"hooks_installed": false' in ran.stdout
