"""A flush never commits a loss (issue 13): an entry the work tree lost stays committed as HEAD has it."""
from __future__ import annotations

import shutil

import pytest

from apm_git.commands.flush import flush
from apm_git.model.records import parse
from apm_git.model.reinsert import record_ids
from apm_git.store.repo import MemoryRepo
from tests.checks.helpers import record
from tests.conftest import Invoke, git, run_apm

NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
DECISIONS = "# Decisions\n\n" + "".join(
    record("2026-01-15", title) for title in ("Old server config", "Use Redis", "Pin the runner")
)


def head_ids(repo: MemoryRepo) -> set[str]:
    """Every entry id in a memory file at HEAD."""
    ids: set[str] = set()
    for path in git(repo.root, "ls-tree", "-r", "--name-only", "HEAD", "--", "memory").split():
        if path.endswith(".md"):
            ids.update(record_ids(parse(git(repo.root, "show", f"HEAD:{path}"))))
    return ids


def commits(repo: MemoryRepo) -> int:
    return int(git(repo.root, "rev-list", "--count", "HEAD"))


def seeded(repo: MemoryRepo) -> None:
    (repo.memory / "decisions.md").write_text(DECISIONS)
    (repo.memory / "2026-04-05.md").write_text("# Journal 2026-04-05\n\n" + record("2026-04-05", "Try uv", tags="tool"))
    assert flush(repo).commit


