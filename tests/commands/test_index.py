"""`apm-git index`: INDEX.md in the seed's shape, deterministic for a tree and a date, from the files themselves."""
from __future__ import annotations

import datetime as dt
import marshal
import os

import pytest

from apm_git.model import index_md
from apm_git.store.memory_index import SUMMARIES_CACHE, build_index
from apm_git.store.repo import MemoryRepo
from tests.checks.helpers import record
from tests.conftest import Invoke, git

DAY = dt.date(2026, 4, 7)


def fill(repo: MemoryRepo) -> None:
    (repo.memory / "decisions.md").write_text("# Decisions\n\n" + record("2026-04-06", "Redis cache strategy")
                                              + record("2026-04-02", "API v2"))
    (repo.memory / "2026-04-06.md").write_text("# Journal\n\n" + record("2026-04-06", "Fixed cron", tags="lesson"))
    notes = "# Journal\n\n## 09:15 — Session Notes\n- **Decision:** ship it — ready\n"
    (repo.memory / "2026-04-07.md").write_text(notes)
    (repo.memory / "lessons.md").write_text("# Lessons\n\n" + record(
        "2026-04-05", "Flaky test", tags="lesson", extra="- Conflicts: 2026-04-01-old-view — says the opposite\n"))


def test_the_index_has_the_seeds_shape(repo: MemoryRepo) -> None:
    fill(repo)
    text = build_index(repo, DAY)
    lines = text.splitlines()
    assert lines[0] == "# Memory Index"
    assert lines[2] == "> Last rebuilt: 2026-04-07 | Total files: 7 | Budget: 850 lines across category files"
    assert "| decisions.md | 12 | 2026-04-06 | Redis cache strategy, API v2 |" in lines
    assert "| lessons.md | 8 | 2026-04-05 | bug root causes, workarounds, pitfalls |" in lines
    journals = text.split("## Daily Journals")[1]
    assert journals.index("| 2026-04-07 | ✅ | ship it |") < journals.index("| 2026-04-06 | ✅ | Fixed cron |")
    assert "| 2026-04-05-flaky-test | lessons.md | 2026-04-01-old-view — says the opposite |" in text
    reading = index_md.read(text)
    assert reading.problems == [] and set(reading.journals) == {"2026-04-06", "2026-04-07"}


def test_the_index_is_deterministic_and_reads_no_history(repo: MemoryRepo) -> None:
    fill(repo)
    first = build_index(repo, DAY)
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "files")
    assert build_index(repo, DAY) == first  # the same tree and date, whatever the history


def test_a_missing_category_file_is_left_out(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "people.md").unlink()
    ran = run_cli("--repo", str(repo.root), "index", env={"APM_GIT_NOW": "2026-04-07"})
    assert ran.exit_code == 0 and "rebuilt" in ran.stdout
    text = (repo.memory / "INDEX.md").read_text()
    assert "people.md" not in text and "| tools-config.md |" in text
    ran = run_cli("--repo", str(repo.root), "index", env={"APM_GIT_NOW": "2026-04-07"})
    assert "up to date" in ran.stdout


def test_the_index_lists_every_memory_file_with_a_hint(repo: MemoryRepo, run_cli: Invoke) -> None:
    fill(repo)
    (repo.memory / "projects").mkdir()
    (repo.memory / "projects/billing.md").write_text("# Billing\n\n## Invoices\n\nMonthly.\n\n## 2026-03-09 Refunds\n\n"
                                                     "Within 14 days.\n")
    (repo.memory / "working-notes.md").write_text("Just a line of notes, no heading.\n")
    (repo.memory / ".dreams").mkdir()
    (repo.memory / ".dreams/state.md").write_text("# hidden\n")
    assert run_cli("--repo", str(repo.root), "flush").exit_code == 0  # creates main/ and the groups' files
    text = build_index(repo, DAY)
    assert "| projects/billing.md | 9 | 2026-03-09 | Invoices, 2026-03-09 Refunds |" in text
    assert "| working-notes.md | 1 | — | Just a line of notes, no heading. |" in text
    assert "main/" not in text and "groups/" not in text and ".dreams" not in text
    assert "| Total files: 9 |" in text  # 5 category files, 2 journals, 2 others
    journals = text.split("## Daily Journals")[1]
    assert "| 2026-04-06 | ✅ | Fixed cron |" in journals
    (repo.memory / "INDEX.md").write_text(text)
    assert run_cli("--repo", str(repo.root), "lint", "--all").exit_code == 0


