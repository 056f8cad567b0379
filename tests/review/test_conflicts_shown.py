"""History shows conflicts and the user's words (issue 23, case 6): `log` counts a sync merge's conflicts,
`diff` over the merge puts them at the top, `flush -m` text is the subject, and `log -n` counts what it prints.
Real `apm-git` processes on real clones and a real remote."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conflicts import MINE, THEIRS, apm, conflicted
from tests.conftest import git, run_apm


@pytest.mark.slow
def test_log_counts_the_conflicts_of_a_sync_merge(tmp_path: Path) -> None:
    server = conflicted(tmp_path)
    first = apm(server, "log", "-n", "1").stdout.splitlines()
    assert len(first) == 1 and "  merge        trigger=sync" in first[0] and first[0].endswith("CONFLICT 1")
    data = json.loads(apm(server, "--json", "log", "-n", "1").stdout)
    assert data["commits"][0]["counts"]["conflicts"] == 1 and data["commits"][0]["merge"] is True


@pytest.mark.slow
def test_diff_over_the_merge_puts_the_conflict_where_losses_go(tmp_path: Path) -> None:
    server = conflicted(tmp_path)
    ran = apm(server, "diff", "HEAD~1..HEAD")  # exit 0: nothing is lost, both versions are there
    lines = ran.stdout.splitlines()
    assert lines[0].endswith(": 2 CONFLICT, 2 files")
    assert [line.split()[:2] for line in lines[1:3]] == [["CONFLICT", MINE], ["CONFLICT", THEIRS]]
    assert f"(in conflict with {THEIRS})" in lines[1]
    assert lines[3].startswith("CONFLICT: 2 entries in conflict") and "apm-git resolve ID --keep" in lines[3]
    assert "apm-git resolve ID --keep this|other|both" in ran.stderr
    markdown = apm(server, "diff", "HEAD~1..HEAD", "--format", "markdown").stdout
    assert "**⚠️ 2 CONFLICT**" in markdown and "#### ⚠️ Conflicts: entries a merge kept in two versions" in markdown
    assert markdown.index("Conflicts: entries") < markdown.index("#### Files")
    data = json.loads(apm(server, "--json", "diff", "HEAD~1..HEAD").stdout)
    assert data["summary"]["entries"]["conflict"] == 2 and data["summary"]["entries"]["added"] == 0
    assert [(entry["id"], entry["status"]) for entry in data["entries"][:2]] == [(MINE, "conflict"),
                                                                                 (THEIRS, "conflict")]


def test_flush_message_is_the_subject_and_the_counts_stay_in_trailers(repo: MemoryRepo) -> None:
    apm(repo.root, "journal", "add", "Await the refresh", "--kind", "lesson", "--title", "Token refresh race")
    apm(repo.root, "flush", "-m", "Token refresh lesson from the\toutage\nMore words for the body.")
    assert git(repo.root, "log", "--oneline", "-1", "--format=%s").strip() == \
        "memory: flush: Token refresh lesson from the outage"
    body = git(repo.root, "log", "-1", "--format=%B")
    assert "More words for the body." in body
    assert "Apm-Trigger: manual" in body and "Apm-Scope: all" in body and "Apm-Files: 3" in body
    line = apm(repo.root, "log", "-n", "1").stdout.strip()
    # the verb is still flush; the person's words close the line
    assert line.endswith('  flush        trigger=manual  scope=all  "Token refresh lesson from the outage"')
    data = json.loads(apm(repo.root, "--json", "log", "-n", "1").stdout)["commits"][0]
    assert (data["subject"], data["verb"]) == ("memory: flush: Token refresh lesson from the outage", "flush")
    apm(repo.root, "journal", "add", "Another", "--kind", "lesson", "--title", "Another")
    apm(repo.root, "flush")  # no message: the subject says the count, as before
    assert git(repo.root, "log", "-1", "--format=%s").strip() == "memory: flush 2 files (manual, all)"


@pytest.mark.slow
def test_log_n_counts_what_it_prints_with_apm_only(repo: MemoryRepo) -> None:
    for number in range(3):
        apm(repo.root, "journal", "add", f"Item {number}", "--kind", "context", "--title", f"Item {number}")
        apm(repo.root, "flush")
        (repo.memory / "people.md").write_text(f"# People\n\nBy hand {number}.\n")
        git(repo.root, "commit", "-q", "--no-verify", "-am", f"by hand {number}")
    lines = run_apm("log", "-n", "3", "--apm-only", cwd=repo.root).stdout.splitlines()
    assert len(lines) == 3 and all("  flush  " in line for line in lines)
    assert len(run_apm("log", "-n", "3", cwd=repo.root).stdout.splitlines()) == 3
    assert len(run_apm("log", "--apm-only", cwd=repo.root).stdout.splitlines()) == 4  # and the init
    data = json.loads(run_apm("--json", "log", "-n", "2", "--apm-only", cwd=repo.root).stdout)
    assert [commit["apm"] for commit in data["commits"]] == [True, True]
