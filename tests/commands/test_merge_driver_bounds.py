"""`apm-git merge-driver` under hostile and heavy input (issue 22, cases 1, 2, 3 and 12): through a real `git
merge`, and called by hand as a separate process with a FIFO, a device and a huge file."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.model.limits import MAX_FILE_BYTES
from tests.commands.test_merge_driver import commit_on, memory, merge, rec
from tests.conftest import Invoke, git

DRIVER_TIMEOUT = 60  # seconds: far more than a merge of three small files takes; a hang fails the test


def driver(tmp_path: Path, base: Path, ours: Path, theirs: Path, path: str) -> subprocess.CompletedProcess[str]:
    """The driver as git starts it: a process of its own, no standard input."""
    return subprocess.run((sys.executable, "-m", "apm_git", "merge-driver", str(base), str(ours), str(theirs), path),
                          cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=DRIVER_TIMEOUT, check=False)


def three(tmp_path: Path) -> tuple[Path, Path, Path]:
    base, ours, theirs = (tmp_path / name for name in ("O", "A", "B"))
    base.write_text("# Decisions\n\n" + rec("Redis cache"))
    ours.write_text("# Decisions\n\n" + rec("Redis cache") + rec("Ours"))
    theirs.write_text("# Decisions\n\n" + rec("Redis cache") + rec("Theirs"))
    return base, ours, theirs


def test_a_fifo_is_refused_at_once_with_one_line(tmp_path: Path) -> None:
    base, ours, theirs = three(tmp_path)
    theirs.unlink()
    os.mkfifo(theirs)  # no writer ever opens it: a plain read would wait for ever
    before = ours.read_bytes()
    ran = driver(tmp_path, base, ours, theirs, "memory/decisions.md")
    assert ran.returncode == 3 and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert "not a regular file" in ran.stderr and "Traceback" not in ran.stderr
    assert ours.read_bytes() == before


@pytest.mark.parametrize("which", ["base", "ours", "theirs"])
def test_dev_zero_is_refused_with_one_line(tmp_path: Path, which: str) -> None:
    files = dict(zip(("base", "ours", "theirs"), three(tmp_path), strict=True))
    files[which] = Path("/dev/zero")
    ran = driver(tmp_path, files["base"], files["ours"], files["theirs"], "memory/decisions.md")
    assert ran.returncode == 3 and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert "not a regular file" in ran.stderr and "MemoryError" not in ran.stderr


def test_a_1_gb_file_is_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    base, ours, theirs = three(tmp_path)
    with theirs.open("r+b") as handle:
        handle.truncate(1024 ** 3)  # sparse: a gigabyte to read, nothing on disk
    before = ours.read_bytes()
    ran = driver(tmp_path, base, ours, theirs, "memory/decisions.md")
    assert ran.returncode == 3 and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert "1024.0 MB, over the 4.0 MB" in ran.stderr and "memory/decisions.md" in ran.stderr
    assert "MemoryError" not in ran.stderr and ours.read_bytes() == before


@pytest.mark.parametrize("data", [b"# Lessons\n\x00\x00 junk", "# Lessons\n".encode("utf-16")], ids=["nul", "utf-16"])
def test_a_version_that_is_not_utf8_markdown_is_refused_and_ours_left(tmp_path: Path, data: bytes) -> None:
    base, ours, theirs = three(tmp_path)
    theirs.write_bytes(data)
    before = ours.read_bytes()
    ran = driver(tmp_path, base, ours, theirs, "memory/decisions.md")
    assert ran.returncode == 3 and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert "their version" in ran.stderr and ours.read_bytes() == before


def unmerged(root: Path) -> list[str]:
    return git(root, "diff", "--name-only", "--diff-filter=U").split()


@pytest.mark.slow
def test_git_merge_of_a_file_made_junk_on_one_branch_is_a_conflict_that_keeps_every_entry(tmp_path: Path) -> None:
    root = memory(tmp_path)
    text = (root / "memory/decisions.md").read_text()
    git(root, "checkout", "-q", "other")
    (root / "memory/decisions.md").write_bytes(text.encode("utf-16"))
    git(root, "commit", "-qam", "re-saved as UTF-16", "--no-verify")
    commit_on(root, "main", {"memory/decisions.md": text + rec("Ours new"),
                             "memory/lessons.md": (root / "memory/lessons.md").read_text() + rec("A lesson")})
    ran = merge(root)
    assert ran.returncode != 0  # git stops: a conflict for a person
    assert unmerged(root) == ["memory/decisions.md"]
    kept = (root / "memory/decisions.md").read_text()
    assert all(title in kept for title in ("Redis cache", "Use uv", "Ours new"))
    assert git(root, "cat-file", "-s", ":3:memory/decisions.md").strip() == str(len(text.encode("utf-16")))  # theirs
    assert "A lesson" in (root / "memory/lessons.md").read_text()


@pytest.mark.slow
def test_git_merge_of_a_12_mb_file_changed_on_both_branches_is_refused_not_half_merged(tmp_path: Path) -> None:
    root = memory(tmp_path)
    big = "memory/2026-04-01.md"
    bulk = "# 2026-04-01\n\n" + "".join(rec(f"Bulk {n:07d} " + "y" * 200) for n in range(12 * 1024 * 1024 // 330))
    assert len(bulk) > 3 * MAX_FILE_BYTES
    commit_on(root, "main", {big: bulk})
    git(root, "branch", "-f", "other", "main")
    commit_on(root, "other", {big: bulk + rec("Theirs")})
    commit_on(root, "main", {big: bulk + rec("Ours")})
    ran = merge(root)
    assert ran.returncode != 0 and unmerged(root) == [big]
    assert "over the 4.0 MB apm-git merges entry by entry" in ran.stdout + ran.stderr
    assert (root / big).read_text() == bulk + rec("Ours")  # ours whole, as git keeps it when the driver refuses


@pytest.mark.slow
def test_git_merge_adds_up_hits_of_one_entry_made_on_both_branches(tmp_path: Path, run_cli: Invoke) -> None:
    root = memory(tmp_path)  # Redis cache: hit_count=1
    text = (root / "memory/decisions.md").read_text()
    commit_on(root, "other", {"memory/decisions.md": text.replace(rec("Redis cache"), rec("Redis cache", hits=3))
                              + rec("Theirs new")})
    commit_on(root, "main", {"memory/decisions.md": text.replace(rec("Redis cache"), rec("Redis cache", hits=2))})
    ran = merge(root)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert rec("Redis cache", hits=4) in (root / "memory/decisions.md").read_text()  # 1 + 2 + 1
