"""The fault suite: real apm-git processes killed (SIGKILL) at each write and rename point and at random moments.

The kill points come from `strace -e inject=…:signal=SIGKILL` (benchmarks/faults.py holds the
harness; its full sweep gives the figures of benchmarks/README.md).  The sweeps take minutes and are
left out of a plain run (`pytest -m sweep` runs them; .ci/run does); the deep-sleep rename sweep and
one test per recovery case always run.  After each kill the next
command runs, and nothing may be lost: every entry id present before is live, archived, merged
or superseded in the work tree or HEAD; `git fsck` is clean; no temporary file is tracked; the
next `dream` succeeds.  Skipped, with the reason, where strace is missing or may not trace.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import faults
from faults import APM, Outcome, Point, census, copy, kill_points, prepare, run, run_point, run_random

NO_STRACE = faults.strace_works()
needs_strace = pytest.mark.skipif(NO_STRACE is not None, reason=f"no strace kill points: {NO_STRACE}")
sweep = [pytest.mark.slow, pytest.mark.sweep]  # minutes each: left out of a plain run, `pytest -m sweep` runs them
JOURNAL = Path(".git/apm-git/commit-journal.json")


def _sound(outcomes: list[Outcome]) -> None:
    assert outcomes
    for outcome in outcomes:
        assert outcome.lost == [] and outcome.problems == [], outcome


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("faults")


def _killed_at(work: Path, command: str, where: Callable[[Point], bool], name: str) -> tuple[Path, Path]:
    """A copy of `command`'s repository, its apm-git killed at the first kill point `where` accepts."""
    (work / name).mkdir()
    template = prepare(work / name, command)
    point = next(point for point in kill_points(template, command, work / name) if where(point))
    root = copy(template, work / name / "killed")
    proc = subprocess.run(
        ("strace", "-qq", "-o", "/dev/null", "-e", f"trace={point.syscall}", "-e",
         f"inject={point.syscall}:signal=SIGKILL:when={point.ordinal}", "--", *APM, command),
        cwd=root, env=faults.env(), capture_output=True, check=False,
    )
    assert proc.returncode in (-9, 137), proc.stderr
    return template, root


def _git(root: Path, *args: str) -> str:
    return subprocess.run(("git", *args), cwd=root, capture_output=True, text=True, check=True).stdout


def _memory_rename(point: Point) -> bool:
    return point.syscall.startswith("rename") and point.what.startswith("memory/")


@needs_strace
@pytest.mark.slow
def test_killed_after_the_branch_moved_the_next_reader_finishes_the_work_tree(work: Path) -> None:
    template, root = _killed_at(work, "deep-sleep", _memory_rename, "moved")
    moved = _git(root, "rev-parse", "HEAD")
    assert moved != _git(template, "rev-parse", "HEAD")  # the commit landed before the kill
    assert (root / JOURNAL).exists() and _git(root, "status", "--porcelain", "--", "memory") != ""
    status = run((*APM, "status"), root)
    assert "apm-git: finished `memory: deep-sleep" in status.stderr
    assert "which was interrupted: the work tree and the index now hold it" in status.stderr
    assert not (root / JOURNAL).exists()
    assert _git(root, "status", "--porcelain") == ""  # work tree and index hold the commit, nothing else
    assert _git(root, "rev-parse", "HEAD") == moved
    assert census(root) >= census(template)


@needs_strace
@pytest.mark.slow
def test_killed_before_the_branch_moved_nothing_had_changed(work: Path) -> None:
    template, root = _killed_at(work, "rem", lambda p: p.syscall == "fsync" and p.what == ".git/apm-git", "unmoved")
    assert (root / JOURNAL).exists()  # on disk before the branch moves
    assert _git(root, "rev-parse", "HEAD") == _git(template, "rev-parse", "HEAD")
    assert _git(root, "status", "--porcelain") == ""  # nothing was written to the work tree
    flushed = run((*APM, "flush"), root)
    assert "was interrupted before it committed; nothing had changed" in flushed.stderr
    assert "nothing to flush" in flushed.stdout
    assert not (root / JOURNAL).exists()
    assert run((*APM, "rem"), root).returncode == 0  # and the run goes through when asked again


@needs_strace
@pytest.mark.slow
def test_a_file_changed_meanwhile_is_left_and_named(work: Path) -> None:
    template, root = _killed_at(work, "deep-sleep", _memory_rename, "edited")
    journal = root / "memory/2026-05-30.md"
    edit = "\n## [2026-06-01] Written by hand after the crash\n- Tags: lesson\n"
    journal.write_text(journal.read_text() + edit)
    flushed = run((*APM, "flush"), root)
    head = _git(root, "rev-parse", "--short=12", "HEAD~1").strip()  # the consolidation; the flush sits on top
    assert ("apm-git: memory/2026-05-30.md was changed while `memory: deep-sleep" in flushed.stderr
            and f"so it was left as it is; its consolidated version is `git show {head}:memory/2026-05-30.md`"
            in flushed.stderr)
    assert edit in journal.read_text() and edit in _git(root, "show", "HEAD:memory/2026-05-30.md")
    assert census(root) >= census(template)


