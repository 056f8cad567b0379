"""`apm-git hit`: hit_count + 1 and last_referenced = today, in place, the file otherwise byte-identical."""
from __future__ import annotations

import pytest

from apm_git.model.records import parse
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.loading.conftest import record, write


@pytest.mark.slow
def test_hit_bumps_only_the_fitness_line(mem: MemoryRepo, run_cli: Invoke) -> None:
    path = mem.memory / "groups/beta/experience.md"
    before = path.read_bytes()
    ran = run_cli("--repo", str(mem.root), "hit", "2026-04-06-beta-decision-1", "2026-03-02-postgres-16")
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "memory/groups/beta/experience.md:8: 2026-04-06-beta-decision-1 hit_count 0 -> 1, last_referenced 2026-04-06",
        "memory/decisions.md:3: 2026-03-02-postgres-16 hit_count 0 -> 1, last_referenced 2026-04-06",
    ]
    after = path.read_bytes()
    old_lines, new_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert [i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)) if a != b] == [9]
    assert new_lines[9] == b"- Fitness: last_referenced=2026-04-06, hit_count=1, decision_value=MEDIUM\n"
    decisions = (mem.memory / "decisions.md").read_text()
    assert "- Fitness: last_referenced=2026-04-06, hit_count=1, decision_value=MEDIUM" in decisions
    assert git(mem.root, "status", "--porcelain").splitlines() == [
        " M memory/decisions.md", " M memory/groups/beta/experience.md"]  # not committed: the next flush does


def test_crlf_bom_and_no_final_newline_survive(mem: MemoryRepo, run_cli: Invoke) -> None:
    text = ("\ufeff# Lessons\r\n\r\n" + record("2026-01-05", "Clock skew", "Enable NTP.", kind="lesson", hits=4,
                                               value="HIGH").replace("\n", "\r\n")).rstrip("\r\n")
    write(mem, "lessons.md", text)
    path = mem.memory / "lessons.md"
    before = path.read_bytes()
    for _ in range(2):
        assert run_cli("--repo", str(mem.root), "hit", "2026-01-05-clock-skew").exit_code == 0
    expected = before.replace(b"last_referenced=2026-01-05, hit_count=4", b"last_referenced=2026-04-06, hit_count=6")
    assert path.read_bytes() == expected != before
    assert parse(path.read_text(encoding="utf-8")).entries[0].fitness.hit_count == 6


def test_the_same_id_twice_in_one_call_counts_twice(mem: MemoryRepo, run_cli: Invoke) -> None:
    assert run_cli("--repo", str(mem.root), "hit", "2026-03-02-postgres-16", "2026-03-02-postgres-16").exit_code == 0
    assert "hit_count=2" in (mem.memory / "decisions.md").read_text()


def test_unknown_and_archived_ids_exit_1_and_the_others_still_count(mem: MemoryRepo, run_cli: Invoke) -> None:
    write(mem, "archive/2026-02.md", "# Archive\n\n" + record("2025-11-01", "Old cron", "Gone."))
    archive_before = (mem.memory / "archive/2026-02.md").read_bytes()
    ran = run_cli("--repo", str(mem.root), "hit", "2025-11-01-old-cron", "2026-03-02-postgres-16",
                  "2026-01-01-never-was")
    assert ran.exit_code == 1
    assert ran.stderr.splitlines() == [
        "apm-git: 2025-11-01-old-cron: archived in memory/archive/2026-02.md; hits count for live entries only "
        "(restore it to a live file to use it again)",
        "apm-git: 2026-01-01-never-was: no live entry has this id; `apm-git search` finds entries by their words",
    ]
    assert "hit_count=1" in (mem.memory / "decisions.md").read_text()
    assert (mem.memory / "archive/2026-02.md").read_bytes() == archive_before


def test_a_malformed_fitness_is_reported_not_rewritten(mem: MemoryRepo, run_cli: Invoke) -> None:
    write(mem, "people.md", "# People\n\n## [2026-02-02] Dana\n- Tags: person\n- Fitness: soon\n- Body: Dana.\n")
    before = (mem.memory / "people.md").read_bytes()
    ran = run_cli("--repo", str(mem.root), "hit", "2026-02-02-dana")
    assert ran.exit_code == 1 and "memory/people.md:3 has no valid Fitness line" in ran.stderr
    assert (mem.memory / "people.md").read_bytes() == before


def test_a_duplicate_id_is_counted_once_with_a_warning(mem: MemoryRepo, run_cli: Invoke) -> None:
    write(mem, "lessons.md", "# Lessons\n\n" + record("2026-03-02", "Postgres 16", "Copy."))
    ran = run_cli("--repo", str(mem.root), "hit", "2026-03-02-postgres-16")
    assert ran.exit_code == 0 and "is also at memory/lessons.md:3" in ran.stderr
    assert "hit_count=1" in (mem.memory / "decisions.md").read_text()
    assert "hit_count=0" in (mem.memory / "lessons.md").read_text()


def test_not_an_entry_id_is_a_usage_error(mem: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(mem.root), "hit", "2026-03-02-postgres-16", "../etc/passwd")
    assert ran.exit_code == 2 and "'../etc/passwd' is not an entry id" in ran.stderr
    assert git(mem.root, "status", "--porcelain") == ""


@pytest.mark.slow
def test_flush_commits_the_hits(mem: MemoryRepo, run_cli: Invoke) -> None:
    assert run_cli("--repo", str(mem.root), "hit", "2026-04-06-alpha-decision-0").exit_code == 0
    assert run_cli("--repo", str(mem.root), "flush").exit_code == 0
    assert git(mem.root, "status", "--porcelain") == ""
    shown = git(mem.root, "show", "HEAD", "--", "memory/groups/alpha/experience.md")
    assert "+- Fitness: last_referenced=2026-04-06, hit_count=1, decision_value=MEDIUM" in shown
