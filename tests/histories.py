"""Real review histories: a base, a pull request branch with flushes, hits and dreams, and a merge.

Built with the real command line (in-process) and real `git merge`, for the tests of `lint` across
merges and of the CI templates, which run the same gate against them.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from tests.conftest import Invoke, git
from tests.records import record, write

BASE_DAY = "2026-05-20T09:00:00+00:00"


class Review(NamedTuple):
    base: str  # where the pull request branched off (the base branch's tip)
    head: str  # the pull request's tip
    merge: str  # the merge commit inside the range


def commit_id(root: Path, rev: str = "HEAD") -> str:
    return git(root, "rev-parse", rev).strip()


def apm(run_cli: Invoke, root: Path, now: str, *args: str) -> str:
    ran = run_cli("--repo", str(root), *args, env={"APM_GIT_NOW": now})
    assert ran.exit_code == 0, (args, ran.stdout, ran.stderr)
    return ran.stdout


def resolve_machine_files(run_cli: Invoke, root: Path, now: str) -> None:
    """Settle a merge's conflicts in the files apm-git rewrites whole (INDEX.md, flush-state.json) as a
    person would: keep ours, rebuild the index; every other conflict is a test's own business."""
    conflicted = git(root, "diff", "--name-only", "--diff-filter=U").split()
    machine = [path for path in conflicted if path in ("memory/INDEX.md", "memory/flush-state.json")]
    if machine:
        git(root, "checkout", "--ours", "--", *machine)
    apm(run_cli, root, now, "index")
    git(root, "add", "memory")


def merge(root: Path, branch: str) -> bool:
    """`git merge --no-ff --no-commit BRANCH` (`commit_merge` commits it); True when git met conflicts."""
    return "CONFLICT" in git(root, "merge", "--no-ff", "--no-commit", branch, check=False)


def commit_merge(root: Path, message: str) -> str:
    git(root, "commit", "--quiet", "--no-verify", "-m", message)
    return commit_id(root)


def review_with_dreams_and_a_merge(run_cli: Invoke, root: Path) -> Review:
    """main: a memory with entries REM will act on. `side`: a journal lesson and a hit. `pr`: a
    journal decision, a hit, a `dream` (deep sleep promotes, REM marks proven, folds a duplicate,
    supersedes, archives), then `side` merged in, then a second `dream` that promotes side's lesson."""
    memory = root / "memory"
    write(memory, "decisions.md",
          record("2026-05-01", "Cache everything", hits=4, last="2026-05-18"),
          record("2026-01-10", "Old server config", value="LOW", last="2026-03-01"),
          record("2026-04-01", "Use Redis", hits=2, body="Redis for sessions."),
          record("2026-04-03", "Use Redis", hits=1, body="Redis for sessions.", last="2026-05-02"),
          record("2026-05-01", "API versioning", body="In the header."),
          record("2026-05-19", "API versioning", body="In the path."))
    write(memory, "lessons.md", record("2026-05-10", "Retry the flaky test once", "lesson", hits=1))
    apm(run_cli, root, BASE_DAY, "flush")
    base = commit_id(root)

    git(root, "checkout", "--quiet", "-b", "side")
    now = "2026-05-22T09:00:00+00:00"
    apm(run_cli, root, now, "journal", "add", "Pin the runner image", "--kind", "lesson")
    apm(run_cli, root, now, "hit", "2026-05-10-retry-the-flaky-test-once")
    apm(run_cli, root, now, "flush")

    git(root, "checkout", "--quiet", "main")
    git(root, "checkout", "--quiet", "-b", "pr")
    now = "2026-05-21T09:00:00+00:00"
    apm(run_cli, root, now, "journal", "add", "Deploy on Tuesdays", "--kind", "decision", "--value", "HIGH")
    apm(run_cli, root, now, "hit", "2026-05-01-cache-everything")
    apm(run_cli, root, now, "flush")
    apm(run_cli, root, "2026-06-01T09:00:00+00:00", "dream")

    merge(root, "side")
    resolve_machine_files(run_cli, root, "2026-06-01T09:00:00+00:00")
    merged = commit_merge(root, "Merge branch 'side' into pr")
    apm(run_cli, root, "2026-06-05T09:00:00+00:00", "deep-sleep")
    return Review(base, commit_id(root), merged)


def review_whose_merge_drops_an_entry(run_cli: Invoke, root: Path) -> tuple[Review, str]:
    """Two branches each add an entry to the same day's journal; the merge keeps only ours.
    Returns the review and the id of the entry the merge dropped (added on `side`, never at the base)."""
    now = "2026-05-21T09:00:00+00:00"
    apm(run_cli, root, now, "journal", "add", "Entry both sides keep", "--kind", "decision")
    apm(run_cli, root, now, "flush")
    base = commit_id(root)
    git(root, "checkout", "--quiet", "-b", "side")
    apm(run_cli, root, now, "journal", "add", "Entry only side wrote", "--kind", "lesson")
    apm(run_cli, root, now, "flush")
    git(root, "checkout", "--quiet", "main")
    git(root, "checkout", "--quiet", "-b", "pr")
    apm(run_cli, root, now, "journal", "add", "Entry only pr wrote", "--kind", "lesson")
    apm(run_cli, root, now, "flush")
    merge(root, "side")  # the merge driver keeps both entries (git's own line merge would stop on a conflict)
    git(root, "checkout", "HEAD", "--", "memory/2026-05-21.md")  # a person's resolution that keeps only ours
    resolve_machine_files(run_cli, root, now)
    merged = commit_merge(root, "Merge branch 'side' into pr, keeping our journal")
    return Review(base, merged, merged), "2026-05-21-entry-only-side-wrote"
