"""A commit made while a flush checks (the user's own `git commit`, a hook of theirs): the flush compares with
the HEAD its status read and builds on it; when the branch has moved by the time it lands, the same commit goes
on top of the new HEAD if the scope's memory is as the flush compared it, and nothing changes if it is not."""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

from apm_git import git as gateway
from apm_git.commands.flush import flush
from apm_git.errors import BranchMoved
from apm_git.store.repo import MemoryRepo
from tests.checks.helpers import record
from tests.conftest import git


def _journal(repo: MemoryRepo, title: str) -> None:
    today = dt.date.today().isoformat()
    path = repo.memory / f"{today}.md"
    text = path.read_text(encoding="utf-8") if path.exists() else f"# Journal {today}\n\n"
    path.write_text(text + record(today, title, tags="lesson"), encoding="utf-8")


def _commit_after_the_status(monkeypatch: pytest.MonkeyPatch, repo: MemoryRepo, change: Callable[[], str]) -> None:
    """Right after the flush's status, a real `git commit` of what `change` writes (its path)."""
    status_at_head = gateway.status_at_head

    def then_commit(root: Any, pathspecs: Any) -> Any:
        found = status_at_head(root, pathspecs)
        path = change()
        git(repo.root, "add", "--", path)
        git(repo.root, "commit", "-q", "--no-verify", "-m", "the user's own commit", "--", path)
        monkeypatch.setattr(gateway, "status_at_head", status_at_head)  # once
        return found

    monkeypatch.setattr(gateway, "status_at_head", then_commit)


def test_a_commit_of_other_files_meanwhile_gets_the_flush_on_top(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _journal(repo, "First")
    assert flush(repo).commit

    def code() -> str:
        (repo.root / "app.py").write_text("print('hello')\n", encoding="utf-8")
        return "app.py"

    _journal(repo, "Second")
    _commit_after_the_status(monkeypatch, repo, code)
    result = flush(repo)
    assert result.commit and gateway.head(repo.root) == result.commit
    parent = git(repo.root, "rev-parse", f"{result.commit}^").strip()
    assert git(repo.root, "log", "-1", "--format=%s", parent).strip() == "the user's own commit"
    assert git(repo.root, "show", f"{result.commit}:app.py") == "print('hello')\n"  # theirs, kept
    assert "Second" in git(repo.root, "show", f"{result.commit}:memory/{dt.date.today().isoformat()}.md")
    assert git(repo.root, "status", "--porcelain", "--", "memory") == ""


def test_a_commit_of_memory_meanwhile_stops_the_flush_and_changes_nothing(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _journal(repo, "First")
    assert flush(repo).commit

    def memory() -> str:
        (repo.memory / "notes-by-hand.md").write_text("# Notes\n\nWritten and committed by hand.\n", encoding="utf-8")
        return "memory/notes-by-hand.md"

    _journal(repo, "Second")
    _commit_after_the_status(monkeypatch, repo, memory)
    with pytest.raises(BranchMoved):
        flush(repo)
    assert git(repo.root, "log", "-1", "--format=%s").strip() == "the user's own commit"  # nothing on top
    assert git(repo.root, "status", "--porcelain", "--", "memory/INDEX.md", "memory/flush-state.json") == ""
    assert "Second" in (repo.memory / f"{dt.date.today().isoformat()}.md").read_text(encoding="utf-8")  # unsaved, kept
