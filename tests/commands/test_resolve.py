"""`apm-git resolve ID --keep this|other|both` (issue 23, case 3): a conflict a sync merge kept is settled in
one commit that passes apm-no-loss, and every message that reports a conflict names the command.  Real
`apm-git` processes on real clones and a real remote."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.model.records import parse
from tests.conflicts import JOURNAL, MINE, THEIRS, apm, conflicted, conflicting_sync
from tests.conftest import git

RESOLVE = "apm-git resolve ID --keep this|other|both"


def live_entries(root: Path) -> dict[str, str]:
    """id -> text of each entry in the journal."""
    return {record.id: record.text for record in parse((root / JOURNAL).read_text()).entries}


def archived(root: Path) -> dict[str, str]:
    found = {}
    for path in sorted((root / "memory" / "archive").glob("*.md")):
        found.update({record.id: record.text for record in parse(path.read_text()).entries})
    return found


def clean_and_checked(root: Path) -> None:
    """The settling commit holds everything, and every check passes on it (apm-no-loss first)."""
    assert git(root, "status", "--porcelain") == ""
    lint = apm(root, "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD", expect=None)
    assert lint.exit_code == 0, lint.stdout + lint.stderr
    assert "Entries in conflict" not in apm(root, "status").stdout


@pytest.mark.slow
def test_every_message_about_a_conflict_names_the_command(tmp_path: Path) -> None:
    server, synced = conflicting_sync(tmp_path)
    lines = [line for line in synced.stderr.splitlines() if "CONFLICT" in line]
    assert lines == [f"apm-git: CONFLICT: {JOURNAL}: {MINE}: both sides changed the body; both versions are kept, "
                     f"linked by Conflicts: ({THEIRS}); settle it with `apm-git resolve {MINE} --keep "
                     "this|other|both` (nothing is lost), then sync"]
    note = parse((server / JOURNAL).read_text()).entries[0].field("Conflicts") or ""
    assert note.startswith(f"{THEIRS} — ") and "apm-git resolve <this entry's id> --keep this|other|both" in note
    assert "delete" not in note
    status = apm(server, "status").stdout
    assert f"Entries in conflict: 2 (settle each with `{RESOLVE}`" in status
    assert f"`apm-git resolve {MINE} --keep this|other|both`" in status


@pytest.mark.slow
def test_keep_this_supersedes_the_other_version_and_passes_every_check(tmp_path: Path) -> None:
    server = conflicted(tmp_path)
    ran = apm(server, "resolve", MINE, "--keep", "this")
    assert f"kept {MINE} in memory/2026-05-04.md; {THEIRS} superseded by it" in ran.stdout
    live = live_entries(server)
    assert list(live) == [MINE] and "the server's version" in live[MINE]
    assert f"- Supersedes: {THEIRS} — the laptop's version" in live[MINE] and "Conflicts" not in live[MINE]
    gone = archived(server)[THEIRS]
    assert "the laptop's version" in gone and f"- Superseded-by: {MINE}" in gone and "Conflicts" not in gone
    clean_and_checked(server)
    body = git(server, "log", "-1", "--format=%B")
    assert f"Apm-Supersede: {THEIRS} -> {MINE}" in body and "Apm-Trigger: resolve" in body
    diff = json.loads(apm(server, "--json", "diff", "HEAD~1..HEAD").stdout)
    assert {entry["id"]: entry["status"] for entry in diff["entries"]} == {MINE: "edited", THEIRS: "superseded"}
    history = json.loads(apm(server, "--json", "history", THEIRS).stdout)["events"]
    assert history[-1]["what"] == "superseded" and history[-1]["file"].startswith("memory/archive/")
    assert apm(server, "sync").exit_code == 0  # and it is shared: the remote takes it


@pytest.mark.slow
def test_keep_other_keeps_the_version_the_conflict_names(tmp_path: Path) -> None:
    server = conflicted(tmp_path)
    data = json.loads(apm(server, "--json", "resolve", MINE, "--keep", "other").stdout)
    assert (data["kept"], data["gone"], data["how"]) == (THEIRS, MINE, "superseded")
    assert data["archive"].startswith("memory/archive/") and data["commit"] == git(server, "rev-parse", "HEAD").strip()
    live = live_entries(server)
    assert list(live) == [THEIRS] and "the laptop's version" in live[THEIRS]
    assert f"- Superseded-by: {THEIRS}" in archived(server)[MINE]
    clean_and_checked(server)


@pytest.mark.slow
def test_naming_the_other_version_with_keep_this_keeps_it(tmp_path: Path) -> None:
    server = conflicted(tmp_path)
    apm(server, "resolve", THEIRS, "--keep", "this")
    assert list(live_entries(server)) == [THEIRS] and MINE in archived(server)
    clean_and_checked(server)


@pytest.mark.slow
def test_keep_both_folds_the_other_version_into_one_entry(tmp_path: Path) -> None:
    server = conflicted(tmp_path)
    data = json.loads(apm(server, "--json", "resolve", MINE, "--keep", "both").stdout)
    assert (data["kept"], data["gone"], data["how"], data["archive"]) == (MINE, THEIRS, "merged", None)
    live = live_entries(server)
    assert list(live) == [MINE]
    assert "- Body: the server's version" in live[MINE] and "the laptop's version" in live[MINE]
    assert f"- Merged: {THEIRS}" in live[MINE] and "Conflicts" not in live[MINE]
    assert THEIRS not in archived(server)
    clean_and_checked(server)
    diff = json.loads(apm(server, "--json", "diff", "HEAD~1..HEAD").stdout)
    assert {entry["id"]: entry["status"] for entry in diff["entries"]} == {MINE: "edited", THEIRS: "merged"}


@pytest.mark.slow
def test_deleting_one_version_by_hand_is_still_a_loss(tmp_path: Path) -> None:
    """Why the command exists: the old advice (delete the other version) is what apm-no-loss refuses."""
    server = conflicted(tmp_path)
    text = (server / JOURNAL).read_text()
    (server / JOURNAL).write_text(text[:text.index("## [2026-05-04] shared lesson (merge")])
    lint = apm(server, "lint", expect=1)
    assert "apm-no-loss" in lint.stdout and THEIRS in lint.stdout


@pytest.mark.slow
def test_uncommitted_memory_is_flushed_first_and_kept(tmp_path: Path) -> None:
    server = conflicted(tmp_path)
    apm(server, "journal", "add", "Written before settling", "--kind", "context", "--title", "Before settling")
    data = json.loads(apm(server, "--json", "resolve", MINE, "--keep", "this").stdout)
    assert data["flushed"] and data["flushed"] == git(server, "rev-parse", "HEAD~1").strip()
    assert "2026-05-04-before-settling" in live_entries(server)
    clean_and_checked(server)


BAD = [
    (("not-an-id", "--keep", "this"), 2, "is not an entry id"),
    ((MINE, "--keep", "mine"), 2, "'mine' is not one of 'this', 'other', 'both'"),
    ((MINE,), 2, "Missing option '--keep'"),
    (("2026-05-04-no-such-entry", "--keep", "this"), 1, "no live entry 2026-05-04-no-such-entry"),
    ((MINE, "--keep", "this", "--with", "2026-05-04-someone-else"), 2,
     "is not in conflict with 2026-05-04-someone-else"),
]


@pytest.mark.slow
def test_bad_requests_change_nothing(tmp_path: Path) -> None:
    server = conflicted(tmp_path)
    before = (git(server, "rev-parse", "HEAD"), (server / JOURNAL).read_text())
    for args, code, says in BAD:
        ran = apm(server, "resolve", *args, expect=code)
        assert says in ran.stderr, ran.stderr
        assert len(ran.stderr.strip().splitlines()) == 1 or ran.stderr.startswith("Usage:")  # click's usage text
        assert (git(server, "rev-parse", "HEAD"), (server / JOURNAL).read_text()) == before


def test_an_entry_not_in_conflict_is_refused(tmp_path: Path) -> None:
    server = conflicted(tmp_path)
    apm(server, "resolve", MINE, "--keep", "this")
    ran = apm(server, "resolve", MINE, "--keep", "this", expect=1)
    assert f"{MINE} is not in conflict" in ran.stderr
