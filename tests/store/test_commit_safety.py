"""apm-git's commits are built apart from the user's index and land with a compare-and-swap.

Every failure before the branch moves (a signing failure, HEAD moved by someone else, git's
index.lock held) leaves the user's index and work tree byte for byte as they were; staged
deletions and renames of memory files are flushed as what they are; apm-git's own temporary
files are never committed.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from apm_git import git as gateway
from apm_git.commands.flush import flush
from apm_git.commands.journal import add
from apm_git.errors import GitError
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git


def index_and_tree(root: Path) -> tuple[str, str, str, str]:
    """What a failed flush must leave alone: the index entries, staged and unstaged diffs, HEAD."""
    return (
        git(root, "ls-files", "-s"),
        git(root, "diff", "--cached"),
        git(root, "diff"),
        git(root, "rev-parse", "HEAD"),
    )


def test_a_signing_failure_leaves_the_index_exactly_as_it_was(repo: MemoryRepo, run_cli: Invoke) -> None:
    add(repo, "Staged by the user", kind="decision")
    git(repo.root, "add", "memory")  # the user staged the journal ...
    add(repo, "Written after staging", kind="lesson")  # ... and the work tree moved on
    git(repo.root, "config", "commit.gpgsign", "true")
    git(repo.root, "config", "gpg.program", "false")  # signing fails, as with no key
    before = index_and_tree(repo.root)
    ran = run_cli("--repo", str(repo.root), "flush")
    assert ran.exit_code == 3
    assert len(ran.stderr.strip().splitlines()) == 1
    assert index_and_tree(repo.root) == before


def test_signed_commits_stay_signed(repo: MemoryRepo) -> None:
    """`git commit-tree` ignores commit.gpgsign: apm-git passes -S itself, so the user's policy holds."""
    git(repo.root, "config", "commit.gpgsign", "true")
    git(repo.root, "config", "gpg.program", "false")
    add(repo, "A decision", kind="decision")
    with pytest.raises(GitError):
        flush(repo)  # unsigned would have succeeded silently


def test_a_branch_moved_meanwhile_is_never_overwritten(repo: MemoryRepo) -> None:
    add(repo, "A decision", kind="decision")
    parent = gateway.head(repo.root)
    paths = [change.path for change in gateway.status(repo.root, ["memory"])]
    built = gateway.build_commit(repo.root, repo.git_dir, parent, paths, "memory: test\n")
    (repo.root / "other.txt").write_text("someone else's commit\n")
    git(repo.root, "add", "other.txt")
    git(repo.root, "commit", "-q", "-m", "meanwhile")
    moved = gateway.head(repo.root)
    with pytest.raises(GitError, match="branch moved"):
        gateway.move_head(repo.root, built.commit, parent, "test")
    assert gateway.head(repo.root) == moved


def test_a_held_index_lock_fails_before_the_branch_moves(repo: MemoryRepo) -> None:
    add(repo, "A decision", kind="decision")
    before = index_and_tree(repo.root)
    (repo.git_dir / "index.lock").write_text("another git process\n")
    with pytest.raises(GitError, match=r"index\.lock"):
        flush(repo)
    assert (repo.git_dir / "index.lock").read_text() == "another git process\n"  # never deleted
    (repo.git_dir / "index.lock").unlink()
    assert index_and_tree(repo.root) == before


def test_staged_deletion_and_rename_are_flushed_as_what_they_are(repo: MemoryRepo) -> None:
    (repo.memory / "notes.md").write_text("# Notes\n\nkeep me\n")
    (repo.memory / "old.md").write_text("# Old\n\nto be removed\n")
    flush(repo)
    git(repo.root, "mv", "memory/notes.md", "memory/renamed.md")
    git(repo.root, "rm", "-q", "memory/old.md")
    result = flush(repo)
    assert result.commit is not None
    changes = git(repo.root, "show", "-M", "--name-status", "--format=", "HEAD").splitlines()
    assert "R100\tmemory/notes.md\tmemory/renamed.md" in changes
    assert "D\tmemory/old.md" in changes
    assert git(repo.root, "status", "--porcelain") == ""


def test_a_staged_file_deleted_from_the_work_tree_does_not_block_a_flush(repo: MemoryRepo) -> None:
    """A path staged as new and then removed is in neither HEAD nor the work tree."""
    (repo.memory / "brief.md").write_text("# Brief\n")
    git(repo.root, "add", "memory/brief.md")
    (repo.memory / "brief.md").unlink()
    add(repo, "A lesson", kind="lesson")
    result = flush(repo)
    assert result.commit is not None
    assert "memory/brief.md" not in git(repo.root, "ls-files")


def test_temporary_files_left_by_a_kill_are_never_committed(repo: MemoryRepo) -> None:
    running = os.getppid()  # a process that still runs: its file may be a write in progress
    (repo.memory / f".lessons.md.{running}.apm-tmp").write_text("half a write\n")
    add(repo, "A lesson", kind="lesson")
    result = flush(repo)
    assert result.commit is not None
    assert ".apm-tmp" not in git(repo.root, "ls-files")
    assert (repo.memory / f".lessons.md.{running}.apm-tmp").exists()  # not ours to delete while its owner runs


def test_given_contents_are_committed_and_the_work_tree_is_not_touched(repo: MemoryRepo) -> None:
    from apm_git.store.commit import commit

    add(repo, "A lesson", kind="lesson")
    flush(repo)
    journal = next(path for path in (repo.memory).glob("2*.md"))
    rel = f"memory/{journal.name}"
    on_disk = journal.read_bytes()
    journal.write_text("# emptied by hand\n")
    sha = commit(repo, [rel], "keep", [("Apm-Trigger", "manual")], contents={rel: on_disk})
    assert git(repo.root, "rev-parse", "HEAD").strip() == sha
    assert journal.read_text() == "# emptied by hand\n"
    assert git(repo.root, "show", f"HEAD:{rel}").encode() == on_disk
    assert git(repo.root, "diff", "--cached", "--name-only") == ""  # the index holds what was committed
    assert git(repo.root, "diff", "--name-only").split() == [rel]
