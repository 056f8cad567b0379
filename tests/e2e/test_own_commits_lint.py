"""Every commit apm-git makes passes `apm-git lint --from-ref C~1 --to-ref C`, on any memory (issue 8)."""
from __future__ import annotations

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git

FREE_FORM = "# 2026-03-02\n\n## [2026-03-02] Half a record\n- Tags: decision\n\nNotes the agent wrote by hand.\n"


def lint_range(run_cli: Invoke, repo: MemoryRepo, commit: str) -> int:
    return run_cli("--repo", str(repo.root), "lint", "--from-ref", f"{commit}~1", "--to-ref", commit).exit_code


def test_a_journal_moved_into_the_archive_is_not_checked_again_as_if_new(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "2026-03-02.md").write_text(FREE_FORM)
    flushed = run_cli("--repo", str(repo.root), "flush", env={"APM_GIT_NOW": "2026-03-02T10:00:00"})
    assert "apm-record-format" in flushed.stderr, "the finding is said at flush, and the file committed anyway"
    ran = run_cli("--repo", str(repo.root), "dream", env={"APM_GIT_NOW": "2026-04-01T10:00:00"})
    assert ran.exit_code == 0, ran.stderr
    assert (repo.memory / "archive/journals/2026-03-02.md").read_text() == FREE_FORM, "moved byte for byte"
    consolidations = git(repo.root, "log", "--format=%H", "--grep=^Apm-Trigger: \\(deep-sleep\\|rem\\)").split()
    assert consolidations
    for commit in consolidations:
        assert lint_range(run_cli, repo, commit) == 0, git(repo.root, "log", "-1", "--format=%B", commit)


def test_a_file_moved_into_the_archive_and_changed_on_the_way_is_checked(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "2026-03-02.md").write_text("# 2026-03-02\n")
    run_cli("--repo", str(repo.root), "flush")
    (repo.memory / "archive/journals").mkdir(parents=True)
    git(repo.root, "mv", "memory/2026-03-02.md", "memory/archive/journals/2026-03-02.md")
    (repo.memory / "archive/journals/2026-03-02.md").write_text(FREE_FORM)
    run_cli("--repo", str(repo.root), "index")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "--quiet", "--no-verify", "-m", "by hand")
    assert lint_range(run_cli, repo, "HEAD") == 1


def test_a_committed_journal_withheld_after_an_edit_never_blocks_dream(repo: MemoryRepo, run_cli: Invoke) -> None:
    journal = repo.memory / "2026-03-02.md"
    journal.write_text("# 2026-03-02\n\n## 10:00 — Session Notes\n- **Decision:** keep the cache — it is fast\n")
    assert run_cli("--repo", str(repo.root), "flush", env={"APM_GIT_NOW": "2026-03-02T10:00:00"}).exit_code == 0
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    journal.write_text(journal.read_text() + f"\n## 11:00 — Push with {token}\n- **Context:** CI\n")
    ran = run_cli("--repo", str(repo.root), "dream", env={"APM_GIT_NOW": "2026-04-01T10:00:00"})
    assert ran.exit_code == 0, ran.stderr
    assert "left out memory/2026-03-02.md" in ran.stdout
    assert token in journal.read_text(), "the edit is on disk as it was"
    assert token not in git(repo.root, "log", "-p", "--all")
    assert "| 2026-03-02 |" in git(repo.root, "show", "HEAD:memory/INDEX.md"), "listed from its committed text"
    for commit, *parents in (line.split() for line in git(repo.root, "log", "--format=%H %P", "-3").splitlines()):
        if parents:  # the first commit has no parent to compare with
            assert lint_range(run_cli, repo, commit) == 0, git(repo.root, "log", "-1", "--format=%B", commit)
