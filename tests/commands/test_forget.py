"""`apm-git forget`: the deliberate deletion, recorded in one commit, shown by history, accepted by the checks."""
from __future__ import annotations

import pytest

from apm_git.commands.flush import flush
from apm_git.model import trailers
from apm_git.store.repo import MemoryRepo
from tests.checks.helpers import record
from tests.conftest import Invoke, git

NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
DECISIONS = "# Decisions\n\n" + record("2026-01-15", "Use Redis") + record("2026-01-16", "Pin the runner")
ARCHIVE = "# Archive 2026-03\n\n" + record("2026-01-02", "Old idea")


def seeded(repo: MemoryRepo) -> None:
    (repo.memory / "decisions.md").write_text(DECISIONS)
    (repo.memory / "archive").mkdir(exist_ok=True)
    (repo.memory / "archive/2026-03.md").write_text(ARCHIVE)
    assert flush(repo).commit


def head(repo: MemoryRepo) -> str:
    return git(repo.root, "rev-parse", "HEAD").strip()


@pytest.mark.slow
def test_forget_a_live_and_an_archived_entry_in_one_commit(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    # An uncommitted edit elsewhere in the same file stays uncommitted, in the work tree.
    edited = DECISIONS + record("2026-04-06", "Not flushed yet")
    (repo.memory / "decisions.md").write_text(edited)
    ran = run_cli("--repo", str(repo.root), "forget", "2026-01-15-use-redis", "2026-01-02-old-idea",
                  "--reason", "wrong  conclusion", env=NOW)
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout.splitlines()[1:] == ["  2026-01-15-use-redis  memory/decisions.md",
                                           "  2026-01-02-old-idea  memory/archive/2026-03.md"]
    message = git(repo.root, "log", "-1", "--format=%B")
    assert [value for key, value in trailers.parse(message) if key == trailers.FORGET] == [
        "2026-01-15-use-redis memory/decisions.md — wrong conclusion",
        "2026-01-02-old-idea memory/archive/2026-03.md — wrong conclusion",
    ]
    redis = record("2026-01-15", "Use Redis")
    assert git(repo.root, "show", "HEAD:memory/decisions.md") == DECISIONS.replace(redis, "")
    assert "Old idea" not in git(repo.root, "show", "HEAD:memory/archive/2026-03.md")
    assert (repo.memory / "decisions.md").read_text() == edited.replace(redis, "")
    assert "Old idea" not in (repo.memory / "archive/2026-03.md").read_text()
    assert git(repo.root, "status", "--porcelain", "--", "memory").splitlines() == [" M memory/decisions.md"]
    # A forgotten entry is never lost for flush afterwards; the agent's other edit is committed then.
    ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
    assert ran.exit_code == 0 and "WARNING" not in ran.stderr, ran.stderr
    assert "Not flushed yet" in git(repo.root, "show", "HEAD:memory/decisions.md")
    # history shows the forget, with its reason.
    ran = run_cli("--repo", str(repo.root), "history", "2026-01-15-use-redis")
    assert ran.stdout.splitlines()[-1].split()[2:] == [
        "forget", "forgotten", "memory/decisions.md", "(wrong", "conclusion)",
    ]


def test_an_unknown_id_changes_nothing(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    before = head(repo)
    ran = run_cli("--repo", str(repo.root), "forget", "2026-01-15-use-redis", "2026-02-02-no-such-entry",
                  "--reason", "x")
    assert ran.exit_code == 1
    assert ran.stderr.strip().splitlines() == [
        "apm-git: no entry 2026-02-02-no-such-entry in the memory or its archive (nor in HEAD); nothing was "
        "forgotten — `apm-git search` finds ids",
    ]
    assert head(repo) == before and (repo.memory / "decisions.md").read_text() == DECISIONS
    assert run_cli("--repo", str(repo.root), "forget", "not-an-id", "--reason", "x").exit_code == 2
    assert run_cli("--repo", str(repo.root), "forget", "2026-01-15-use-redis", "--reason", "  ").exit_code == 2
    assert run_cli("--repo", str(repo.root), "forget", "2026-01-15-use-redis").exit_code == 2
    assert head(repo) == before and (repo.memory / "decisions.md").read_text() == DECISIONS


def test_an_entry_the_work_tree_lost_is_forgotten_from_head(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    (repo.memory / "decisions.md").write_text(DECISIONS.replace(record("2026-01-16", "Pin the runner"), ""))
    assert run_cli("--repo", str(repo.root), "flush", env=NOW).exit_code == 1  # kept, with the way out
    assert "Pin the runner" in git(repo.root, "show", "HEAD:memory/decisions.md")
    ran = run_cli("--repo", str(repo.root), "forget", "2026-01-16-pin-the-runner", "--reason", "obsolete", env=NOW)
    assert ran.exit_code == 0, ran.stderr
    assert "Pin the runner" not in git(repo.root, "show", "HEAD:memory/decisions.md")
    assert git(repo.root, "status", "--porcelain", "--", "memory") == ""
    assert run_cli("--repo", str(repo.root), "flush", env=NOW).stdout.strip() == "apm-git: nothing to flush"


def test_an_entry_never_committed_is_forgotten_on_record(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    added = run_cli("--repo", str(repo.root), "journal", "add", "Scratch note", "--kind", "context", env=NOW)
    assert added.exit_code == 0
    before = head(repo)
    ran = run_cli("--repo", str(repo.root), "forget", "2026-04-06-scratch-note", "--reason", "typo", env=NOW)
    assert ran.exit_code == 0, ran.stderr
    assert git(repo.root, "rev-parse", "HEAD^").strip() == before
    assert "Scratch note" not in (repo.memory / "2026-04-06.md").read_text()
    assert "Apm-Forget: 2026-04-06-scratch-note memory/2026-04-06.md — typo" in git(repo.root, "log", "-1",
                                                                                   "--format=%B")
    history = run_cli("--repo", str(repo.root), "history", "2026-04-06-scratch-note")
    assert history.exit_code == 0 and " forgotten " in history.stdout and "(typo)" in history.stdout


def test_the_checks_accept_a_forgotten_entry_over_a_range(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    base = head(repo)
    assert run_cli("--repo", str(repo.root), "forget", "2026-01-15-use-redis", "--reason", "wrong").exit_code == 0
    ran = run_cli("--repo", str(repo.root), "lint", "--from-ref", base, "--to-ref", "HEAD")
    assert ran.exit_code == 0, ran.stdout
    ran = run_cli("--repo", str(repo.root), "lint", "--from-ref", base)  # against the work tree
    assert ran.exit_code == 0, ran.stdout
    # The hooks read the same range from pre-commit's environment.
    ran = run_cli("--repo", str(repo.root), "lint", env={"PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": "HEAD"})
    assert ran.exit_code == 0, ran.stdout
    # A deletion without the trailer is still a finding.
    (repo.memory / "decisions.md").write_text("# Decisions\n")
    git(repo.root, "commit", "-qam", "drop everything", "--no-verify")
    ran = run_cli("--repo", str(repo.root), "lint", "--from-ref", base, "--to-ref", "HEAD")
    assert ran.exit_code == 1
    assert "apm-no-loss: entry 2026-01-16-pin-the-runner" in ran.stdout
    assert "2026-01-15-use-redis" not in ran.stdout


def test_a_commit_that_fails_leaves_the_work_tree_and_head_as_they_were(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    before = head(repo)
    git(repo.root, "config", "commit.gpgsign", "true")
    git(repo.root, "config", "gpg.program", "false")  # signing fails, as with no key
    ran = run_cli("--repo", str(repo.root), "forget", "2026-01-15-use-redis", "--reason", "x")
    assert ran.exit_code == 3 and len(ran.stderr.strip().splitlines()) == 1
    assert head(repo) == before and (repo.memory / "decisions.md").read_text() == DECISIONS
    assert git(repo.root, "status", "--porcelain") == ""
