"""`apm-git sync` under hostile and heavy input (issue 22, cases 1 to 3): a file the merge cannot read stops
it with nothing changed, counters add up, and merges of any size are iterative and bounded."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from apm_git.model.limits import MAX_FILE_BYTES
from tests.commands.test_sync import NOW, add, state, sync, two_clones
from tests.conftest import Invoke
from tests.sync_helpers import bare_remote, git

LESSONS = "memory/lessons.md"


@pytest.fixture
def url_by_path(tmp_path: Path) -> str:
    return str(bare_remote(tmp_path))


def lesson(title: str, day: str = "2026-05-01") -> str:
    return (f"## [{day}] {title}\n- Tags: lesson\n"
            f"- Fitness: last_referenced={day}, hit_count=0, decision_value=MEDIUM\n- Body: {title}, and why.\n\n")


def remote_state(root: Path) -> str:
    return git(root, "ls-remote", "origin")


def with_lessons(run_cli: Invoke, tmp_path: Path, url: str) -> tuple[Path, Path]:
    """Two clones whose lessons.md holds three entries, pushed and fetched by both."""
    laptop, server = two_clones(run_cli, tmp_path, url)
    path = laptop / LESSONS
    path.write_text(path.read_text() + "\n" + "".join(lesson(f"Lesson {n}") for n in range(3)))
    assert sync(run_cli, laptop)[0] == 0
    assert sync(run_cli, server)[0] == 0
    return laptop, server


@pytest.mark.slow
@pytest.mark.parametrize("junk", [
    pytest.param(b"\x00\xff\xfe junk \x80\x81" * 50, id="junk-bytes"),
    pytest.param("utf16", id="utf-16"),
    pytest.param("utf16-no-bom", id="utf-16-without-bom"),
])
def test_a_file_the_other_side_made_unreadable_stops_the_merge_with_nothing_changed(
    run_cli: Invoke, tmp_path: Path, url_by_path: str, junk: bytes | str,
) -> None:
    laptop, server = with_lessons(run_cli, tmp_path, url_by_path)
    text = (server / LESSONS).read_text()
    data = {"utf16": text.encode("utf-16"), "utf16-no-bom": text.encode("utf-16-le")}.get(str(junk), junk)
    assert isinstance(data, bytes)
    (server / LESSONS).write_bytes(data)
    git(server, "commit", "-qam", "re-saved by an editor", "--no-verify")
    culprit = git(server, "rev-parse", "HEAD").strip()
    git(server, "push", "-q", "origin", "HEAD:main")
    path = laptop / LESSONS
    path.write_text(path.read_text() + lesson("Added on the laptop"))
    git(laptop, "commit", "-qam", "a lesson", "--no-verify")
    before, remote = state(laptop), remote_state(laptop)
    code, out, err = sync(run_cli, laptop)
    assert code == 3, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert LESSONS in lines[0] and culprit[:12] in lines[0] and "re-saved by an editor" in lines[0]
    assert "origin/main" in lines[0] and "nothing was" in lines[0] and "changed" in lines[0]
    assert state(laptop)[:3] == before[:3]  # HEAD, index, work tree (the tracking ref holds the fetch)
    assert remote_state(laptop) == remote
    assert not git(laptop, "for-each-ref", "refs/apm-git/backup")
    held = path.read_text()
    assert all(f"Lesson {n}" in held for n in range(3)) and "Added on the laptop" in held


def test_a_file_this_branch_made_unreadable_stops_the_merge_naming_this_branch(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop, server = with_lessons(run_cli, tmp_path, url_by_path)
    path = server / LESSONS
    path.write_text(path.read_text() + lesson("Added on the server"))
    assert sync(run_cli, server)[0] == 0
    (laptop / LESSONS).write_bytes(b"\xff" * 10)
    git(laptop, "commit", "-qam", "broken here", "--no-verify")
    before, remote = state(laptop), remote_state(laptop)
    code, _, err = sync(run_cli, laptop)
    assert code == 3 and len(err.strip().splitlines()) == 1
    assert "this branch" in err and "broken here" in err and LESSONS in err
    assert state(laptop)[:3] == before[:3] and remote_state(laptop) == remote


def broken_on_both(run_cli: Invoke, tmp_path: Path, url: str) -> tuple[Path, Path]:
    """Two clones whose lessons.md is not UTF-8 alike: committed by hand on one, synced to both."""
    laptop, server = two_clones(run_cli, tmp_path, url)
    (laptop / LESSONS).write_bytes(b"\xff broken\n")
    git(laptop, "commit", "-qam", "broken", "--no-verify")
    assert sync(run_cli, laptop)[0] == 0
    assert sync(run_cli, server)[0] == 0
    return laptop, server


@pytest.mark.slow
def test_a_file_fixed_on_the_other_side_of_an_unreadable_one_is_taken(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    """The unreadable version was the base's and this side left it alone: the other side's repair wins."""
    laptop, server = broken_on_both(run_cli, tmp_path, url_by_path)
    (server / LESSONS).write_text("# Lessons\n\n" + lesson("Repaired"))
    git(server, "commit", "-qam", "repaired", "--no-verify")
    assert sync(run_cli, server)[0] == 0
    add(run_cli, laptop, "learned on the laptop")
    code, out, err = sync(run_cli, laptop)
    assert code == 0, out + err
    assert "Repaired" in (laptop / LESSONS).read_text()
    assert "learned on the laptop" in git(laptop, "show", "origin/main:memory/2026-05-04.md")


@pytest.mark.slow
def test_a_file_both_sides_left_unreadable_alike_stays_as_it_is(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop, server = broken_on_both(run_cli, tmp_path, url_by_path)
    add(run_cli, laptop, "learned on the laptop")
    add(run_cli, server, "learned on the server")
    assert sync(run_cli, laptop)[0] == 0
    code, out, err = sync(run_cli, server)
    assert code == 0 and "merged" in out, err
    assert (server / LESSONS).read_bytes() == b"\xff broken\n"
    assert git(server, "show", f"HEAD:{LESSONS}") == git(server, "show", f"HEAD^1:{LESSONS}")


def entry_of(root: Path, ident: str) -> str:
    """The Fitness line of an entry, wherever it is in the memory."""
    for path in sorted((root / "memory").rglob("*.md")):
        text = path.read_text()
        match = re.search(rf"^## \[{ident[:10]}\] .*\n(?:- .*\n)*?- Fitness: (.*)$", text, re.MULTILINE)
        if match and ident[11:].replace("-", " ") in match[0].lower():
            return match[1]
    raise AssertionError(f"{ident} not found in {root}")


def hit(run_cli: Invoke, root: Path, ident: str, now: str = NOW) -> None:
    ran = run_cli("--repo", str(root), "hit", ident, env={"APM_GIT_NOW": now})
    assert ran.exit_code == 0, ran.stderr


@pytest.mark.slow
def test_two_clones_hitting_one_entry_in_the_same_second_count_both_hits(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop, server = two_clones(run_cli, tmp_path, url_by_path)
    add(run_cli, laptop, "shared lesson")
    assert sync(run_cli, laptop)[0] == 0
    assert sync(run_cli, server)[0] == 0
    ident = "2026-05-04-shared-lesson"
    assert "hit_count=0" in entry_of(server, ident)
    for root in (laptop, server):
        hit(run_cli, root, ident, "2026-05-06T09:00:00")
        assert run_cli("--repo", str(root), "flush", env={"APM_GIT_NOW": "2026-05-06T09:00:00"}).exit_code == 0
    # the same change, the same parent, the same identity and second: only the clone's id keeps them apart
    assert git(laptop, "rev-parse", "HEAD^{tree}") == git(server, "rev-parse", "HEAD^{tree}")
    assert git(laptop, "rev-parse", "HEAD") != git(server, "rev-parse", "HEAD")
    ids = {git(root, "log", "-1", "--format=%(trailers:key=Apm-Clone,valueonly)", "HEAD").strip()
           for root in (laptop, server)}
    assert len(ids) == 2 and all(re.fullmatch(r"[0-9a-f]{16}", ident) for ident in ids)
    assert sync(run_cli, laptop, now="2026-05-06T09:00:00")[0] == 0
    code, _, err = sync(run_cli, server, now="2026-05-06T09:00:00")
    assert code == 0, err
    assert sync(run_cli, laptop, now="2026-05-06T09:00:00")[0] == 0
    for root in (laptop, server):
        assert entry_of(root, ident) == "last_referenced=2026-05-06, hit_count=2, decision_value=MEDIUM"


@pytest.mark.slow
def test_a_criss_cross_history_counts_each_hit_once(run_cli: Invoke, tmp_path: Path, url_by_path: str) -> None:
    """Two agents on branches of their own that merged each other's work at the same time: the next merge has
    two best common ancestors, and merges from a virtual base (both merged), as git's recursive merge does."""
    laptop, server = two_clones(run_cli, tmp_path, url_by_path)
    assert run_cli("--repo", str(server), "setup", "--no-install").exit_code == 0  # the driver, for git merge
    add(run_cli, laptop, "shared lesson")
    assert sync(run_cli, laptop)[0] == 0
    assert sync(run_cli, server)[0] == 0
    ident = "2026-05-04-shared-lesson"
    for root, branch, day in ((laptop, "a", "2026-05-06T09:00:00"), (server, "b", "2026-05-07T09:00:00")):
        hit(run_cli, root, ident, day)
        assert sync(run_cli, root, "--branch", branch, now=day)[0] == 0  # A1 on a, B1 on b
    git(server, "fetch", "-q", "origin", "a:refs/remotes/origin/a")  # the server sees A1 before a moves on
    assert sync(run_cli, laptop, "--branch", "a", "--gather", "b", now="2026-05-08T09:00:00")[0] == 0  # MA
    ran = subprocess.run(("git", "merge", "--no-edit", "origin/a"), cwd=server, capture_output=True, text=True,
                         check=False)  # MB = B1 + A1, through the merge driver
    assert ran.returncode == 0, ran.stdout + ran.stderr
    git(server, "push", "-q", "origin", "HEAD:b")
    assert entry_of(server, ident).startswith("last_referenced=2026-05-07, hit_count=2,")
    hit(run_cli, laptop, ident, "2026-05-09T09:00:00")  # one more, on top of MA
    code, _, err = sync(run_cli, laptop, "--branch", "a", "--gather", "b", now="2026-05-09T09:00:00")
    assert code == 0, err
    head = git(laptop, "rev-parse", "HEAD").strip()
    assert len(git(laptop, "merge-base", "--all", f"{head}^1", f"{head}^2").split()) == 2  # criss-cross
    assert entry_of(laptop, ident) == "last_referenced=2026-05-09, hit_count=3, decision_value=MEDIUM"


