"""A memory dir other than `memory/` (`memory_dir: notes` in apm.yaml): every command finds its files there."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.commands.init import init
from apm_git.store.repo import MemoryRepo, open_repo
from tests.conftest import Invoke, git
from tests.records import record, write

NOW = "2026-06-01T09:00:00+00:00"


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    monkeypatch.setenv("APM_GIT_NOW", NOW)
    root = tmp_path / "work"
    root.mkdir()
    (root / "apm.yaml").write_text("memory_dir: notes\n", encoding="utf-8")
    init(root, install=False)
    repo = open_repo(root)
    (repo.memory / "group_names.json").write_text(json.dumps({"room-a": "alpha"}), encoding="utf-8")
    return repo


def test_flush_lint_load_and_rem_use_the_configured_memory_dir(notes: MemoryRepo, run_cli: Invoke) -> None:
    repo = notes
    assert repo.memory == repo.root / "notes" and not (repo.root / "memory").exists()
    ran = run_cli("--repo", str(repo.root), "flush")
    assert ran.exit_code == 0, ran.stderr
    assert (repo.memory / "groups/alpha.md").is_file()

    # A group file that names its conventions file by the repo-relative path.
    (repo.memory / "groups/alpha/project.md").write_text(
        "# Project: alpha\n\nSee notes/groups/alpha/conventions/api.md first.\n", encoding="utf-8")
    (repo.memory / "groups/alpha/conventions").mkdir()
    (repo.memory / "groups/alpha/conventions/api.md").write_text("# API conventions\n", encoding="utf-8")
    write(repo.memory, "decisions.md",
          record("2026-01-10", "Old server config", value="LOW", last="2026-01-10"),
          *(record("2026-05-20", f"Healthy decision {n}", last="2026-05-30", hits=1) for n in range(4)))
    ran = run_cli("--repo", str(repo.root), "--json", "flush")
    assert ran.exit_code == 0, ran.stderr
    flushed = json.loads(ran.stdout)
    assert flushed["findings"] == []
    assert "notes/groups/alpha/conventions/api.md" in flushed["files"]

    ran = run_cli("--repo", str(repo.root), "lint", "--all")
    assert ran.exit_code == 0, ran.stdout + ran.stderr

    ran = run_cli("--repo", str(repo.root), "--json", "load", "--room", "room-a", "--intent", "the api design")
    assert ran.exit_code == 0, ran.stderr
    assert [item["path"] for item in json.loads(ran.stdout)["files"]] == [
        "notes/groups/alpha.md", "notes/groups/alpha/project.md", "notes/groups/alpha/conventions/api.md",
    ]

    ran = run_cli("--repo", str(repo.root), "rem")
    assert ran.exit_code == 0, ran.stderr
    assert "2026-01-10-old-server-config notes/decisions.md -> notes/archive/2026-06.md" in ran.stdout
    assert "Old server config" in (repo.memory / "archive/2026-06.md").read_text(encoding="utf-8")
    assert git(repo.root, "status", "--porcelain") == ""
