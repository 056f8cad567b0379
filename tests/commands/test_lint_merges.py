"""`lint --from-ref A --to-ref B` across merges (issue 12): each merge commit against each parent."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.histories import (
    apm,
    commit_id,
    commit_merge,
    merge,
    resolve_machine_files,
    review_whose_merge_drops_an_entry,
    review_with_dreams_and_a_merge,
)


def lint(run_cli: Invoke, repo: MemoryRepo, base: str, head: str) -> tuple[int, dict[str, object]]:
    ran = run_cli("--repo", str(repo.root), "--json", "lint", "--from-ref", base, "--to-ref", head)
    return ran.exit_code, json.loads(ran.stdout)


def no_loss(data: dict[str, object]) -> list[str]:
    findings = data["findings"]
    assert isinstance(findings, list)
    return [finding["message"] for finding in findings if finding["hook"] == "apm-no-loss"]


@pytest.mark.slow
def test_a_range_with_flushes_dreams_and_a_merge_passes(repo: MemoryRepo, run_cli: Invoke) -> None:
    review = review_with_dreams_and_a_merge(run_cli, repo.root)
    trailers = git(repo.root, "log", "--format=%(trailers:only,unfold)", f"{review.base}..{review.head}")
    for kind in ("Apm-Promote", "Apm-Proven", "Apm-Supersede", "Apm-Archive", "merged into", "Apm-Trigger: manual"):
        assert kind in trailers, kind  # the range holds every kind of apm-git commit
    code, data = lint(run_cli, repo, "main", review.head)
    assert code == 0, data["findings"]
    assert data["merges"] == [review.merge]
    ran = run_cli("--repo", str(repo.root), "lint", "--from-ref", "main", "--to-ref", review.head)
    assert "1 merge commit(s) against each parent" in ran.stderr


@pytest.mark.slow
def test_a_merge_that_drops_an_entry_of_one_parent_fails(repo: MemoryRepo, run_cli: Invoke) -> None:
    review, dropped = review_whose_merge_drops_an_entry(run_cli, repo.root)
    side = commit_id(repo.root, f"{review.merge}^2")
    # The entry was never at the base, and the merge holds all of its first parent: a comparison of
    # the range's two ends (all that lint made before) or of the merge with its first parent sees nothing.
    assert dropped not in git(repo.root, "show", f"{review.base}:memory/2026-05-21.md")
    assert git(repo.root, "diff", "HEAD~1", "HEAD", "--", "memory/2026-05-21.md") == ""
    for base in (review.base, "HEAD~1"):  # the pull request's range; the merge commit alone
        code, data = lint(run_cli, repo, base, review.head)
        assert code == 1 and data["merges"] == [review.merge]
    assert no_loss(data) == [
        f"merge {review.merge[:12]} against its parent 2 ({side[:12]}): entry {dropped} (line 8 at {side[:12]}) "
        "is gone: it is not a live or archived entry anywhere, nor named in a Merged or Supersedes field; move it "
        f"to memory/archive/ instead of deleting it, restore it, or delete it deliberately with "
        f"`apm-git forget {dropped} --reason TEXT`",
    ]


def test_a_merge_may_drop_an_entry_the_other_side_forgot(repo: MemoryRepo, run_cli: Invoke) -> None:
    now = "2026-05-21T09:00:00+00:00"
    apm(run_cli, repo.root, now, "journal", "add", "A wrong conclusion", "--kind", "decision")
    apm(run_cli, repo.root, now, "flush")
    base = commit_id(repo.root)
    git(repo.root, "checkout", "--quiet", "-b", "side")
    apm(run_cli, repo.root, now, "forget", "2026-05-21-a-wrong-conclusion", "--reason", "it was wrong")
    git(repo.root, "checkout", "--quiet", "main")
    git(repo.root, "checkout", "--quiet", "-b", "pr")
    apm(run_cli, repo.root, now, "hit", "2026-05-21-a-wrong-conclusion")  # pr used it meanwhile
    apm(run_cli, repo.root, now, "flush")
    merge(repo.root, "side")  # the merge driver keeps the entry: deleted on one side, changed (hit) on the other
    git(repo.root, "checkout", "side", "--", "memory/2026-05-21.md")  # a person lets the forget win
    resolve_machine_files(run_cli, repo.root, now)
    merged = commit_merge(repo.root, "Merge side: the forget wins")
    assert "A wrong conclusion" not in git(repo.root, "show", f"{merged}:memory/2026-05-21.md")
    code, data = lint(run_cli, repo, base, merged)
    assert code == 0, data["findings"]
    assert data["merges"] == [merged]


@pytest.mark.slow
def test_an_entry_lost_by_hand_in_a_range_fails_and_is_said_once(repo: MemoryRepo, run_cli: Invoke) -> None:
    review = review_with_dreams_and_a_merge(run_cli, repo.root)
    lessons = repo.memory / "lessons.md"
    text = lessons.read_text()
    start = text.index("## [2026-05-10] Retry the flaky test once")
    end = text.index("## ", start + 3) if "## " in text[start + 3:] else len(text)
    lessons.write_text(text[:start] + text[end:])  # a plain edit deleting a record
    git(repo.root, "commit", "--quiet", "--no-verify", "-am", "tidy lessons by hand")
    code, data = lint(run_cli, repo, review.base, "HEAD")
    assert code == 1
    (message,) = no_loss(data)
    assert message.startswith("entry 2026-05-10-retry-the-flaky-test-once (line 3 at ")
    # The same loss merged back into a branch that still has the entry: one finding, not one per comparison.
    git(repo.root, "checkout", "--quiet", "-b", "late", review.head)
    apm(run_cli, repo.root, "2026-06-05T09:00:00+00:00", "journal", "add", "Late note", "--kind", "context")
    apm(run_cli, repo.root, "2026-06-05T09:00:00+00:00", "flush")
    git(repo.root, "checkout", "--quiet", "pr")
    merge(repo.root, "late")
    resolve_machine_files(run_cli, repo.root, "2026-06-05T09:00:00+00:00")
    merged = commit_merge(repo.root, "Merge late")
    code, data = lint(run_cli, repo, review.base, merged)
    assert code == 1 and data["merges"] == [review.merge, merged]
    assert len([m for m in no_loss(data) if "2026-05-10-retry-the-flaky-test-once" in m]) == 1


@pytest.mark.slow
def test_a_deleted_file_in_a_range_fails(repo: MemoryRepo, run_cli: Invoke) -> None:
    review = review_with_dreams_and_a_merge(run_cli, repo.root)
    git(repo.root, "rm", "--quiet", "memory/lessons.md")
    git(repo.root, "commit", "--quiet", "--no-verify", "-m", "git rm a category file")
    code, data = lint(run_cli, repo, review.base, "HEAD")
    assert code == 1
    assert any("2026-05-10-retry-the-flaky-test-once" in message for message in no_loss(data))


@pytest.mark.slow
def test_the_pre_commit_hook_between_two_refs_checks_merges_too(repo: MemoryRepo, run_cli: Invoke) -> None:
    review, dropped = review_whose_merge_drops_an_entry(run_cli, repo.root)
    proc = subprocess.run(
        ("apm-git-hook-run", "apm-no-loss"), cwd=repo.root, capture_output=True, text=True,
        env={**os.environ, "PRE_COMMIT_FROM_REF": review.base, "PRE_COMMIT_TO_REF": review.head},
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert f"merge {review.merge[:12]} against its parent 2" in proc.stdout and dropped in proc.stdout


@pytest.mark.slow
def test_only_a_base_checks_the_merges_up_to_head_and_plain_lint_lists_none(repo: MemoryRepo, run_cli: Invoke) -> None:
    review, dropped = review_whose_merge_drops_an_entry(run_cli, repo.root)
    ran = run_cli("--repo", str(repo.root), "--json", "lint", "--from-ref", review.base)  # the work tree as new side
    data = json.loads(ran.stdout)
    assert ran.exit_code == 1 and data["merges"] == [review.merge] and dropped in no_loss(data)[0]
    ran = run_cli("--repo", str(repo.root), "--json", "lint")  # HEAD against the work tree: no range, no merge
    assert ran.exit_code == 0 and json.loads(ran.stdout)["merges"] == []
