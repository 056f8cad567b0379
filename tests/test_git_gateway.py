"""The typed functions of the git gateway (apm_git/git.py) on real repositories: what each returns
for the odd cases (no match, a missing object, a rename, a merge, a message with trailers)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from apm_git import git as gateway
from apm_git.errors import GitError
from tests.conftest import git


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "plain"
    root.mkdir()
    gateway.init(root)
    (root / "notes").mkdir()
    (root / "notes" / "a.md").write_text("## [2026-04-06] first\nalpha line\n")
    (root / "notes" / "b.md").write_text("beta\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first\n\nbody line\n\nApm-Trigger: manual\nApm-Forget: x-1 notes/a.md — why")
    return root


def test_log_reads_each_commit_with_its_message_parents_and_a_fixed_string_grep(root: Path) -> None:
    first = gateway.head(root)
    (root / "notes" / "b.md").write_text("beta\nmore\n")
    git(root, "commit", "-q", "-am", "second [not a regex")
    commits = gateway.log(root, ["HEAD"])
    assert [commit.subject for commit in commits] == ["second [not a regex", "first"]
    assert commits[0].parents == (first,) and commits[1].parents == ()
    assert commits[1].message.endswith("Apm-Trigger: manual\nApm-Forget: x-1 notes/a.md — why\n")
    assert commits[0].date[:4].isdigit() and "T" in commits[0].date
    assert [c.subject for c in gateway.log(root, ["HEAD"], grep="[not a")] == ["second [not a regex"]
    assert [c.subject for c in gateway.log(root, ["HEAD"], max_count=1)] == ["second [not a regex"]
    assert gateway.log(root, [f"{first}..HEAD"], grep="Apm-Forget:") == []


def test_log_changes_names_the_source_of_a_rename_and_the_blobs_on_each_side(root: Path) -> None:
    before = gateway.tree_blobs(root, "HEAD", ["notes"])
    git(root, "mv", "notes/a.md", "notes/archived.md")
    git(root, "commit", "-q", "-m", "move")
    logged = gateway.log_changes(root, "HEAD", ["notes/a.md", "notes/archived.md"])
    assert [entry.commit.subject for entry in logged] == ["move", "first"]
    (moved,) = logged[0].changes
    assert (moved.status, moved.old_path, moved.path) == ("R", "notes/a.md", "notes/archived.md")
    assert moved.old_blob == moved.new_blob == before["notes/a.md"]
    (added,) = logged[1].changes
    assert (added.status, added.path, added.old_blob) == ("A", "notes/a.md", "0" * 40)


def test_grep_finds_lines_and_files_by_fixed_string_and_nothing_is_no_error(root: Path) -> None:
    assert gateway.grep_lines(root, "HEAD", ["## [2026-04-06]"], ["notes"]) == [
        ("notes/a.md", "## [2026-04-06] first"),
    ]
    assert gateway.grep_files(root, "HEAD", ["beta", "alpha"], ["notes"]) == ["notes/a.md", "notes/b.md"]
    assert gateway.grep_files(root, "HEAD", ["nowhere"], ["notes"]) == []
    assert gateway.grep_lines(root, "HEAD", [], ["notes"]) == []
    with pytest.raises(GitError, match="git grep"):
        gateway.grep_files(root, "no-such-rev", ["beta"], ["notes"])


def test_blob_sizes_reads_no_blob_and_leaves_a_missing_object_out(root: Path) -> None:
    blobs = gateway.tree_blobs(root, "HEAD", ["notes"])
    missing = "1" * 40
    sizes = gateway.blob_sizes(root, [*blobs.values(), missing])
    assert sizes == {blobs["notes/a.md"]: len("## [2026-04-06] first\nalpha line\n"), blobs["notes/b.md"]: 5}
    assert gateway.blob_sizes(root, []) == {}


@pytest.mark.parametrize("batch", [gateway.SMALL_BATCH, 1])  # one --batch-command, or the two-process way
def test_small_blobs_reads_only_blobs_within_the_limit(root: Path, batch: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gateway, "SMALL_BATCH", batch)
    blobs = gateway.tree_blobs(root, "HEAD", ["notes"])
    big, small, missing = blobs["notes/a.md"], blobs["notes/b.md"], "1" * 40
    sizes, contents = gateway.small_blobs(root, [big, small, missing, small], limit=5)
    assert sizes == {big: len("## [2026-04-06] first\nalpha line\n"), small: 5}
    assert contents == {small: b"beta\n", missing: None}  # the large blob never left git
    assert gateway.small_blobs(root, [], limit=5) == ({}, {})


def test_small_blobs_with_a_git_older_than_2_36(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git before 2.36 refuses `--batch-command` with its usage (exit 129): the two-process way answers."""
    shim = tmp_path / "bin"
    shim.mkdir()
    real = shutil.which("git")
    (shim / "git").write_text('#!/bin/sh\nif [ "$2" = --batch-command ]; then echo "error: unknown option" >&2; '
                              f'exit 129; fi\nexec {real} "$@"\n')
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    blobs = gateway.tree_blobs(root, "HEAD", ["notes"])
    sizes, contents = gateway.small_blobs(root, blobs.values(), limit=5)
    assert contents == {blobs["notes/b.md"]: b"beta\n"} and len(sizes) == 2