def test_too_many_files_are_summarized_by_folder(repo: MemoryRepo, run_cli: Invoke) -> None:
    fill(repo)
    for folder in ("notes", "research"):
        (repo.memory / folder).mkdir()
        for number in range(40):
            (repo.memory / folder / f"n{number:02d}.md").write_text(f"# Note {number}\n\n## Topic {number}\n\nText.\n")
    for number in range(60):
        (repo.memory / f"top-{number:02d}.md").write_text(f"# Top {number}\n")
    text = build_index(repo, DAY)
    lines = text.splitlines()
    assert len(lines) <= 80  # the INDEX.md budget
    assert "| notes/ | 200 | — | 40 files: n00, n01, n02" in text and "| research/ | 200 |" in text
    assert "| top-00.md | 1 | — | Top 0 |" in text
    more = next(line for line in lines if line.startswith("| ("))
    assert more.startswith("| (") and "more files) |" in more
    assert f"| Total files: {5 + 2 + 80 + 60} |" in text
    (repo.memory / "INDEX.md").write_text(text)
    assert run_cli("--repo", str(repo.root), "lint", "--all").exit_code == 0
    (repo.memory / "research").rename(repo.memory / "studies")  # the index now names a folder that is gone
    ran = run_cli("--repo", str(repo.root), "lint", "--all")
    assert ran.exit_code == 1 and "names the folder research/, which holds no memory file" in ran.stdout


@pytest.mark.slow
def test_many_journals_and_files_keep_the_index_within_its_budget(repo: MemoryRepo, run_cli: Invoke) -> None:
    """Issue 23: one row per live journal took INDEX.md to 259 of its 80 lines after a simulated year."""
    first = dt.date(2024, 1, 1)
    for number in range(400):  # more than a year of journals: nobody archived them
        day = first + dt.timedelta(days=number)
        (repo.memory / f"{day.isoformat()}.md").write_text(f"# {day}\n\n## 10:00 — Session Notes\n"
                                                          f"- **Decision:** choice {number} — why\n")
    for number in range(30):
        (repo.memory / f"top-{number:02d}.md").write_text(f"# Top {number}\n")
    text = build_index(repo, dt.date(2025, 2, 3))
    lines = text.splitlines()
    assert len(lines) <= 80
    rows = lines[lines.index(index_md.JOURNALS) + 4:]
    assert rows[:2] == ["| 2025-02-03 | ✅ | choice 399 |", "| 2025-02-02 | ✅ | choice 398 |"]  # L1's two
    assert "| 2024-01 | 31 journals | choice 30, choice 29, choice 28 |" in rows  # the older ones by month
    assert "| top-29.md | 1 | — | Top 29 |" in lines
    assert "| Total files: 435 |" in text  # 5 category files, 400 journals, 30 other files
    (repo.memory / "INDEX.md").write_text(text)
    assert run_cli("--repo", str(repo.root), "lint", "--all").exit_code == 0, "apm-index-fresh reads the summary rows"
    for number in range(31):  # every journal of January 2024 moves away: the row for it names none
        (repo.memory / f"{(first + dt.timedelta(days=number)).isoformat()}.md").unlink()
    ran = run_cli("--repo", str(repo.root), "lint", "--all")
    assert ran.exit_code == 1 and "names the journals of 2024-01, and none of them is live" in ran.stdout, ran.stdout


