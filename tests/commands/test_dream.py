"""`apm-git dream`: runs what is due, as time moves, and nothing else."""
from __future__ import annotations

import json

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.records import record, write


def dream_at(run_cli: Invoke, repo: MemoryRepo, when: str) -> tuple[int, list[str]]:
    """Run `dream` at `when`; the exit code and the subjects of the commits it made."""
    before = git(repo.root, "rev-parse", "HEAD").strip()
    ran = run_cli("--repo", str(repo.root), "dream", env={"APM_GIT_NOW": f"{when}T09:00:00+00:00"})
    subjects = git(repo.root, "log", "--format=%s", f"{before}..HEAD").splitlines()
    return ran.exit_code, list(reversed(subjects))


def stages_at(run_cli: Invoke, repo: MemoryRepo, when: str) -> list[str]:
    """Run `dream` at `when`; the stages it ran (from its output), after checking it made no commit."""
    before = git(repo.root, "rev-parse", "HEAD")
    ran = run_cli("--repo", str(repo.root), "dream", env={"APM_GIT_NOW": f"{when}T09:00:00+00:00"})
    assert ran.exit_code == 0, ran.stderr
    assert git(repo.root, "rev-parse", "HEAD") == before  # nothing to do: no commit
    return [line.split()[1] for line in ran.stdout.splitlines() if line.split()[1] in ("deep-sleep", "rem")]


def test_dream_runs_each_stage_when_it_is_due(repo: MemoryRepo, run_cli: Invoke) -> None:
    """On a memory with nothing to do every run is quiet: no commit, flush-state.json untouched,
    and still each stage runs only when due (its time kept in the clone)."""
    state_before = (repo.memory / "flush-state.json").read_bytes()
    assert stages_at(run_cli, repo, "2026-04-01") == ["deep-sleep", "rem"]  # never ran: both are due
    assert (repo.memory / "flush-state.json").read_bytes() == state_before
    assert git(repo.root, "status", "--porcelain") == ""
    assert stages_at(run_cli, repo, "2026-04-01") == []  # called again within the hour: nothing
    assert stages_at(run_cli, repo, "2026-04-03") == []
    assert stages_at(run_cli, repo, "2026-04-04") == ["deep-sleep"]
    assert stages_at(run_cli, repo, "2026-04-07") == ["deep-sleep"]
    assert stages_at(run_cli, repo, "2026-04-08") == ["rem"]
    assert stages_at(run_cli, repo, "2026-04-09") == []
    # A late run (the machine slept for a month) runs each stage once.
    assert stages_at(run_cli, repo, "2026-05-20") == ["deep-sleep", "rem"]
    status = run_cli("--repo", str(repo.root), "--json", "status", env={"APM_GIT_NOW": "2026-05-21T09:00:00+00:00"})
    due = {item["stage"]: item["next_due"] for item in json.loads(status.stdout)["due"]}
    assert due == {"deep-sleep": "2026-05-23", "rem": "2026-05-27"}


def test_dream_says_nothing_is_due(repo: MemoryRepo, run_cli: Invoke) -> None:
    dream_at(run_cli, repo, "2026-04-01")
    ran = run_cli("--repo", str(repo.root), "dream", env={"APM_GIT_NOW": "2026-04-02T10:00:00+00:00"})
    assert ran.exit_code == 0 and ran.stdout.strip() == "apm-git: nothing due (see `apm-git status`)"


def test_dream_promotes_then_scores_and_reports_a_refused_rem(repo: MemoryRepo, run_cli: Invoke,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    write(repo.memory, "2026-03-30.md", record("2026-03-30", "Token refresh race", "lesson"))
    write(repo.memory, "people.md", *(record("2026-01-01", f"Gone {i}", "person", value="LOW", last="2026-01-02")
                                      for i in range(7)))
    ran = run_cli("--repo", str(repo.root), "dream", env={"APM_GIT_NOW": "2026-04-01T09:00:00+00:00"})
    assert ran.exit_code == 1
    assert "rem would archive 7 of 8 live entries (88%)" in ran.stderr and "--force" in ran.stderr
    assert "deep-sleep promoted 1" in ran.stdout
    subjects = git(repo.root, "log", "-3", "--format=%s").splitlines()
    assert subjects[0] == "memory: deep-sleep promoted 1" and subjects[1].startswith("memory: flush")
    state = json.loads((repo.memory / "flush-state.json").read_text())["dreaming"]
    assert "last_rem" not in state  # REM did not run: it stays due
    ran = run_cli("--repo", str(repo.root), "dream", "--force", env={"APM_GIT_NOW": "2026-04-01T10:00:00+00:00"})
    assert ran.exit_code == 0 and "rem archived 7" in ran.stdout


def test_a_prose_file_over_budget_is_never_made_longer_and_the_journal_still_moves(
    repo: MemoryRepo, run_cli: Invoke,
) -> None:
    """Issue 23 (after issue 8): a 256-line prose people.md (budget 100) grew to 405 lines from promotions, so
    every later commit touching it failed lint.  The record waits in its journal instead, with a finding that
    says why, and the journal goes to the archive on schedule with it: nothing is lost, nothing grows."""
    prose = "# People\n\n## Alice\n" + "".join(f"- note {n} about Alice\n" for n in range(253))
    (repo.memory / "people.md").write_text(prose, encoding="utf-8")
    journal = "# 2026-03-01\n\n" + record("2026-03-01", "Bob prefers email", "person", value="HIGH").rstrip("\n") + "\n"
    (repo.memory / "2026-03-01.md").write_text(journal, encoding="utf-8")
    start = git(repo.root, "rev-parse", "HEAD").strip()
    code, made = dream_at(run_cli, repo, "2026-04-01")
    assert code == 0 and made[1:] == ["memory: deep-sleep journals moved 1"], made
    assert (repo.memory / "people.md").read_text(encoding="utf-8") == prose
    message = git(repo.root, "log", "-1", "--format=%B")
    assert ("Kept 2026-03-01-bob-prefers-email in 2026-03-01.md: no room in memory/people.md: its 256 lines of "
            "prose alone pass its budget of 100 lines") in message
    assert "it goes to the archive with its journal (memory/archive/journals/2026-03-01.md)" in message
    assert "Apm-Finding: no room in memory/people.md: its 256 lines of prose alone pass its budget" in message
    assert "; 2026-03-01-bob-prefers-email went to memory/archive/journals/ with its journal" in message
    # The journal moved whole, the record in it, byte for byte: `search --archive` finds it.
    moved = repo.memory / "archive" / "journals" / "2026-03-01.md"
    assert moved.read_text(encoding="utf-8") == journal
    # The flush of the person's edit fails lint (the file is over budget); the deep sleep's commit does not.
    ran = run_cli("--repo", str(repo.root), "lint", "--from-ref", start, "--to-ref", "HEAD~1")
    assert ran.exit_code == 1 and "memory/people.md" in ran.stdout
    ran = run_cli("--repo", str(repo.root), "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert ran.exit_code == 0, ran.stdout
