"""store/writer.py: writing as one step, and what it did on the side said by whoever opened the repository."""
from __future__ import annotations

from pathlib import Path

import pytest

from apm_git.store import landing, lock
from apm_git.store.repo import MemoryRepo, open_repo
from tests.conftest import git, run_apm


def test_lock_and_landing_know_nothing_of_each_other_or_of_the_writer() -> None:
    """The writer composes the lock and the landing; neither imports the other or the writer (no cycle)."""
    for module, others in ((lock, ("landing", "writer")), (landing, ("store.lock", "store.writer", "write_lock"))):
        code = Path(module.__file__ or "").read_text(encoding="utf-8").split('"""', 2)[2]  # past the docstring
        assert not [other for other in others if other in code], module.__name__


@pytest.mark.slow
def test_a_commit_made_as_apm_git_is_said_once_by_the_command_that_made_it(repo: MemoryRepo, tmp_path: Path) -> None:
    git(repo.root, "config", "user.useConfigOnly", "true")  # no identity may be guessed: git refuses to commit
    home = tmp_path / "no-identity-home"
    home.mkdir()
    journal = repo.memory / "lessons.md"
    journal.write_text(journal.read_text(encoding="utf-8") + "\nA note.\n", encoding="utf-8")
    ran = run_apm("flush", cwd=repo.root, env={"HOME": str(home)})
    assert ran.exit_code == 0, ran.stderr
    assert ran.stderr.count("git has no user identity here") == 1
    assert "apm-git@localhost" in git(repo.root, "log", "-1", "--format=%ae")
    again = run_apm("status", cwd=repo.root, env={"HOME": str(home)})
    assert "no user identity" not in again.stderr  # said by the run that committed, not kept for later runs


def test_notes_belong_to_the_repository_that_was_opened(repo: MemoryRepo) -> None:
    """Two openings of the same memory (two MCP calls) do not hand each other their notes."""
    first, second = open_repo(repo.root), open_repo(repo.root)
    first.note("one")
    first.note("one")
    assert second.take_notes() == []
    assert first.take_notes() == ["one"]
    assert first.take_notes() == []


@pytest.mark.slow  # two processes of their own (0.27 s of CPU)
def test_a_reader_with_no_interrupted_commit_never_loads_gits_gateway(repo: MemoryRepo) -> None:
    """`finish_pending` asks whether a landing was cut short without importing the landing: a search that
    re-indexes nothing starts no git process, so it does not pay for importing git's gateway either."""
    import subprocess
    import sys

    run_apm("search", "redis", cwd=repo.root)  # the index is built (that may hash files)
    ran = subprocess.run([sys.executable, "-X", "importtime", "-m", "apm_git", "--repo", str(repo.root), "search",
                          "redis"], capture_output=True, check=True)
    imported = {line.rsplit("|", 1)[-1].strip() for line in ran.stderr.decode().splitlines() if "|" in line}
    assert "apm_git.store.writer" in imported
    assert "apm_git.git" not in imported and "apm_git.store.landing" not in imported
    (repo.git_dir / "apm-git" / landing.JOURNAL).write_text("{", encoding="utf-8")  # a journal cut short
    ran = subprocess.run([sys.executable, "-X", "importtime", "-m", "apm_git", "--repo", str(repo.root), "search",
                          "redis"], capture_output=True, check=False)
    imported = {line.rsplit("|", 1)[-1].strip() for line in ran.stderr.decode().splitlines() if "|" in line}
    assert "apm_git.store.landing" in imported  # a journal there: the landing reads it
