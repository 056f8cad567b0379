"""`apm-git-hook`: one hook per process, seven processes sharing one computation per commit."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from apm_git.repo import MemoryRepo
from tests.checks.helpers import record
from tests.conftest import Ran, git

HOOK = str(Path(sys.executable).parent / "apm-git-hook")
PROBE = """
import sys
from apm_git.checks.hook import main
code = main(sys.argv[1:])
heavy = [name for name in ("subprocess", "apm_git.model.records", "apm_git.config", "detect_secrets")
         if name in sys.modules]
print("heavy:", ",".join(heavy))
sys.exit(code)
"""


def hook(root: Path, *args: str) -> Ran:
    proc = subprocess.run((HOOK, *args), cwd=root, capture_output=True, text=True, check=False)
    return Ran(proc.returncode, proc.stdout, proc.stderr)


def probe(root: Path, *args: str) -> Ran:
    proc = subprocess.run((sys.executable, "-c", PROBE, *args), cwd=root, capture_output=True, text=True, check=False)
    return Ran(proc.returncode, proc.stdout, proc.stderr)


def stage_broken_record(repo: MemoryRepo) -> None:
    path = repo.memory / "lessons.md"
    path.write_text(path.read_text() + "\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: b\n")
    git(repo.root, "add", "-A")


def test_usage_errors(repo: MemoryRepo, tmp_path: Path) -> None:
    for args in ((), ("apm-nothing",)):
        ran = hook(repo.root, *args)
        assert ran.exit_code == 2 and ran.stderr.startswith("usage: apm-git-hook HOOK-ID")
    git(tmp_path, "init", "-q")
    ran = hook(tmp_path, "apm-budget")
    assert ran.exit_code == 3 and "not a memory repository" in ran.stderr and len(ran.stderr.splitlines()) == 1


def test_the_first_hook_computes_and_the_others_read_its_findings(repo: MemoryRepo) -> None:
    stage_broken_record(repo)
    first = probe(repo.root, "apm-budget", "memory/lessons.md")
    assert first.exit_code == 0 and "subprocess" in first.stdout  # computed: the whole machinery was loaded
    assert (repo.git_dir / "apm-git" / "hook-findings.cache").is_file()
    second = probe(repo.root, "apm-record-format", "memory/lessons.md")
    assert second.exit_code == 1
    assert second.stdout.splitlines() == [
        "memory/lessons.md:7: apm-record-format: missing field '- Fitness:' (fields are Tags, Fitness, Body)",
        "heavy: ",
    ]
    for hook_id in ("apm-no-loss", "apm-append-only", "apm-index-fresh", "apm-no-secrets"):
        ran = probe(repo.root, hook_id, *(["memory/lessons.md"] if hook_id == "apm-no-secrets" else []))
        assert (ran.exit_code, ran.stdout) == (0, "heavy: \n"), hook_id


def test_a_new_staged_state_is_checked_afresh(repo: MemoryRepo) -> None:
    stage_broken_record(repo)
    assert hook(repo.root, "apm-record-format", "memory/lessons.md").exit_code == 1
    path = repo.memory / "lessons.md"
    path.write_text(path.read_text().replace("- Body: b", "- Fitness: last_referenced=2026-04-06, hit_count=0, "
                                              "decision_value=LOW\n- Body: b"))
    assert hook(repo.root, "apm-record-format", "memory/lessons.md").exit_code == 1  # not staged yet
    git(repo.root, "add", "-A")
    assert hook(repo.root, "apm-record-format", "memory/lessons.md").exit_code == 0


def test_files_beyond_the_cached_ones_are_checked(repo: MemoryRepo) -> None:
    (repo.memory / "people.md").write_text("# People\n" + "- x\n" * 150)
    git(repo.root, "commit", "-qam", "over budget, committed without checks")
    stage_broken_record(repo)
    assert hook(repo.root, "apm-budget", "memory/lessons.md").exit_code == 0
    ran = hook(repo.root, "apm-budget", "memory/lessons.md", "memory/people.md")  # as with --all-files
    assert ran.exit_code == 1 and ran.stdout.startswith("memory/people.md:101: apm-budget: 151/100 lines")


def test_a_commit_of_only_other_work_is_not_the_memory_hooks_business(repo: MemoryRepo) -> None:
    (repo.root / "notes.txt").write_text("AKIA" + "Q" * 16 + "\n")
    git(repo.root, "add", "notes.txt")
    for hook_id in ("apm-no-secrets", "apm-budget"):
        assert hook(repo.root, hook_id, "notes.txt").exit_code == 0


def test_hook_reads_the_index_that_git_commit_hands_it(repo: MemoryRepo) -> None:
    """`git commit -a` and `git commit PATH` run hooks on a temporary index named by GIT_INDEX_FILE."""
    stage_broken_record(repo)
    git(repo.root, "reset", "-q")
    env = {**os.environ, "GIT_INDEX_FILE": str(repo.git_dir / "index.tmp")}
    subprocess.run(("git", "read-tree", "HEAD"), cwd=repo.root, env=env, check=True)
    subprocess.run(("git", "add", "memory/lessons.md"), cwd=repo.root, env=env, check=True)
    proc = subprocess.run((HOOK, "apm-record-format", "memory/lessons.md"), cwd=repo.root, env=env,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and "memory/lessons.md:7:" in proc.stdout
    assert hook(repo.root, "apm-record-format", "memory/lessons.md").exit_code == 0  # the real index is clean


def test_record_helper_is_well_formed() -> None:
    from apm_git.model.records import parse

    assert parse(record("2026-04-06", "X")).records[0].ok