@needs_strace
@pytest.mark.slow
def test_lint_never_writes_it_only_says_a_commit_is_unfinished(work: Path) -> None:
    _, root = _killed_at(work, "deep-sleep", _memory_rename, "lint")
    dirty = _git(root, "status", "--porcelain")
    linted = run((*APM, "lint"), root, check=False)
    assert ("is not finished: the work tree may not hold all of it yet; any apm-git command that writes "
            "(e.g. `apm-git flush`) finishes it") in linted.stderr
    assert (root / JOURNAL).exists() and _git(root, "status", "--porcelain") == dirty


@needs_strace
@pytest.mark.slow
def test_a_reader_that_finds_the_lock_held_reads_on_and_says_so(work: Path) -> None:
    from apm_git.store.lock import file_lock

    _, root = _killed_at(work, "rem", _memory_rename, "busy")
    with file_lock(root / ".git/apm-git/lock", "the test"):
        status = run((*APM, "status"), root)
    assert status.returncode == 0 and "is not finished" in status.stderr
    assert (root / JOURNAL).exists()


@pytest.mark.slow
def test_a_journal_apm_git_did_not_write_is_one_line_and_changes_nothing(work: Path) -> None:
    (work / "corrupt").mkdir()
    root = prepare(work / "corrupt", "flush")
    (root / JOURNAL).parent.mkdir(exist_ok=True)
    (root / JOURNAL).write_text(json.dumps({"version": 1, "files": "nonsense"}))
    before = _git(root, "status", "--porcelain")
    flushed = run((*APM, "flush"), root, check=False)
    assert flushed.returncode == 3
    assert flushed.stderr.count("\n") == 1 and "commit-journal.json is not a journal apm-git wrote" in flushed.stderr
    assert _git(root, "status", "--porcelain") == before


@pytest.mark.slow
def test_a_temporary_file_a_kill_left_is_swept_never_committed(work: Path) -> None:
    (work / "temporary").mkdir()
    root = prepare(work / "temporary", "flush")
    dead = subprocess.run((sys.executable, "-c", "import os; print(os.getpid())"), capture_output=True, text=True,
                          check=True).stdout.strip()
    left = root / f"memory/.lessons.md.{dead}.apm-tmp"
    left.write_text("half a file\n")
    run((*APM, "flush"), root)
    assert not left.exists()
    assert ".apm-tmp" not in _git(root, "ls-files") + _git(root, "ls-tree", "-r", "--name-only", "HEAD")


@needs_strace
@pytest.mark.parametrize("command", [
    "deep-sleep",  # the case, in every run of the suite; the others are slow
    *(pytest.param(command, marks=sweep) for command in faults.COMMANDS if command != "deep-sleep"),
])
@pytest.mark.slow
def test_every_rename_point(work: Path, command: str) -> None:
    """Killed at each rename (and unlink) of the apm-git process: the next command loses nothing."""
    folder = work / f"renames-{command}"
    folder.mkdir()
    template = prepare(folder, command)
    points = kill_points(template, command, folder, ("rename", "renameat", "renameat2", "unlink", "unlinkat"))
    assert len(points) >= 3
    outcomes = [run_point(template, command, point, folder / f"run-{n}") for n, point in enumerate(points)]
    _sound(outcomes)
    assert all(outcome.killed for outcome in outcomes)
    if command != "flush":  # a flush writes its files before it commits: nothing is left to finish
        assert any(outcome.finished for outcome in outcomes)


@needs_strace
@pytest.mark.slow
@pytest.mark.sweep
def test_every_write_point_of_deep_sleep(work: Path) -> None:
    """Killed at each opening for writing, write and fsync of a repository file (deep sleep touches the most)."""
    folder = work / "writes"
    folder.mkdir()
    template = prepare(folder, "deep-sleep")
    points = kill_points(template, "deep-sleep", folder, ("openat", "write", "fsync"))
    assert any(point.what.startswith(".git/apm-git/.commit-journal.json.") for point in points)  # its writes too
    _sound([run_point(template, "deep-sleep", point, folder / f"run-{n}") for n, point in enumerate(points)])


@pytest.mark.slow
@pytest.mark.sweep
@pytest.mark.parametrize("command", faults.COMMANDS)
def test_random_moments(work: Path, command: str) -> None:
    """Killed after a random delay (seeded): the next command loses nothing."""
    folder = work / f"random-{command}"
    folder.mkdir()
    template = prepare(folder, command)
    rng = random.Random(f"apm-git faults {command}")
    _sound([run_random(template, command, rng.uniform(0.05, 1.5), folder / f"run-{n}") for n in range(4)])


def test_init_keeps_temporary_files_out_of_a_users_git_add(work: Path) -> None:
    (work / "exclude").mkdir()
    root = prepare(work / "exclude", "flush")
    assert "*.apm-tmp" in (root / ".git/info/exclude").read_text()
    (root / "memory/.decisions.md.1.apm-tmp").write_text("half a file\n")
    subprocess.run(("git", "add", "-A"), cwd=root, check=True)
    assert ".apm-tmp" not in _git(root, "diff", "--cached", "--name-only")
