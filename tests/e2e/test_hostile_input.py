"""Hostile input is data (issue 22, case 4): a file name that is not UTF-8, a hook's 5 MB session id, a
remote's unusable state file, a 5 MB journal item.  Real processes on real repositories; each is
handled or refused in one line, nothing is lost, and nothing blocks the other files.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.model.limits import MAX_FILE_BYTES, MAX_ITEM_BYTES, MAX_SESSION_CHARS
from apm_git.store.repo import MemoryRepo
from tests.conftest import git
from tests.sync_helpers import bare_remote, clone, first_clone

ODD = b"memory/caf\xe9.md"  # Latin-1 bytes: not UTF-8
SHOWN = "memory/caf\\xe9.md"
RECORD = "## [2026-01-05] Cafe notes\n- Tags: lesson\n- Fitness: last_referenced=2026-01-05, hit_count=0, " \
         "decision_value=LOW\n- Body: the espresso machine needs descaling\n"


def apm(root: Path, *args: str, stdin: str | None = None, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run((sys.executable, "-m", "apm_git", *args), cwd=root, capture_output=True, text=True,
                          input=stdin, timeout=timeout, env=dict(os.environ), check=False)


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, (proc.stdout, proc.stderr)
    return proc.stderr


def commit_odd_file_by_hand(root: Path) -> None:
    """The odd file committed with git plumbing, bypassing every hook (as a sync from another system brings it)."""
    (root / os.fsdecode(ODD)).write_bytes(b"# Cafe\n\n" + RECORD.encode())
    blob = git(root, "hash-object", "-w", "--", os.fsdecode(ODD)).strip()
    git(root, "update-index", "--add", "--cacheinfo", f"100644,{blob},{os.fsdecode(ODD)}")
    git(root, "commit", "--quiet", "--no-verify", "-m", "a file saved on a Latin-1 system")


@pytest.mark.slow
def test_a_file_whose_name_is_not_utf8_is_skipped_with_one_line_and_blocks_nothing(repo: MemoryRepo) -> None:
    root = repo.root
    commit_odd_file_by_hand(root)
    (root / os.fsdecode(ODD)).write_bytes(b"# Cafe\n\n" + RECORD.encode() + b"\nedited since\n")
    ok(apm(root, "journal", "add", "deploys run from the release branch", "--kind", "decision"))
    said = ok(apm(root, "flush"))
    assert said.count(SHOWN) == 1 and "not valid UTF-8" in said and "git mv" in said
    changed = git(root, "show", "--name-only", "--format=", "HEAD").split()
    assert any(path.startswith("memory/20") for path in changed), "the other files were committed"
    assert git(root, "status", "--porcelain", "-z", "--", "memory").encode("utf-8", "surrogateescape") \
        .startswith(b" M "), "the odd file stays as it is, uncommitted"
    for command in (["index"], ["search", "release branch"], ["load", "--intent", "release deploys"],
                    ["load", "--format", "claude-hook"], ["status"], ["lint", "--all"], ["dream"],
                    ["recall", "espresso"]):
        proc = apm(root, *command)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, (command, proc.stderr)
        assert proc.stderr.count(SHOWN) <= 1, (command, proc.stderr)
    assert "memory/caf" not in (root / "memory/INDEX.md").read_text()
    found = json.loads(apm(root, "--json", "search", "release branch").stdout)
    assert found["hits"], "search answers from the other files"


@pytest.mark.slow
def test_a_file_whose_name_is_not_utf8_arriving_by_sync_blocks_no_flush(tmp_path: Path) -> None:
    url = str(bare_remote(tmp_path))
    laptop = first_clone(tmp_path / "laptop", url)
    ok(apm(laptop, "sync"))
    desk = clone(tmp_path / "desk", url)
    commit_odd_file_by_hand(desk)
    git(desk, "push", "--quiet", "origin", "HEAD:main")
    ok(apm(laptop, "journal", "add", "the cache is warmed at boot", "--kind", "lesson"))
    ok(apm(laptop, "sync"))
    assert (laptop / os.fsdecode(ODD)).exists(), "the file arrived as the other clone made it"
    ok(apm(laptop, "journal", "add", "the queue drains in order", "--kind", "lesson"))
    proc = apm(laptop, "flush")
    ok(proc)
    assert "flushed" in proc.stdout
    assert git(laptop, "status", "--porcelain", "--", "memory").strip() == ""


@pytest.mark.slow
def test_a_hook_session_id_of_5_mb_is_cut_and_the_flush_still_commits(repo: MemoryRepo) -> None:
    root = repo.root
    ok(apm(root, "journal", "add", "the build cache lives on the runner", "--kind", "tool"))
    payload = json.dumps({"session_id": "s" * 5_000_000, "hook_event_name": "PreCompact", "cwd": str(root)})
    proc = apm(root, "flush", "--hook-input", "-", stdin=payload)
    said = ok(proc)
    assert "5,000,000 characters" in said and f"cut to {MAX_SESSION_CHARS}" in said
    assert git(root, "status", "--porcelain", "--", "memory").strip() == "", "the memory was committed"
    assert (root / "memory/flush-state.json").stat().st_size < 4096
    trailer = [line for line in git(root, "log", "-1", "--format=%B").splitlines() if line.startswith("Apm-Session:")]
    assert trailer == ["Apm-Session: " + "s" * MAX_SESSION_CHARS]
    ok(apm(root, "journal", "add", "and the next flush works", "--kind", "lesson"))
    ok(apm(root, "flush"))


@pytest.mark.slow
def test_an_over_long_session_or_message_given_by_hand_is_refused_before_anything_is_written(repo: MemoryRepo) -> None:
    root = repo.root
    ok(apm(root, "journal", "add", "one item", "--kind", "lesson"))
    head = git(root, "rev-parse", "HEAD")
    for args in (["--session", "s" * (MAX_SESSION_CHARS + 1)], ["-m", "m" * 5000]):
        proc = apm(root, "flush", *args)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "characters, over the" in proc.stderr
    assert git(root, "rev-parse", "HEAD") == head
    ok(apm(root, "flush", "-m", "a short note", "--session", "abc-123"))


def push_state_file(tmp_path: Path, rel: str, text: str) -> Path:
    """A laptop whose remote got `memory/<rel>` as `text` from another clone (committed with --no-verify)."""
    url = str(bare_remote(tmp_path))
    laptop = first_clone(tmp_path / "laptop", url)
    ok(apm(laptop, "sync"))
    desk = clone(tmp_path / "desk", url)
    (desk / "memory" / rel).write_text(text, encoding="utf-8")
    git(desk, "commit", "--quiet", "--no-verify", "-am", f"a broken {rel}")
    git(desk, "push", "--quiet", "origin", "HEAD:main")
    return laptop


@pytest.mark.slow
@pytest.mark.parametrize(("rel", "text", "words"), [
    ("flush-state.json", "[" * 100_000 + "]" * 100_000, "nested deeper than"),
    ("flush-state.json", json.dumps({"pending_items": ["x" * (MAX_FILE_BYTES + 1)]}), "over the 4.0 MB"),
    ("flush-state.json", '{"groups": [], "main_session": {}, "pending_items": []}', "'groups' must be a JSON object"),
    ("group_names.json", '["not", "a", "map"]', "must be an object"),
    ("group_names.json", '{"room-1": "../escape"}', "unsafe group name"),
])
def test_a_remote_state_file_that_no_flush_could_read_is_refused_before_it_lands(
    tmp_path: Path, rel: str, text: str, words: str,
) -> None:
    laptop = push_state_file(tmp_path, rel, text)
    ok(apm(laptop, "journal", "add", "an item written before the sync", "--kind", "lesson"))
    proc = apm(laptop, "sync")
    assert proc.returncode == 3, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"memory/{rel}" in lines[0] and words in lines[0] and "nothing of" in lines[0]
    head = git(laptop, "rev-parse", "HEAD")
    assert git(laptop, "show", f"HEAD:memory/{rel}") != text, "the remote's file did not land"
    ok(apm(laptop, "journal", "add", "an item written after the refusal", "--kind", "lesson"))
    ok(apm(laptop, "flush"))  # every later flush still works
    assert git(laptop, "rev-parse", "HEAD~1") == head


def test_an_oversized_journal_item_is_refused_before_it_touches_the_journal(repo: MemoryRepo) -> None:
    root = repo.root
    ok(apm(root, "journal", "add", "the first item of the day", "--kind", "lesson"))
    journal = next((root / "memory").glob("20*.md"))
    before = journal.read_bytes()
    proc = apm(root, "journal", "add", "y" * (MAX_ITEM_BYTES + 1), "--kind", "lesson")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "one journal item may hold" in proc.stderr
    assert journal.read_bytes() == before
    ok(apm(root, "flush"))
    assert "the first item of the day" in git(root, "show", f"HEAD:memory/{journal.name}")
