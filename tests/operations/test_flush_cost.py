"""A flush costs what changed (issue 28): its INDEX.md rebuild takes the blob ids the flush's scan already
has, so a file git finds unchanged is neither read nor stat'ed again."""
from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import Any

import pytest

from apm_git.commands.flush import flush
from apm_git.store import cache
from apm_git.store.memory_index import OTHERS_CACHE, build_index
from apm_git.store.repo import MemoryRepo
from apm_git.store.scope import Scope
from tests.checks.helpers import record
from tests.conftest import git

NOTES = 12


def _settled(repo: MemoryRepo) -> None:
    """Notes written an hour ago: no longer racy (store/memory_index.py, RACY_NS)."""
    notes = repo.memory / "notes"
    notes.mkdir()
    hour_ago = time.time() - 3600
    for number in range(NOTES):
        path = notes / f"note-{number}.md"
        path.write_text(f"# Note {number}\n\nSomething worth keeping, number {number}.\n", encoding="utf-8")
        os.utime(path, (hour_ago, hour_ago))


def _journal(repo: MemoryRepo, title: str) -> None:
    today = dt.date.today().isoformat()
    path = repo.memory / f"{today}.md"
    text = path.read_text(encoding="utf-8") if path.exists() else f"# Journal {today}\n\n"
    path.write_text(text + record(today, title, tags="lesson"), encoding="utf-8")


def _stats_of_notes(monkeypatch: pytest.MonkeyPatch, repo: MemoryRepo) -> list[str]:
    """The paths under memory/notes/ that anything stats from here on (a count of steps, not a stand-in)."""
    seen: list[str] = []
    real = os.stat
    notes = str(repo.memory / "notes")

    def counting(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if str(path).startswith(notes):
            seen.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)
    return seen


def test_a_flush_stats_no_file_git_finds_unchanged(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(repo)
    for title in ("First", "Second"):  # the first commits the notes, the second learns their blob ids
        _journal(repo, title)
        assert flush(repo).commit
    rows = cache.read(repo.state_dir / OTHERS_CACHE)
    assert isinstance(rows, dict)
    staged = dict(line.split(" ", 1)[1].split(" 0\t")[::-1] for line in
                  git(repo.root, "ls-files", "-s", "--", "memory/notes").splitlines())
    assert {f"notes/{Path(path).name}": blob for path, blob in staged.items()} == {
        name: row[6] for name, row in rows.items() if name.startswith("notes/")}
    _journal(repo, "Third")
    seen = _stats_of_notes(monkeypatch, repo)
    result = flush(repo)
    assert result.commit and seen == []
    assert "notes/note-3.md" in git(repo.root, "show", "HEAD:memory/INDEX.md")
    build_index(repo, dt.date.today())  # `apm-git index` knows no blob ids: it stats each file
    assert len(seen) == NOTES


def test_a_note_changed_in_the_work_tree_is_read_again(repo: MemoryRepo) -> None:
    _settled(repo)
    for title in ("First", "Second"):
        _journal(repo, title)
        assert flush(repo).commit
    (repo.memory / "notes" / "note-3.md").write_text("# Renamed note\n\n## A new heading\n\nMore.\n", encoding="utf-8")
    assert flush(repo).commit
    index = git(repo.root, "show", "HEAD:memory/INDEX.md")
    assert "A new heading" in index


def _verbs(trace: Path) -> list[str]:
    """The verbs of the git processes run since GIT_TRACE named `trace`, as git's own trace records them."""
    lines = trace.read_text().splitlines() if trace.exists() else []
    return [line.split("trace: built-in: git ", 1)[1].split()[0] for line in lines if "trace: built-in: git " in line]


def test_a_flush_of_one_journal_is_thirteen_git_processes(
    repo: MemoryRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The scan takes the changed and untracked files from the status the flush read (no `diff-files`,
    no `ls-files -o`), and HEAD's commit from the same status (no `rev-parse`, for the scan or the
    commit); a scope narrower than the memory dir asks git itself."""
    _journal(repo, "First")
    assert flush(repo).commit
    _journal(repo, "Second")
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    assert flush(repo).commit
    monkeypatch.delenv("GIT_TRACE")
    assert _verbs(trace) == [
        "status", "ls-files", "diff-index", "cat-file",  # what changed, and its text at HEAD
        "status", "read-tree", "update-index", "write-tree", "ls-files", "config", "commit-tree",
        "update-ref", "update-index",  # the commit, built apart from the user's index, and landed
    ]
    _journal(repo, "Third")
    trace.unlink()
    monkeypatch.setenv("GIT_TRACE", str(trace))
    assert flush(repo, scope=Scope("main")).commit
    assert _verbs(trace)[1:4] == ["ls-files", "diff-files", "ls-files"]