def test_small_reads_tracked_git_path_ref_names_rev_list(root: Path) -> None:
    (root / "notes" / "new.md").write_text("untracked\n")
    assert gateway.tracked(root, ["notes"]) == ["notes/a.md", "notes/b.md"]
    assert gateway.git_path(root, "info/exclude") == root / ".git" / "info" / "exclude"
    assert gateway.is_ref_name(root, "refs/heads/agents/one")
    assert not gateway.is_ref_name(root, "refs/heads/a..b")
    assert not gateway.is_ref_name(root, "refs/heads/agents/*")
    assert gateway.is_ref_name(root, "refs/heads/agents/*", pattern=True)
    first = gateway.head(root)
    git(root, "commit", "-q", "--allow-empty", "-m", "empty")
    assert gateway.rev_list(root, "HEAD") == [first, gateway.head(root)]


def test_staged_reads_answer_as_the_two_reads_they_replace(root: Path) -> None:
    (root / "notes" / "b.md").write_text("beta\nstaged\n")
    (root / "notes" / "c.md").write_text("new\n")
    git(root, "add", "-A")
    reads = gateway.StagedReads(root, "HEAD", ["notes"])
    assert reads.listing() == gateway.index_blobs(root, ["notes"])
    changes = reads.changes()
    assert changes == gateway.diff_raw(root, "diff-index", "--cached", "HEAD", pathspecs=["notes"])
    assert sorted((change.status, change.path) for change in changes) == [("A", "notes/c.md"), ("M", "notes/b.md")]


def test_staged_reads_raise_when_read_where_git_failed(tmp_path: Path) -> None:
    unborn = tmp_path / "unborn"
    unborn.mkdir()
    gateway.init(unborn)
    (unborn / "a.md").write_text("a\n")
    git(unborn, "add", "-A")
    reads = gateway.StagedReads(unborn, "HEAD", ["."])  # no HEAD yet: the diff fails, the listing does not
    assert list(reads.listing()) == ["a.md"]
    with pytest.raises(GitError, match=r"^`git diff-index --cached` failed \(128\)"):
        reads.changes()


def test_status_at_head_is_status_and_head_from_one_process(tmp_path: Path) -> None:
    """Porcelain v2 read as v1: every kind of entry, odd names, and the unborn branch."""
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    (root / "mem").mkdir()
    (root / "mem" / "a b.md").write_text("one\n", encoding="utf-8")
    assert gateway.status_at_head(root, ["mem"]) == (None, gateway.status(root, ["mem"]))
    for name in ("kept.md", "gone.md", "staged.md", "both.md", "пути с пробелом.md"):
        (root / "mem" / name).write_text("x\n", encoding="utf-8")
    git(root, "add", "mem")
    git(root, "commit", "-q", "-m", "first")
    (root / "mem" / "a b.md").write_text("two\n", encoding="utf-8")  # " M"
    (root / "mem" / "gone.md").unlink()  # " D"
    (root / "mem" / "staged.md").write_text("y\n", encoding="utf-8")
    git(root, "add", "mem/staged.md")  # "M "
    (root / "mem" / "both.md").write_text("y\n", encoding="utf-8")
    git(root, "add", "mem/both.md")
    (root / "mem" / "both.md").write_text("z\n", encoding="utf-8")  # "MM"
    git(root, "mv", "mem/kept.md", "mem/moved.md")  # no renames: "D " and "A "
    (root / "mem" / "new\tline.md").write_text("n\n", encoding="utf-8")  # "??", a tab in its name
    head, changes = gateway.status_at_head(root, ["mem"])
    assert head == gateway.head(root)
    assert sorted(changes) == sorted(gateway.status(root, ["mem"]))
    assert {change.xy for change in changes} == {" M", " D", "M ", "MM", "D ", "A ", "??"}
    assert gateway.status_at_head(root, []) == (head, [])
