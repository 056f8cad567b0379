"""A consolidation that fails before its branch moves leaves the work tree, the index and the branch as they were.

The failures are real: git's own index.lock held by "another process" (the commit is built, and
refused before the branch moves), and a file sitting where a folder must be (a journal move that
could not be written: found before anything is committed or written).
"""
from __future__ import annotations

import pytest

from apm_git.commands.flush import flush
from apm_git.store.repo import MemoryRepo
from tests.commands.test_deep_sleep import head, snapshot
from tests.conftest import Invoke, git
from tests.records import record, write


@pytest.fixture
def due(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-10T09:00:00+00:00")
    write(repo.memory, "2026-03-01.md", record("2026-03-01", "Old pending", "pending"))
    write(repo.memory, "2026-04-09.md", record("2026-04-09", "Token refresh race", "lesson"),
          record("2026-04-09", "Use Redis", "decision", value="HIGH"))
    flush(repo)
    return repo


@pytest.mark.slow
def test_a_commit_refused_before_the_branch_moves_changes_nothing(due: MemoryRepo, run_cli: Invoke) -> None:
    before, files = head(due.root), snapshot(due.root)
    lock = due.git_dir / "index.lock"
    lock.write_text("held by another git process\n")
    ran = run_cli("--repo", str(due.root), "deep-sleep")
    assert ran.exit_code == 3
    assert "index.lock" in ran.stderr and len(ran.stderr.strip().splitlines()) == 1
    assert lock.read_text() == "held by another git process\n"  # never deleted
    lock.unlink()
    assert head(due.root) == before and snapshot(due.root) == files
    assert not (due.memory / "archive").exists()
    assert git(due.root, "status", "--porcelain") == ""
    assert run_cli("--repo", str(due.root), "deep-sleep").exit_code == 0  # and it runs once the lock is gone


def test_a_write_that_cannot_be_made_changes_nothing(due: MemoryRepo, run_cli: Invoke) -> None:
    (due.memory / "archive").mkdir()
    (due.memory / "archive/journals").write_text("a file where the journal archive folder must be\n")
    flush(due)
    before, files = head(due.root), snapshot(due.root)
    ran = run_cli("--repo", str(due.root), "deep-sleep")
    assert ran.exit_code == 3
    assert ran.stderr == (
        "apm-git: deep-sleep could not write the memory (memory/archive/journals is a file where a folder must be); "
        "nothing was changed — move it away, then run it again\n"
    )
    assert head(due.root) == before and snapshot(due.root) == files
    assert git(due.root, "status", "--porcelain") == ""
