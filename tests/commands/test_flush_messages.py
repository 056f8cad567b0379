"""Credentials never reach history through a flush's message or session id (issue 22, case 6).

Given by hand (`-m`, `--session`): refused with exit 1 and one line naming the kind, the secret never
echoed, nothing committed.  From an agent hook's payload: redacted, and the memory still committed.
Real processes; the tokens are random characters in the shape of real ones.
"""
from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import git

RNG = random.Random(22)


def _random(alphabet: str, length: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(length))


def github_token() -> str:
    return "ghp_" + _random(string.ascii_letters + string.digits, 36)


def anthropic_key() -> str:
    return "sk-ant-api03-" + _random(string.ascii_letters + string.digits + "_-", 93) + "AA"


def apm(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run((sys.executable, "-m", "apm_git", *args), cwd=root, capture_output=True, text=True,
                          input=stdin, timeout=120, check=False)


def history(root: Path) -> str:
    """Every commit message and every diff of every ref."""
    return git(root, "log", "--all", "-p", "--format=%B")


def by_hand(case: str) -> tuple[list[str], str]:
    """The flush options of a case, and the secret they hold."""
    token, key = github_token(), anthropic_key()
    return {
        "message": (["-m", f"rotated the deploy token {token} today"], token),
        "body": (["-m", f"line one\n\nsecond paragraph\n{token}"], token),
        "session": (["--session", key], key),
    }[case]


@pytest.mark.slow
@pytest.mark.parametrize(("case", "kind"), [
    ("message", "GitHub Token"), ("body", "GitHub Token"), ("session", "Anthropic API Key"),
])
def test_a_credential_in_a_message_or_session_given_by_hand_is_refused(repo: MemoryRepo, case: str, kind: str) -> None:
    root = repo.root
    assert apm(root, "journal", "add", "the staging database is reset nightly", "--kind", "context").returncode == 0
    head = git(root, "rev-parse", "HEAD")
    argv, secret = by_hand(case)
    proc = apm(root, "flush", *argv)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and kind in lines[0] and "nothing was committed" in lines[0], lines
    assert secret not in proc.stderr + proc.stdout
    assert git(root, "rev-parse", "HEAD") == head
    assert secret not in history(root) and secret not in (root / "memory/flush-state.json").read_text()
    assert apm(root, "flush", "-m", "the nightly reset").returncode == 0, "flushed once the message is clean"
    assert "the staging database" in git(root, "show", "HEAD")


def test_a_credential_in_a_hook_session_id_is_redacted_and_the_memory_still_committed(repo: MemoryRepo) -> None:
    root = repo.root
    assert apm(root, "journal", "add", "the staging database is reset nightly", "--kind", "context").returncode == 0
    secret = github_token()
    payload = json.dumps({"session_id": secret, "hook_event_name": "SessionEnd", "cwd": str(root)})
    proc = apm(root, "flush", "--hook-input", "-", stdin=payload)
    assert proc.returncode == 0, proc.stderr
    assert "GitHub Token" in proc.stderr and "[redacted]" in proc.stderr and secret not in proc.stderr
    assert git(root, "status", "--porcelain", "--", "memory").strip() == "", "the memory was committed"
    assert "Apm-Session: [redacted]" in git(root, "log", "-1", "--format=%B")
    assert secret not in history(root) and secret not in (root / "memory/flush-state.json").read_text()