def test_a_hand_edit_that_drops_a_record_commits_everything_else(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    dropped = DECISIONS.replace(record("2026-01-15", "Use Redis"), "")
    edited = dropped.replace("Old server config body", "x") + record("2026-04-06", "Added today")
    (repo.memory / "decisions.md").write_text(edited)
    with (repo.memory / "lessons.md").open("a") as handle:
        handle.write("\n" + record("2026-04-06", "Pin versions", tags="lesson"))
    ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
    assert ran.exit_code == 1, ran.stderr
    warning = [line for line in ran.stderr.splitlines() if "2026-01-15-use-redis" in line]
    assert warning == [
        "apm-git: WARNING: 1 entry is gone from the work tree with no record of where it went, so the commit keeps "
        "it as HEAD has it: 2026-01-15-use-redis (memory/decisions.md); restore it (`git show HEAD:FILE`), or "
        "delete deliberately with `apm-git forget 2026-01-15-use-redis --reason TEXT`",
    ]
    committed = git(repo.root, "show", "HEAD:memory/decisions.md")
    assert committed == DECISIONS + record("2026-04-06", "Added today")  # the record is back where it stood
    assert (repo.memory / "decisions.md").read_text() == edited  # the work tree is not touched
    assert "Pin versions" in git(repo.root, "show", "HEAD:memory/lessons.md")  # everything else is committed
    assert "2026-04-06-added-today" in head_ids(repo)
    # The user's index holds the committed version; only the loss shows as an unstaged change.
    assert git(repo.root, "status", "--porcelain", "--", "memory").splitlines() == [" M memory/decisions.md"]
    message = git(repo.root, "log", "-1", "--format=%B")
    assert "Apm-Finding: 1 entry is gone from the work tree" in message
    assert "apm-no-loss" not in message  # the commit itself loses nothing

    # Again: nothing else changed, so no commit, and the same warning.
    before = commits(repo)
    ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
    assert ran.exit_code == 1 and "2026-01-15-use-redis" in ran.stderr
    assert commits(repo) == before and "nothing to flush" in ran.stdout

    # Restoring the record is the way out.
    (repo.memory / "decisions.md").write_text(committed)
    assert run_cli("--repo", str(repo.root), "flush", env=NOW).exit_code == 0


@pytest.mark.slow
def test_rm_rf_memory_then_flush_commits_no_deletion_of_any_entry(repo: MemoryRepo) -> None:
    seeded(repo)
    (repo.memory / "archive").mkdir(exist_ok=True)
    (repo.memory / "archive/2026-03.md").write_text("# Archive\n\n" + record("2026-01-02", "Old idea"))
    assert flush(repo).commit
    before = head_ids(repo)
    assert {"2026-01-15-use-redis", "2026-04-05-try-uv", "2026-01-02-old-idea"} <= before
    shutil.rmtree(repo.memory)
    ran = run_apm("flush", cwd=repo.root, env=NOW)
    assert ran.exit_code == 1, ran.stderr
    assert "Traceback" not in ran.stderr
    warning = [line for line in ran.stderr.splitlines() if "WARNING" in line]
    assert len(warning) == 2 and all(entry in warning[0] for entry in before), warning
    assert "memory files are gone from the work tree" in warning[1]  # the free-form files, named by the other line
    assert "memory/decisions.md" not in warning[1]  # records only: kept, and named in the first line
    assert head_ids(repo) == before
    assert git(repo.root, "show", "HEAD:memory/decisions.md") == DECISIONS
    assert not (repo.memory / "decisions.md").exists()  # the work tree is as the user left it (plus templates)
    # The committed INDEX.md still names the files the commit keeps.
    index = git(repo.root, "show", "HEAD:memory/INDEX.md")
    assert "decisions.md" in index and "2026-04-05" in index
    lint = run_apm("lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD", cwd=repo.root)
    assert "apm-no-loss" not in lint.stdout and "apm-index-fresh" not in lint.stdout, lint.stdout
    # A second flush has nothing else to commit.
    count = commits(repo)
    ran = run_apm("flush", cwd=repo.root, env=NOW)
    assert ran.exit_code == 1 and commits(repo) == count and "nothing to flush" in ran.stdout


def test_a_deleted_file_keeps_only_the_entries_that_went_nowhere(repo: MemoryRepo) -> None:
    seeded(repo)
    (repo.memory / "archive").mkdir(exist_ok=True)
    moved = record("2026-01-15", "Old server config")
    (repo.memory / "archive/2026-04.md").write_text("# Archive\n\n" + moved)
    (repo.memory / "decisions.md").unlink()
    result = flush(repo)
    assert result.commit and result.lost == {
        "2026-01-15-use-redis": "memory/decisions.md", "2026-01-15-pin-the-runner": "memory/decisions.md",
    }
    assert git(repo.root, "show", "HEAD:memory/decisions.md") == DECISIONS.replace(moved, "")
    assert moved in git(repo.root, "show", "HEAD:memory/archive/2026-04.md")
    assert not (repo.memory / "decisions.md").exists()


def test_moved_archived_or_merged_entries_are_not_lost(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    (repo.memory / "decisions.md").write_text(
        "# Decisions\n\n" + record("2026-01-15", "Use Redis", extra="- Merged: 2026-01-15-pin-the-runner\n"),
    )
    (repo.memory / "lessons.md").write_text("# Lessons\n\n" + record("2026-01-15", "Old server config"))
    ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
    assert ran.exit_code == 0, ran.stderr
    assert "WARNING" not in ran.stderr
    assert git(repo.root, "status", "--porcelain", "--", "memory") == ""


def test_a_file_that_is_not_utf8_keeps_its_head_version(repo: MemoryRepo, run_cli: Invoke) -> None:
    seeded(repo)
    journal = repo.memory / "2026-04-05.md"
    bad = journal.read_bytes().replace(b"Some body.", b"caf\xe9")
    journal.write_bytes(bad)
    with (repo.memory / "lessons.md").open("a") as handle:
        handle.write("\n" + record("2026-04-06", "Pin versions", tags="lesson"))
    ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
    assert ran.exit_code == 1
    lines = [line for line in ran.stderr.splitlines() if "2026-04-05.md" in line]
    assert lines == [
        "apm-git: WARNING: memory/2026-04-05.md:6: cannot be read: not valid UTF-8 (byte 143); re-save the file as "
        "UTF-8 — apm-git leaves it untouched; the commit keeps its HEAD version, so none of its entries is lost",
    ]
    assert "apm-no-loss" not in ran.stderr
    assert "Some body." in git(repo.root, "show", "HEAD:memory/2026-04-05.md")
    assert "Pin versions" in git(repo.root, "show", "HEAD:memory/lessons.md")
    assert journal.read_bytes() == bad
    assert "| 2026-04-05 |" in git(repo.root, "show", "HEAD:memory/INDEX.md")


def test_a_lost_entry_in_a_group_is_kept_by_a_group_flush(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "group_names.json").write_text('{"room-1": "team"}\n')
    assert run_cli("--repo", str(repo.root), "flush", "--scope", "group:team", env=NOW).exit_code == 0
    experience = repo.memory / "groups/team/experience.md"
    text = experience.read_text() + record("2026-04-06", "Deploy on Fridays")
    experience.write_text(text)
    assert run_cli("--repo", str(repo.root), "flush", "--room", "room-1", env=NOW).exit_code == 0
    experience.write_text(text.replace(record("2026-04-06", "Deploy on Fridays"), ""))
    ran = run_cli("--repo", str(repo.root), "flush", "--room", "room-1", env=NOW)
    assert ran.exit_code == 1 and "2026-04-06-deploy-on-fridays (memory/groups/team/experience.md)" in ran.stderr
    assert "Deploy on Fridays" in git(repo.root, "show", "HEAD:memory/groups/team/experience.md")


@pytest.mark.slow
def test_a_consolidation_never_commits_the_loss_either(repo: MemoryRepo, run_cli: Invoke) -> None:
    journal = repo.memory / "2026-04-06.md"
    for title in ("Use Redis", "Pin the runner"):
        assert run_cli("--repo", str(repo.root), "journal", "add", title, "--kind", "lesson", env=NOW).exit_code == 0
    assert run_cli("--repo", str(repo.root), "flush", env=NOW).exit_code == 0
    text = journal.read_text()
    journal.write_text(text[:text.index("## [2026-04-06] Use Redis")] + text[text.index("## [2026-04-06] Pin"):])
    before = head_ids(repo)
    ran = run_cli("--repo", str(repo.root), "deep-sleep", env=NOW)
    assert ran.exit_code == 3
    assert "entries the work tree lost that HEAD keeps" in ran.stderr and "`apm-git forget`" in ran.stderr
    assert head_ids(repo) == before
    # Once the loss is resolved deliberately, the run goes through and promotes the rest.
    assert run_cli("--repo", str(repo.root), "forget", "2026-04-06-use-redis", "--reason", "dup",
                   env=NOW).exit_code == 0
    assert run_cli("--repo", str(repo.root), "deep-sleep", env=NOW).exit_code == 0
    assert "Pin the runner" in git(repo.root, "show", "HEAD:memory/lessons.md")