@pytest.mark.slow
def test_a_side_that_appends_1200_records_merges_without_recursion(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop, server = two_clones(run_cli, tmp_path, url_by_path)
    archive = "memory/archive/2026-04.md"
    (laptop / archive).parent.mkdir(parents=True, exist_ok=True)
    (laptop / archive).write_text("# Archive 2026-04\n\n" + lesson("Archived first", "2026-04-01"))
    git(laptop, "add", archive)
    git(laptop, "commit", "-qm", "archive", "--no-verify")
    assert sync(run_cli, laptop)[0] == 0
    assert sync(run_cli, server)[0] == 0
    with (server / archive).open("a") as handle:
        handle.write("".join(lesson(f"Bulk {n}", "2026-04-02") for n in range(1200)))
    git(server, "commit", "-qam", "1,200 records", "--no-verify")
    assert sync(run_cli, server)[0] == 0
    with (laptop / archive).open("a") as handle:
        handle.write(lesson("One more", "2026-04-03"))
    git(laptop, "commit", "-qam", "one record", "--no-verify")
    code, out, err = sync(run_cli, laptop)
    assert code == 0 and "merged" in out, err
    merged = (laptop / archive).read_text()
    assert merged.count("\n## [") + merged.startswith("## [") == 1202
    assert "Bulk 1199" in merged and "One more" in merged


@pytest.mark.slow
def test_a_file_over_the_read_limit_changed_on_both_sides_is_refused_never_half_merged(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop, server = two_clones(run_cli, tmp_path, url_by_path)
    journal = "memory/2026-04-01.md"
    bulk = "".join(lesson(f"Bulk {n:06d} " + "x" * 120, "2026-04-01") for n in range(MAX_FILE_BYTES // 220 + 600))
    assert MAX_FILE_BYTES < len(bulk) < 2 * MAX_FILE_BYTES
    (laptop / journal).write_text("# 2026-04-01\n\n" + bulk)
    git(laptop, "add", journal)
    git(laptop, "commit", "-qm", "a large journal", "--no-verify")
    assert sync(run_cli, laptop)[0] == 0
    assert sync(run_cli, server)[0] == 0
    for root, title in ((laptop, "Laptop"), (server, "Server")):
        with (root / journal).open("a") as handle:
            handle.write(lesson(title, "2026-04-01"))
        git(root, "commit", "-qam", f"{title} appends", "--no-verify")
    assert sync(run_cli, server)[0] == 0
    before, remote = state(laptop), remote_state(laptop)
    code, _, err = sync(run_cli, laptop)
    assert code == 3 and len(err.strip().splitlines()) == 1, err
    assert journal in err and "over the 4.0 MB" in err and "Server appends" in err
    assert state(laptop)[:3] == before[:3] and remote_state(laptop) == remote
