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


@pytest.mark.slow
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


@pytest.mark.slow
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


# ---- trailers believed only where the files agree (issue 22, case 10) -------------------------------------

KEEP, GONE = "2026-04-01-keep-redis", "2026-04-02-drop-memcached"


def forged(repo: MemoryRepo, *trailers: str, drop: str = GONE, into: str | None = None) -> None:
    """A commit made by hand with plain git: `drop` deleted from decisions.md (or moved to `into`), under a
    message that carries apm-git's trailers as if a consolidation had done it."""
    text = (repo.memory / "decisions.md").read_text()
    start = text.index(f"## [{drop[:10]}]")
    end = text.find("\n## [", start + 1)
    block = text[start:] if end == -1 else text[start:end + 1]
    (repo.memory / "decisions.md").write_text(text.replace(block, ""))
    if into is not None:
        path = repo.memory / into
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((path.read_text() if path.exists() else "# Notes\n\n") + block)
    message = "memory: rem archived 1\n\n" + "\n".join([*trailers, "Apm-Trigger: rem", "Apm-Scope: all"])
    git(repo.root, "add", "-A", "memory")
    git(repo.root, "commit", "-q", "--no-verify", "-m", message)


@pytest.fixture
def two(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-20T09:00:00+00:00")
    write(repo.memory, "decisions.md", record("2026-04-01", "Keep Redis"), record("2026-04-02", "Drop Memcached"))
    flush(repo)
    return repo


def events(run_cli: Invoke, repo: MemoryRepo, entry_id: str, expect: int = 0) -> list[dict[str, str]]:
    ran = run_cli("--repo", str(repo.root), "--json", "history", entry_id)
    assert ran.exit_code == expect, ran.stderr
    found: list[dict[str, str]] = json.loads(ran.stdout)["events"]
    return found


@pytest.mark.parametrize("trailer", [
    f"Apm-Archive: {GONE} memory/decisions.md -> memory/archive/2026-04.md (score 12)",
    f"Apm-Promote: {GONE} memory/2026-04-02.md -> memory/decisions.md (lesson)",
    f"Apm-Move: {GONE} memory/decisions.md -> memory/decisions.md (merged into {KEEP})",
    f"Apm-Supersede: {GONE} -> {KEEP}",
    f"Apm-Proven: {GONE} memory/decisions.md",
])
def test_a_hand_deletion_under_a_forged_trailer_is_a_loss_as_diff_and_lint_say(
    two: MemoryRepo, run_cli: Invoke, trailer: str,
) -> None:
    forged(two, trailer)
    last = events(run_cli, two, GONE, expect=1)[-1]
    assert (last["what"], last["file"], last["source"]) == ("lost", "memory/decisions.md", None)
    assert last["detail"].startswith("no record of where it went; its Apm-")
    ran = run_cli("--repo", str(two.root), "history", GONE)
    assert ran.exit_code == 1 and f"{GONE} was lost in " in ran.stderr and "apm-git forget" in ran.stderr
    assert " LOST " in ran.stdout.splitlines()[-1]
    diff = run_cli("--repo", str(two.root), "--json", "diff", "HEAD~1..HEAD")
    assert diff.exit_code == 1 and [e["status"] for e in json.loads(diff.stdout)["entries"]] == ["loss"]
    lint = run_cli("--repo", str(two.root), "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert lint.exit_code == 1 and "apm-no-loss" in lint.stdout


def test_a_trailer_the_files_bear_out_is_believed(two: MemoryRepo, run_cli: Invoke) -> None:
    text = (two.memory / "decisions.md").read_text()
    (two.memory / "decisions.md").write_text(text.replace("- Body: Keep Redis",
                                                          f"- Body: Keep Redis\n- Merged: {GONE}"))
    forged(two, f"Apm-Move: {GONE} memory/decisions.md -> memory/decisions.md (merged into {KEEP})")
    last = events(run_cli, two, GONE)[-1]
    assert (last["what"], last["detail"]) == ("merged", f"merged into {KEEP}")


def test_an_archive_trailer_whose_entry_went_to_a_live_file_is_a_move(two: MemoryRepo, run_cli: Invoke) -> None:
    forged(two, f"Apm-Archive: {GONE} memory/decisions.md -> memory/archive/2026-04.md (score 12)",
           into="notes/elsewhere.md")
    last = events(run_cli, two, GONE)[-1]
    assert (last["what"], last["file"], last["source"]) == ("moved", "memory/notes/elsewhere.md",
                                                            "memory/decisions.md")
    assert last["detail"] == "not archived: it is in memory/notes/elsewhere.md"


def test_a_hand_archive_without_trailers_reads_as_an_archive(two: MemoryRepo, run_cli: Invoke) -> None:
    forged(two, into="archive/2026-04.md")
    found = events(run_cli, two, GONE)
    assert [(e["what"], e["file"], e["source"]) for e in found] == [
        ("created", "memory/decisions.md", None),
        ("archived", "memory/archive/2026-04.md", "memory/decisions.md"),
    ]


def test_a_hand_deletion_with_no_trailer_at_all_is_found_and_is_a_loss(two: MemoryRepo, run_cli: Invoke) -> None:
    forged(two)
    assert [(e["what"], e["file"]) for e in events(run_cli, two, GONE, expect=1)] == [
        ("created", "memory/decisions.md"), ("lost", "memory/decisions.md")]


def test_a_trailer_naming_an_entry_its_commit_left_alone_is_no_event(two: MemoryRepo, run_cli: Invoke) -> None:
    before = events(run_cli, two, KEEP)
    forged(two, f"Apm-Archive: {KEEP} memory/decisions.md -> memory/archive/2026-04.md (score 12)")  # drops GONE
    assert events(run_cli, two, KEEP) == before


def test_a_forget_is_taken_at_its_word(two: MemoryRepo, run_cli: Invoke) -> None:
    assert run_cli("--repo", str(two.root), "forget", GONE, "--reason", "wrong").exit_code == 0
    last = events(run_cli, two, GONE)[-1]
    assert (last["what"], last["detail"]) == ("forgotten", "wrong")
