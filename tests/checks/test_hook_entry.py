"""`apm-git-hook-run`: `apm-checks` runs every check in one process; a check's own id runs that check alone."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Ran, git

BIN = Path(sys.executable).parent
HOOK = str(BIN / "apm-git-hook-run")
OLD_NAME = str(BIN / "apm-git-hook")  # what configurations written before `apm-checks` run


def hook(root: Path, *args: str, env: dict[str, str] | None = None, program: str = HOOK) -> Ran:
    proc = subprocess.run((program, *args), cwd=root, capture_output=True, text=True, check=False,
                          env={**os.environ, **(env or {})})
    return Ran(proc.returncode, proc.stdout, proc.stderr)


def state(repo: MemoryRepo) -> dict[str, bytes]:
    """apm-git's files in the git dir but the entry-id cache every reader keeps: a hook stores nothing for
    the next hook."""
    folder = repo.git_dir / "apm-git"
    return {str(path): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file() and path.name != "entries.cache"}


def stage_broken_record(repo: MemoryRepo) -> None:
    path = repo.memory / "lessons.md"
    path.write_text(path.read_text() + "\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: b\n")
    git(repo.root, "add", "-A")


BROKEN = "memory/lessons.md:7: apm-record-format: missing field '- Fitness:' (fields are Tags, Fitness, Body)\n"


def test_usage_errors(repo: MemoryRepo, tmp_path: Path) -> None:
    for args in ((), ("apm-nothing",), ("apm-git-hook",)):
        ran = hook(repo.root, *args)
        assert ran.exit_code == 2 and ran.stderr.startswith("usage: apm-git-hook-run HOOK-ID"), args
        assert "apm-checks, apm-no-secrets" in ran.stderr
    outside = tmp_path / "plain"
    outside.mkdir()
    git(outside, "init", "-q")
    ran = hook(outside, "apm-budget")
    assert ran.exit_code == 3 and "not a memory repository" in ran.stderr and len(ran.stderr.splitlines()) == 1


@pytest.mark.slow
def test_a_check_id_runs_that_check_alone_and_stores_nothing(repo: MemoryRepo) -> None:
    """The old per-check hook ids are aliases: each runs its own check, with no findings left for the next."""
    (repo.memory / "people.md").write_text("# People\n" + "- x\n" * 150)
    git(repo.root, "commit", "-qam", "over budget, committed without checks")
    stage_broken_record(repo)
    before = state(repo)
    files = ("memory/lessons.md", "memory/people.md")
    assert hook(repo.root, "apm-record-format", *files) == Ran(1, BROKEN, "")
    budget = hook(repo.root, "apm-budget", *files)
    assert budget.exit_code == 1 and budget.stdout.startswith("memory/people.md:101: apm-budget: 151/100 lines")
    assert len(budget.stdout.splitlines()) == 1
    for hook_id in ("apm-no-loss", "apm-append-only", "apm-index-fresh", "apm-state-json", "apm-no-secrets"):
        assert hook(repo.root, hook_id, *files) == Ran(0, "", ""), hook_id
    assert hook(repo.root, "apm-budget", "memory/lessons.md") == Ran(0, "", "")  # per file: only the files given
    assert state(repo) == before


def test_the_old_program_name_runs_the_same_hook(repo: MemoryRepo) -> None:
    """A configuration written before `apm-checks` names `apm-git-hook`: the same program, no sh, no cache."""
    stage_broken_record(repo)
    assert hook(repo.root, "apm-record-format", "memory/lessons.md", program=OLD_NAME) == Ran(1, BROKEN, "")
    assert hook(repo.root, "apm-checks", "memory/lessons.md", program=OLD_NAME) == Ran(1, BROKEN, "")
    assert Path(OLD_NAME).read_text() == Path(HOOK).read_text()  # both console scripts of hook_run:main


@pytest.mark.slow
def test_apm_checks_prints_every_check_and_stores_nothing(repo: MemoryRepo, tmp_path: Path) -> None:
    (repo.memory / "people.md").write_text("# People\n" + "- x\n" * 150)
    git(repo.root, "commit", "-qam", "over budget, committed without checks")
    stage_broken_record(repo)
    ran = hook(repo.root, "apm-checks", "memory/lessons.md")  # the per-file checks look at the files given
    assert (ran.exit_code, ran.stdout) == (1, BROKEN)
    ran = hook(repo.root, "apm-checks", "memory/lessons.md", "memory/people.md")  # as with --all-files
    lines = ran.stdout.splitlines()
    assert ran.exit_code == 1 and len(lines) == 2 and BROKEN.strip() in lines
    assert [line for line in lines if line.startswith("memory/people.md:101: apm-budget: 151/100 lines")]
    ran = hook(repo.root, "apm-checks", "memory/lessons.md", "memory/people.md", env={"SKIP": "apm-budget"})
    assert (ran.exit_code, ran.stdout) == (1, BROKEN)
    git(repo.root, "rm", "-q", "--cached", "memory/lessons.md")  # a deletion: no file to hand, still checked
    ran = hook(repo.root, "apm-checks")
    assert ran.exit_code == 1 and "apm-index-fresh: names lessons.md" in ran.stdout and "apm-budget" not in ran.stdout


def test_apm_checks_before_the_first_commit(repo: MemoryRepo) -> None:
    git(repo.root, "update-ref", "-d", "HEAD")  # HEAD unborn again, the memory staged: everything is new
    stage_broken_record(repo)
    ran = hook(repo.root, "apm-checks", "memory/lessons.md")
    assert (ran.exit_code, ran.stdout, ran.stderr) == (1, BROKEN, "")


@pytest.mark.slow
def test_a_new_staged_state_is_checked_afresh(repo: MemoryRepo) -> None:
    stage_broken_record(repo)
    assert hook(repo.root, "apm-record-format", "memory/lessons.md").stdout == BROKEN
    path = repo.memory / "lessons.md"
    path.write_text(path.read_text().replace("- Body: b", "- Fitness: last_referenced=2026-04-06, hit_count=0, "
                                              "decision_value=LOW\n- Body: b"))
    ran = hook(repo.root, "apm-record-format", "memory/lessons.md")
    assert ran.exit_code == 1 and ran.stdout == BROKEN  # the fix is not staged: the commit would hold the break
    git(repo.root, "add", "-A")
    assert hook(repo.root, "apm-record-format", "memory/lessons.md") == Ran(0, "", "")


def test_hook_reads_the_index_that_git_commit_hands_it(repo: MemoryRepo) -> None:
    """`git commit -a` and `git commit PATH` run hooks on a temporary index named by GIT_INDEX_FILE."""
    stage_broken_record(repo)
    git(repo.root, "reset", "-q")
    env = {**os.environ, "GIT_INDEX_FILE": str(repo.git_dir / "index.tmp")}
    subprocess.run(("git", "read-tree", "HEAD"), cwd=repo.root, env=env, check=True)
    subprocess.run(("git", "add", "memory/lessons.md"), cwd=repo.root, env=env, check=True)
    ran = hook(repo.root, "apm-record-format", "memory/lessons.md", env={"GIT_INDEX_FILE": env["GIT_INDEX_FILE"]})
    assert (ran.exit_code, ran.stdout) == (1, BROKEN)
    assert hook(repo.root, "apm-record-format", "memory/lessons.md") == Ran(0, "", "")  # the real index is clean


def test_the_runner_imports_no_dataclasses(repo: MemoryRepo) -> None:
    """The runner is one short process per commit: importing dataclasses (with inspect, ast, dis and
    tokenize) and generating each @dataclass cost it about 15 ms, so nothing it imports uses them; nor
    the command line's click (docs/hook-entry.md, "Start-up")."""
    stage_broken_record(repo)
    code = ("import sys\nfrom apm_git.operations.hook_run import main\n"
            "code = main(['apm-checks', 'memory/lessons.md'])\n"
            "print(code, sorted(name for name in ('dataclasses', 'inspect', 'click') if name in sys.modules))\n")
    for hook_id in ("apm-checks", "apm-record-format"):
        proc = subprocess.run((sys.executable, "-c", code.replace("apm-checks", hook_id)), cwd=repo.root,
                              capture_output=True, text=True, check=False)
        assert proc.stdout.endswith(BROKEN + "1 []\n"), (hook_id, proc.stdout, proc.stderr)