def test_the_conflicts_section_lists_entries_in_conflict_in_every_file_that_holds_records(repo: MemoryRepo) -> None:
    def conflicting(day: str, title: str, other: str) -> str:
        return record(day, title, tags="lesson", extra=f"- Conflicts: {other} — both sides changed it\n")

    fill(repo)  # lessons.md: one entry in conflict
    (repo.memory / "2026-04-06.md").write_text(
        "# Journal\n\n" + conflicting("2026-04-06", "Fixed cron", "2026-04-06-fixed-cron-merge-other-version"))
    group = repo.memory / "groups" / "ops"
    group.mkdir(parents=True)
    (group / "experience.md").write_text("# Experience\n\n" + conflicting("2026-04-03", "Pager rota", "2026-04-03-x"))
    (repo.memory / "projects").mkdir()
    (repo.memory / "projects" / "alpha.md").write_text(
        "# Alpha\n\n" + conflicting("2026-04-04", "Alpha plan", "2026-04-04-y"))
    archive = repo.memory / "archive"
    archive.mkdir()
    (archive / "2026-03.md").write_text("# Archive\n\n" + conflicting("2026-03-01", "Old", "2026-03-01-z"))
    text = build_index(repo, DAY)
    rows = text.split(index_md.CONFLICTS)[1]
    assert [line.split(" | ")[:2] for line in rows.splitlines() if line.startswith("| 2026-")] == [
        ["| 2026-04-05-flaky-test", "lessons.md"],
        ["| 2026-04-06-fixed-cron", "2026-04-06.md"],
        ["| 2026-04-03-pager-rota", "groups/ops/experience.md"],
        ["| 2026-04-04-alpha-plan", "projects/alpha.md"],
    ]  # category files, then journals, then every other file; the archive holds history, not conflicts
    assert "groups/ops/experience.md" not in text.split("## Daily Journals")[0]  # groups/ keep their own index
    again = build_index(repo, DAY)  # the second build reads the unchanged files from the cache: the same rows
    assert again == text
    (group / "experience.md").write_text("# Experience\n\n" + record("2026-04-03", "Pager rota", tags="lesson"))
    assert "groups/ops/experience.md" not in build_index(repo, DAY)  # settled: the cache row was read again


def _age(repo: MemoryRepo, seconds: int) -> None:
    """Date every memory file `seconds` back: old enough for the summary cache to keep it."""
    for path in repo.memory.rglob("*.md"):
        stamp = path.stat().st_mtime - seconds
        os.utime(path, (stamp, stamp))


def test_summaries_are_cached_and_an_edit_is_seen(repo: MemoryRepo) -> None:
    fill(repo)
    _age(repo, 3600)
    first = build_index(repo, DAY)
    cached = marshal.loads((repo.state_dir / SUMMARIES_CACHE).read_bytes())
    assert ("decisions.md", False) in cached and ("2026-04-06.md", True) in cached
    assert build_index(repo, DAY) == first
    key = ("decisions.md", False)  # a row of the right stamp is believed: the file is not read again
    cached[key] = (*cached[key][:4], ("From the cache",), ())
    (repo.state_dir / SUMMARIES_CACHE).write_bytes(marshal.dumps(cached))
    assert "From the cache" in build_index(repo, DAY)
    decisions = repo.memory / "decisions.md"
    decisions.write_text(decisions.read_text() + record("2026-04-07", "Queue on Kafka"))
    _age(repo, 1800)
    assert "Queue on Kafka" in build_index(repo, DAY)
    lessons = repo.memory / "lessons.md"  # a conflict that goes away is gone from the index too
    lessons.write_text(lessons.read_text().replace("- Conflicts: 2026-04-01-old-view — says the opposite\n", ""))
    assert "2026-04-01-old-view" not in build_index(repo, DAY)


def test_a_file_written_just_now_is_not_cached(repo: MemoryRepo) -> None:
    fill(repo)  # written within the last two seconds: the mtime may not move on the next write
    build_index(repo, DAY)
    cached = marshal.loads((repo.state_dir / SUMMARIES_CACHE).read_bytes()) \
        if (repo.state_dir / SUMMARIES_CACHE).exists() else {}
    assert ("decisions.md", False) not in cached


def test_a_torn_or_foreign_summary_cache_reads_as_a_miss(repo: MemoryRepo) -> None:
    fill(repo)
    _age(repo, 3600)
    first = build_index(repo, DAY)
    path = repo.state_dir / SUMMARIES_CACHE
    path.write_bytes(b"\x00torn")
    assert build_index(repo, DAY) == first
    stat = (repo.memory / "decisions.md").stat()  # the right key and stamp, a row of another shape
    path.write_bytes(marshal.dumps({("decisions.md", False): (stat.st_size, stat.st_mtime_ns, "lines?")}))
    assert build_index(repo, DAY) == first
