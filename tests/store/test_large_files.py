"""A memory file too large to read (over MAX_FILE_BYTES): every command stays bounded and says so.

The file is a little over the limit (timings of a 50 MB one are in benchmarks/README.md); what
is checked here is what each command does with it: flush withholds it and commits the rest,
load and search skip it with the reason, lint reports its size, nothing parses it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.store.repo import MemoryRepo
from tests.conftest import git

pytestmark = pytest.mark.slow
NOW = {"APM_GIT_NOW": "2026-03-01"}


def apm(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run((sys.executable, "-m", "apm_git", *args), cwd=root, capture_output=True, text=True,
                          env={**os.environ, **NOW}, timeout=120, check=False)


def huge_lessons(repo: MemoryRepo) -> str:
    """lessons.md just over the limit, in the record format; returns its text."""
    record = ("## [2026-01-{day:02d}] Lesson number {n}\n- Tags: lesson, bulk\n"
              "- Fitness: last_referenced=2026-01-{day:02d}, hit_count=0, decision_value=MEDIUM\n"
              "- Body: a lesson that was written many times over, to make a very large file.\n\n")
    parts, size, n = ["# Lessons\n\n"], 11, 0
    while size <= MAX_FILE_BYTES + 1024:
        n += 1
        part = record.format(day=n % 28 + 1, n=n)
        parts.append(part)
        size += len(part)
    text = "".join(parts)
    (repo.memory / "lessons.md").write_text(text, encoding="utf-8")
    return text


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_flush_withholds_a_file_too_large_and_commits_the_rest(repo: MemoryRepo) -> None:
    text = huge_lessons(repo)
    decisions = repo.memory / "decisions.md"
    decisions.write_text(decisions.read_text(encoding="utf-8") + "\nA note.\n", encoding="utf-8")
    ran = apm(repo.root, "--json", "flush")
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert result["too_large"] == ["memory/lessons.md"] and "memory/lessons.md" in result["withheld"]
    assert "memory/decisions.md" in result["files"] and "memory/lessons.md" not in result["files"]
    assert any("memory/lessons.md:1: apm-budget: 4.0 MB: over the 4.0 MB apm-git reads" in finding
               for finding in result["findings"])
    assert "memory/lessons.md is too large for apm-git to check, so it was NOT committed" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert (repo.memory / "lessons.md").read_text(encoding="utf-8") == text  # untouched on disk
    assert "Lesson number" not in git(repo.root, "show", "HEAD:memory/lessons.md")
    assert git(repo.root, "status", "--porcelain", "--", "memory").strip() == "M memory/lessons.md"
    index = (repo.memory / "INDEX.md").read_text(encoding="utf-8")  # built from the committed lessons.md
    committed = git(repo.root, "show", "HEAD:memory/lessons.md")
    assert f"| lessons.md | {committed.count(chr(10))} |" in index
    again = apm(repo.root, "flush")
    assert again.returncode == 0 and "nothing to flush: the only changes are withheld" in again.stdout


def test_load_search_lint_status_and_hit_stay_bounded(repo: MemoryRepo) -> None:
    huge_lessons(repo)
    assert apm(repo.root, "journal", "add", "small entry", "--kind", "decision").returncode == 0
    loaded = apm(repo.root, "--json", "load", "--intent", "debug")
    assert loaded.returncode == 0, loaded.stderr
    skipped = {item["path"]: item["reason"] for item in json.loads(loaded.stdout)["skipped"]}
    assert "over the 4.0 MB apm-git reads" in skipped["memory/lessons.md"]
    found = apm(repo.root, "--json", "search", "lesson")
    assert found.returncode == 0
    assert any("memory/lessons.md is 4.0 MB" in item for item in json.loads(found.stdout)["skipped"])
    lint = apm(repo.root, "lint", "memory/lessons.md")
    assert lint.returncode == 1
    assert "memory/lessons.md:1: apm-budget: 4.0 MB: over the 4.0 MB apm-git reads" in lint.stdout
    status = apm(repo.root, "--json", "status")
    lines = {item["file"]: item["lines"] for item in json.loads(status.stdout)["files"]}
    assert lines["memory/lessons.md"] == (repo.memory / "lessons.md").read_bytes().count(b"\n")
    assert apm(repo.root, "index").returncode == 0
    index = (repo.memory / "INDEX.md").read_text(encoding="utf-8")
    assert f"| lessons.md | {lines['memory/lessons.md']} | — |" in index
    hit = apm(repo.root, "--json", "hit", "2026-03-01-small-entry")
    assert hit.returncode == 0, hit.stderr
    assert any("memory/lessons.md is 4.0 MB" in warning for warning in json.loads(hit.stdout)["warnings"])


def test_a_large_file_committed_by_hand(repo: MemoryRepo) -> None:
    """In HEAD already (a plain `git commit`): later flushes and the hooks' comparison never read it."""
    huge_lessons(repo)
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-q", "--no-verify", "-m", "by hand")
    lint = apm(repo.root, "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert lint.returncode == 1 and "memory/lessons.md:1: apm-budget: 4.0 MB" in lint.stdout
    assert "apm-no-loss" not in lint.stdout
    assert apm(repo.root, "journal", "add", "later entry", "--kind", "lesson").returncode == 0
    flushed = apm(repo.root, "--json", "flush")
    assert flushed.returncode == 0, flushed.stderr
    assert json.loads(flushed.stdout)["withheld"] == []
    assert git(repo.root, "status", "--porcelain", "--", "memory") == ""
    stopped = apm(repo.root, "deep-sleep")
    assert stopped.returncode == 3
    assert "memory/lessons.md is 4.0 MB, over the 4.0 MB apm-git reads" in one_line(stopped.stderr)
    assert git(repo.root, "status", "--porcelain", "--", "memory") == ""


def test_journal_add_to_a_journal_too_large_is_one_line(repo: MemoryRepo) -> None:
    journal = repo.memory / "2026-03-01.md"
    journal.write_bytes(b"# Journal\n\n" + b"x" * (MAX_FILE_BYTES + 1))
    ran = apm(repo.root, "journal", "add", "one more", "--kind", "lesson")
    assert ran.returncode == 3 and "memory/2026-03-01.md is 4.0 MB" in one_line(ran.stderr)
    assert journal.stat().st_size == MAX_FILE_BYTES + 12
