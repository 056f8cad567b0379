"""`apm-git log` on a real history: one line per commit, counts from the trailers, JSON version 1."""
from __future__ import annotations

import json

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.review.test_review_diff import Story, head


def test_log_lines_and_json(repo: MemoryRepo, run_cli: Invoke) -> None:
    story = Story(repo, run_cli)
    story.apm("journal", "add", "Await the refresh", "--kind", "lesson", "--title", "Token refresh race")
    story.apm("flush", "--trigger", "pre-compact", "--session", "s-42")
    story.apm("deep-sleep", day="2026-05-24")
    (repo.memory / "people.md").write_text("# People\n\n## Bob\n\nOwns deploys.\n")
    git(repo.root, "commit", "-q", "--no-verify", "-am", "bob by hand")
    lines = story.apm("log").splitlines()
    assert len(lines) == 4
    assert lines[0].endswith(f"{head(repo.root)[:8]}  -            bob by hand")
    assert lines[1].startswith("2026-05-24 12:00  ")
    assert lines[1].endswith("deep-sleep   scope=all  promoted 1")
    assert lines[2].endswith("flush        trigger=pre-compact  scope=all  session=s-42")
    assert "init         scope=all" in lines[3]
    assert story.apm("log", "-n", "1", "--apm-only").splitlines() == [lines[1]]  # -n counts what it prints
    assert len(story.apm("log", "--apm-only").splitlines()) == 3
    assert story.apm("log", "HEAD~2..HEAD~1").splitlines() == [lines[1]]

    data = json.loads(story.apm("log", "--json", "HEAD~3..HEAD"))
    assert data["version"] == 1 and data["range"] == "HEAD~3..HEAD"
    plain, deep, flushed = data["commits"]
    assert (plain["apm"], plain["verb"], plain["trigger"], plain["subject"]) == (False, None, None, "bob by hand")
    assert deep["verb"] == "deep-sleep" and deep["counts"]["promoted"] == 1 and deep["counts"]["archived"] == 0
    assert {"key": "Apm-Trigger", "value": "deep-sleep"} in deep["trailers"]
    assert (flushed["trigger"], flushed["scope"], flushed["session"]) == ("pre-compact", "all", "s-42")
    assert sorted(flushed) == ["apm", "commit", "counts", "date", "merge", "parents", "scope", "session",
                               "subject", "trailers", "trigger", "verb"]


@pytest.mark.slow
def test_a_merge_commit_is_one_line_and_bad_ranges_are_usage_errors(repo: MemoryRepo, run_cli: Invoke) -> None:
    story = Story(repo, run_cli)
    git(repo.root, "checkout", "-q", "-b", "side")
    story.apm("journal", "add", "Side note", "--kind", "context", "--title", "Side note")
    story.apm("flush")
    git(repo.root, "checkout", "-q", "main")
    (repo.memory / "people.md").write_text("# People\n")
    git(repo.root, "commit", "-q", "--no-verify", "-am", "people by hand")
    git(repo.root, "merge", "-q", "--no-ff", "--no-edit", "side")
    first = story.apm("log", "-n", "1").splitlines()
    assert len(first) == 1 and "  merge        Merge branch 'side'" in first[0]
    data = json.loads(story.apm("log", "--json", "-n", "1"))
    assert data["commits"][0]["merge"] is True and len(data["commits"][0]["parents"]) == 2
    ran = run_cli("--repo", str(repo.root), "log", "nosuch..HEAD")
    assert ran.exit_code == 2 and "'nosuch' names no commit here" in ran.stderr
