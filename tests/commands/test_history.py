"""`apm-git history`: every commit that touched an entry, across files and renames, oldest first."""
from __future__ import annotations

import json

import pytest

from apm_git.commands.flush import flush
from apm_git.commands.journal import add
from apm_git.store.repo import MemoryRepo
from tests.commands.test_deep_sleep import lint_findings
from tests.conftest import Invoke, git
from tests.records import record, write


def rows(run_cli: Invoke, repo: MemoryRepo, entry_id: str) -> list[tuple[str, str, str, str, str | None]]:
    ran = run_cli("--repo", str(repo.root), "--json", "history", entry_id)
    assert ran.exit_code == 0, ran.stderr
    return [(e["date"][:10], e["trigger"], e["what"], e["file"], e["source"]) for e in json.loads(ran.stdout)["events"]]


def test_history_follows_an_entry_from_journal_to_category_file_to_archive(
    repo: MemoryRepo, run_cli: Invoke, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("APM_GIT_NOW", "2026-01-05T09:00:00+00:00")
    entry = add(repo, "Run migrations by hand on box-3", kind="lesson", value="LOW").entry_id
    flush(repo, trigger="session-end")
    # A hand edit committed with plain git: no trailers, still part of the history.
    journal = repo.memory / "2026-01-05.md"
    journal.write_text(journal.read_text().replace("- Body: Run migrations by hand on box-3",
                                                   "- Body: Run migrations by hand on box-3 and box-4"))
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-06T09:00:00+00:00")
    git(repo.root, "commit", "-qam", "fix the lesson")
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    monkeypatch.setenv("APM_GIT_NOW", "2026-01-08T09:00:00+00:00")
    assert run_cli("--repo", str(repo.root), "deep-sleep").exit_code == 0
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-20T09:00:00+00:00")
    write(repo.memory, "decisions.md", *(record("2026-04-19", f"Keep {i}") for i in range(4)))
    flush(repo)
    assert run_cli("--repo", str(repo.root), "rem").exit_code == 0
    assert rows(run_cli, repo, entry) == [
        ("2026-01-05", "session-end", "created", "memory/2026-01-05.md", None),
        ("2026-01-06", "-", "changed", "memory/2026-01-05.md", None),
        ("2026-01-08", "deep-sleep", "promoted", "memory/lessons.md", "memory/2026-01-05.md"),
        ("2026-04-20", "rem", "archived", "memory/archive/2026-04.md", "memory/lessons.md"),
    ]
    text = run_cli("--repo", str(repo.root), "history", entry).stdout.splitlines()
    assert text[2].startswith("2026-01-08  ") and "deep-sleep   promoted   memory/2026-01-05.md -> memory/lessons.md" \
        in text[2] and text[2].endswith("(lesson)")


def test_history_follows_a_journal_into_the_archive_and_a_fold(
    repo: MemoryRepo, run_cli: Invoke, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("APM_GIT_NOW", "2026-03-01T09:00:00+00:00")
    pending = add(repo, "Finish the billing migration", kind="pending").entry_id
    flush(repo)
    write(repo.memory, "tools-config.md", record("2026-03-01", "Helm flags", "tool", body="--atomic"),
          record("2026-03-02", "Helm flags", "tool", body="--atomic", hits=2))
    flush(repo)
    monkeypatch.setenv("APM_GIT_NOW", "2026-03-20T09:00:00+00:00")
    assert run_cli("--repo", str(repo.root), "rem", "--force").exit_code == 0
    assert rows(run_cli, repo, pending) == [
        ("2026-03-01", "manual", "created", "memory/2026-03-01.md", None),
        ("2026-03-20", "rem", "moved", "memory/archive/journals/2026-03-01.md", "memory/2026-03-01.md"),
    ]
    assert [row[2] for row in rows(run_cli, repo, "2026-03-01-helm-flags")] == ["created", "merged"]
    assert [row[2] for row in rows(run_cli, repo, "2026-03-02-helm-flags")] == ["created", "merged"]
    assert lint_findings(repo) == []  # the fold and the journal's rename pass every check


def test_history_errors(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "history", "not an id")
    assert ran.exit_code == 2 and "is not an entry id" in ran.stderr
    ran = run_cli("--repo", str(repo.root), "history", "2026-01-01-never-written")
    assert ran.exit_code == 1 and "no commit created or changed 2026-01-01-never-written" in ran.stderr
