"""edit, `hit --commit` and restore: one commit each holding only the change, refused when it would lose an
entry, break the record format or make a file over its budget longer (operations/curate.py)."""
from __future__ import annotations

import pytest

from apm_git.commands.flush import flush
from apm_git.model import trailers
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git

NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
REDIS = ("## [2026-01-15] Use Redis\n- Tags: decision, cache\n"
         "- Fitness: last_referenced=2026-01-15, hit_count=2, decision_value=HIGH\n- Body: Redis for sessions.\n\n")
PIN = ("## [2026-01-16] Pin the runner\n- Tags: decision\n"
       "- Fitness: last_referenced=2026-01-16, hit_count=0, decision_value=MEDIUM\n- Body: Pin it.\n\n")
ARCHIVED = ("## [2025-11-02] Old idea\n- Tags: decision\n"
            "- Fitness: last_referenced=2025-11-02, hit_count=1, decision_value=LOW\n- Body: Old.\n"
            "- Archived: 2026-02-01 (fitness score: 10, last_referenced: 2025-11-02, from decisions.md)\n\n")
DECISIONS = "# Decisions\n\n" + REDIS + PIN


def seeded(repo: MemoryRepo) -> None:
    (repo.memory / "decisions.md").write_text(DECISIONS)
    (repo.memory / "archive").mkdir(exist_ok=True)
    (repo.memory / "archive/2026-02.md").write_text("# Archive 2026-02\n\n" + ARCHIVED)
    assert flush(repo).commit


def cli(run_cli: Invoke, repo: MemoryRepo, *args: str, input: str | None = None) -> tuple[int, str, str]:
    ran = run_cli("--repo", str(repo.root), *args, input=input, env=NOW)
    return ran.exit_code, ran.stdout, ran.stderr


def head_text(repo: MemoryRepo, path: str) -> str:
    return git(repo.root, "show", f"HEAD:{path}")


def test_edit_prints_the_record_then_commits_the_new_text_alone(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    unflushed = "\n## [2026-04-01] Not flushed\n- Tags: decision\n- Fitness: last_referenced=2026-04-01, " \
                "hit_count=0, decision_value=LOW\n- Body: x\n"
    (repo.memory / "decisions.md").write_text(DECISIONS + unflushed)
    code, shown, _ = cli(run_cli, repo, "edit", "2026-01-15-use-redis")
    assert code == 0 and shown == REDIS.rstrip("\n") + "\n"
    code, out, err = cli(run_cli, repo, "edit", "2026-01-15-use-redis", "--from", "-",
                         input=shown.replace("Redis for sessions.", "Redis 7 for sessions."))
    assert code == 0, err
    assert out.startswith("apm-git: edit 2026-01-15-use-redis committed as ")
    committed = head_text(repo, "memory/decisions.md")
    assert committed == DECISIONS.replace("Redis for sessions.", "Redis 7 for sessions.")  # not the unflushed entry
    tree = (repo.memory / "decisions.md").read_text()
    assert tree == committed + unflushed  # the work tree took the same edit and kept its own
    assert ("Apm-Edit", "2026-01-15-use-redis memory/decisions.md") in trailers.parse(
        git(repo.root, "log", "-1", "--format=%B"))


@pytest.mark.parametrize(("change", "says"), [
    (lambda text: text.replace("Use Redis", "Use Valkey"), "would lose 2026-01-15-use-redis"),
    (lambda text: text.replace("- Tags: decision, cache\n", ""), "breaks the record format"),
    (lambda text: text + "## [2026-01-17] Another\n", "must be one record"),
])
def test_an_edit_that_loses_the_entry_or_breaks_it_is_refused(repo: MemoryRepo, run_cli: Invoke, change: object,
                                                                says: str) -> None:
    seeded(repo)
    before = git(repo.root, "rev-parse", "HEAD")
    assert callable(change)
    code, _, err = cli(run_cli, repo, "edit", "2026-01-15-use-redis", "--from", "-", input=change(REDIS))
    assert code in (1, 2) and says in err and len(err.strip().splitlines()) == 1
    assert git(repo.root, "rev-parse", "HEAD") == before
    assert (repo.memory / "decisions.md").read_text() == DECISIONS


def test_an_edit_past_the_budget_is_refused_with_lints_line(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    (repo.root / "apm.yaml").write_text((repo.root / "apm.yaml").read_text().replace(
        "decisions.md: 200", "decisions.md: 12"))
    git(repo.root, "commit", "-qam", "budget", "--no-verify")
    longer = REDIS.rstrip("\n") + "\nA longer body.\nAnd more.\n"
    code, _, err = cli(run_cli, repo, "edit", "2026-01-15-use-redis", "--from", "-", input=longer)
    assert code == 1
    assert "edit refused, nothing was changed: memory/decisions.md:13: apm-budget: 14/12 lines" in err


def test_hit_commit_counts_and_commits_only_the_fitness_lines(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    code, _out, err = cli(run_cli, repo, "hit", "--commit", "2026-01-15-use-redis", "2026-01-16-pin-the-runner")
    assert code == 0, err
    diff = git(repo.root, "show", "--format=", "-U0", "HEAD")
    assert [line for line in diff.splitlines() if line.startswith(("+- Fitness", "-- Fitness"))] == [
        "-- Fitness: last_referenced=2026-01-15, hit_count=2, decision_value=HIGH",
        "+- Fitness: last_referenced=2026-04-06, hit_count=3, decision_value=HIGH",
        "-- Fitness: last_referenced=2026-01-16, hit_count=0, decision_value=MEDIUM",
        "+- Fitness: last_referenced=2026-04-06, hit_count=1, decision_value=MEDIUM",
    ]
    assert git(repo.root, "status", "--porcelain", "--", "memory") == ""
    code, _, err = cli(run_cli, repo, "hit", "--commit", "2025-11-02-old-idea")
    assert code == 1 and "no committed entry 2025-11-02-old-idea in the live memory" in err


def test_restore_moves_an_archived_entry_back_where_it_was(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    code, _out, err = cli(run_cli, repo, "restore", "2025-11-02-old-idea")
    assert code == 0, err
    decisions = head_text(repo, "memory/decisions.md")
    assert decisions.startswith(DECISIONS) and "## [2025-11-02] Old idea" in decisions
    assert "Archived:" not in decisions and "last_referenced=2026-04-06, hit_count=1" in decisions
    assert "Old idea" not in head_text(repo, "memory/archive/2026-02.md")
    assert (repo.memory / "decisions.md").read_text() == decisions
    assert ("Apm-Restore", "2025-11-02-old-idea memory/archive/2026-02.md -> memory/decisions.md") in trailers.parse(
        git(repo.root, "log", "-1", "--format=%B"))
    assert git(repo.root, "status", "--porcelain", "--", "memory") == ""
    code, _, err = cli(run_cli, repo, "restore", "2025-11-02-old-idea")
    assert code == 1 and "no committed entry 2025-11-02-old-idea in the archive" in err
    code, _, err = cli(run_cli, repo, "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert code == 0, err
