"""A `.pre-commit-config.yaml` written before `apm-checks` moves to it; nothing else in the file changes."""
from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML

from apm_git.commands.init import init
from apm_git.operations import precommit
from tests.conftest import Invoke, git

OLD_SH = ("sh -c 'h=$(git config --get apm-git.apm-git-hook) && [ -x \"$h\" ] || h=$(command -v apm-git-hook) || "
          "{ echo \"$1: apm-git is not installed here\"; exit 1; }; exec \"$h\" \"$@\"' apm-git-hook")
BEFORE = """# my hooks; keep this comment
default_stages: [pre-commit]
repos:
    -   repo: https://github.com/pre-commit/pre-commit-hooks
        rev: v4.6.0   # pinned on purpose
        hooks:
        -   id: trailing-whitespace
        -   {id: end-of-file-fixer, exclude: "^memory/"}

    # apm-git: memory checks
    -   repo: local
        hooks:
        -   id: lint-docs
            name: "lint docs"
            entry: ./scripts/lint-docs
            language: script
"""
OLD = f"""        -   id: apm-budget
            name: apm-budget
            entry: |-
              {OLD_SH} apm-budget
            language: system
            files: ^(memory/|apm\\.yaml$)
            require_serial: true
        # a comment of the person's, between two old hooks: kept
        -   id: apm-no-loss
            name: apm-no-loss
            entry: apm-git-hook apm-no-loss
            language: system
            pass_filenames: false
            always_run: true
"""
KEPT = "        # a comment of the person's, between two old hooks: kept\n"
MINE = """        -   id: my-own
            name: my own check
            entry: 'true'
            language: system
"""
OLD_LAST = """        -   id: apm-record-format
            name: apm-record-format
            entry: /opt/venv/bin/apm-git-hook apm-record-format
            language: system
"""
AFTER = """
    -   repo: https://example.invalid/apm-git
        rev: v0.9.0
        hooks:
        -   id: apm-state-json   # a remote revision's own hook: left alone
# trailing comment
"""


def config(root: Path, text: str) -> Path:
    root.mkdir(exist_ok=True)
    git(root, "init", "-q")
    path = root / precommit.CONFIG
    path.write_text(text)
    return path


def block(column: int) -> str:
    """The `apm-checks` hook `init` writes, at the column of a list's dash."""
    hook = precommit._hooks([precommit.EVERY], "memory")[0]
    return "".join(" " * column + line for line in precommit._dump([hook], 2, 2, 0).splitlines(keepends=True))


def ids(text: str) -> list[list[str]]:
    data = YAML(typ="safe").load(text)
    return [[hook["id"] for hook in repo["hooks"]] for repo in data["repos"]]


def test_the_separate_hooks_become_apm_checks_and_every_other_byte_stays(tmp_path: Path) -> None:
    path = config(tmp_path / "p", BEFORE + OLD + MINE + OLD_LAST + AFTER)
    migrated = precommit.migrated_config(tmp_path / "p", "memory")
    assert migrated == BEFORE + block(8) + KEPT + MINE + AFTER
    assert ids(migrated) == [["trailing-whitespace", "end-of-file-fixer"],
                             ["lint-docs", "apm-checks", "my-own"], ["apm-state-json"]]
    path.write_text(migrated)
    assert precommit.migrated_config(tmp_path / "p", "memory") is None  # once
    assert precommit.with_apm_hooks(tmp_path / "p", "memory") is None  # and init adds nothing on top


def test_init_migrates_and_commits_the_config(tmp_path: Path) -> None:
    root = tmp_path / "p"
    config(root, BEFORE + OLD + MINE + OLD_LAST + AFTER)
    result = init(root, install=False)
    assert precommit.CONFIG in result.updated
    text = git(root, "show", f"HEAD:{precommit.CONFIG}")
    assert text == BEFORE + block(8) + KEPT + MINE + AFTER


def test_setup_migrates_and_leaves_the_change_to_commit(tmp_path: Path, run_cli: Invoke) -> None:
    origin = tmp_path / "origin"
    init(origin, install=False)
    (origin / precommit.CONFIG).write_text("repos:\n- repo: local\n  hooks:\n" + "".join(
        f"  - id: {hook}\n    name: {hook}\n    entry: apm-git-hook {hook}\n    language: system\n"
        for hook in ("apm-budget", "apm-no-secrets")))
    git(origin, "commit", "-qam", "the hooks of an apm-git before apm-checks", "--no-verify")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    ran = run_cli("--repo", str(clone), "setup", "--no-install")
    assert ran.exit_code == 0, ran.stderr
    assert ("apm-git: registered `apm-checks` in .pre-commit-config.yaml, in place of the separate apm hooks "
            "(commit the change)") in ran.stdout.splitlines()
    text = (clone / precommit.CONFIG).read_text()
    assert text == "repos:\n- repo: local\n  hooks:\n" + block(2)
    assert git(clone, "status", "--porcelain").strip() == f"M {precommit.CONFIG}"
    again = run_cli("--repo", str(clone), "setup", "--no-install")
    assert again.exit_code == 0 and "apm-checks" not in again.stdout
    assert (clone / precommit.CONFIG).read_text() == text


def test_a_list_that_has_apm_checks_already_only_loses_the_separate_hooks(tmp_path: Path) -> None:
    text = ("repos:\n- repo: local\n  hooks:\n  - id: apm-checks\n    name: apm-checks\n"
            "    entry: apm-git-hook-run apm-checks\n    language: system\n"
            "  - id: apm-budget\n    name: apm-budget\n    entry: apm-git-hook apm-budget\n    language: system\n")
    config(tmp_path / "p", text)
    migrated = precommit.migrated_config(tmp_path / "p", "memory")
    assert migrated == text.split("  - id: apm-budget")[0]


def test_hooks_that_are_not_the_old_ones_are_left_alone(tmp_path: Path) -> None:
    """A remote repo's ids run its pinned revision; a local hook of the person's own with a check's id
    runs the person's program: neither is migrated, and `apm-checks` is not added on top."""
    text = ("repos:\n- repo: https://example.invalid/apm-git\n  rev: v0.9.0\n  hooks:\n  - id: apm-budget\n"
            "- repo: local\n  hooks:\n  - id: apm-no-secrets\n    name: mine\n    entry: ./my-scanner\n"
            "    language: script\n")
    config(tmp_path / "p", text)
    assert precommit.migrated_config(tmp_path / "p", "memory") is None
    assert precommit.with_apm_hooks(tmp_path / "p", "memory") is None


def test_a_flow_style_list_is_migrated_through_the_round_trip(tmp_path: Path) -> None:
    config(tmp_path / "p", "repos:\n- repo: local\n  hooks: [{id: mine, name: mine, entry: 'true', language: system},"
                           " {id: apm-budget, name: apm-budget, entry: apm-git-hook apm-budget, language: system}]\n")
    migrated = precommit.migrated_config(tmp_path / "p", "memory")
    assert migrated is not None and ids(migrated) == [["mine", "apm-checks"]]
    assert "apm-git-hook-run apm-checks" in migrated


def test_a_broken_config_stops_setup_with_one_line(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "p"
    init(root, install=False)
    (root / precommit.CONFIG).write_text("repos: [\n  - oops\n")
    ran = run_cli("--repo", str(root), "setup", "--no-install")
    assert ran.exit_code == 3 and len(ran.stderr.strip().splitlines()) == 1
    assert ran.stderr.startswith("apm-git: .pre-commit-config.yaml:")
    assert (root / precommit.CONFIG).read_text() == "repos: [\n  - oops\n"
