from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.commands.init import init
from apm_git.model.config import Config
from apm_git.store.config import load_config
from apm_git.store.templates import tree
from tests.conftest import Invoke, git

DREAMING = ["INDEX.md", "decisions.md", "lessons.md", "project-context.md", "people.md", "tools-config.md"]


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*")) if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def test_init_creates_the_layout_and_commits(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "new"
    ran = run_cli("init", str(root), "--no-install")
    assert ran.exit_code == 0, ran.stderr
    for name in [*DREAMING, "group_names.json", "flush-state.json", "main/index.md", "main/attention.md",
                 "main/longterm.md", "main/daily-synced.md"]:
        assert (root / "memory" / name).is_file(), name
    assert load_config(root) == Config()
    assert "# Decisions" in (root / "memory/decisions.md").read_text()
    assert json.loads((root / "memory/flush-state.json").read_text()) == {
        "groups": {"last_flush_time": None}, "main_session": {"last_flush_time": None}, "pending_items": [],
    }
    assert "## Hot Files" in (root / "memory/INDEX.md").read_text()
    assert "diff=apm-memory" in (root / ".gitattributes").read_text()
    assert git(root, "config", "diff.apm-memory.xfuncname").strip() == "^## .*$"
    assert git(root, "log", "--format=%s").splitlines() == ["memory: init"]
    assert git(root, "status", "--porcelain") == ""
    assert "Apm-Trigger: init" in git(root, "log", "-1", "--format=%B")


def test_second_init_changes_nothing(tmp_path: Path) -> None:
    first = init(tmp_path / "m", install=False)
    before = snapshot(first.root)
    head = git(first.root, "rev-parse", "HEAD")
    second = init(tmp_path / "m", install=False)
    assert second.created == [] and second.updated == [] and second.commit is None
    assert snapshot(first.root) == before
    assert git(first.root, "rev-parse", "HEAD") == head


def test_init_never_overwrites_and_keeps_user_staging(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    git(root, "init", "-q")
    (root / "memory").mkdir()
    (root / "memory/decisions.md").write_text("# My decisions\n")
    (root / ".gitattributes").write_text("*.png binary\n")
    (root / "code.py").write_text("print(1)\n")
    git(root, "add", "code.py")
    (root / "MEMORY.md").write_text("I prefer short answers.\n")
    result = init(root, install=False)
    assert (root / "memory/decisions.md").read_text() == "# My decisions\n"
    assert "memory/decisions.md" not in result.created
    assert (root / ".gitattributes").read_text().startswith("*.png binary\n")
    assert "I prefer short answers." in (root / "memory/main/longterm.md").read_text()
    assert git(root, "status", "--porcelain", "--", "code.py").startswith("A ")
    assert "code.py" not in git(root, "show", "--name-only", "--format=", "HEAD")
    assert "MEMORY.md" not in git(root, "show", "--name-only", "--format=", "HEAD")


def test_init_inside_a_subfolder_uses_the_repository_root(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    git(root, "init", "-q")
    result = init(root / "src", install=False)
    assert result.root == root and (root / "apm.yaml").is_file() and not result.git_initialized


@pytest.mark.slow
def test_init_creates_mapped_groups(tmp_path: Path) -> None:
    root = tmp_path / "g"
    (root / "memory").mkdir(parents=True)
    (root / "memory/group_names.json").write_text('{"room-1": "team-a"}\n')
    init(root, install=False)
    index = (root / "memory/groups/team-a.md").read_text()
    assert "room-1" in index and "| attention.md | P0 |" in index
    assert (root / "memory/groups/team-a/experience.md").is_file()


def test_templates_are_all_used() -> None:
    assert set(tree("init")) >= {"apm.yaml", ".gitattributes", "memory/decisions.md", "memory/flush-state.json"}
