"""`apm-git lint`: every check in one process, base and new side as docs/design.md 5 says."""
from __future__ import annotations

import json

import pytest

from apm_git.store.repo import MemoryRepo
from tests.checks.helpers import record
from tests.conftest import git, run_apm

BROKEN = "\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: no fitness\n"


def add(repo: MemoryRepo, name: str, text: str) -> None:
    path = repo.memory / name
    path.write_text(path.read_text() + text)


@pytest.mark.slow
def test_a_clean_repository_has_no_findings(repo: MemoryRepo) -> None:
    for args in ([], ["--all"]):
        ran = run_apm("lint", *args, cwd=repo.root)
        assert ran.exit_code == 0 and ran.stdout == "", ran.stdout + ran.stderr
        assert "0 finding(s)" in ran.stderr


@pytest.mark.slow
def test_work_tree_changes_against_head_text_and_json(repo: MemoryRepo) -> None:
    add(repo, "lessons.md", BROKEN)
    ran = run_apm("lint", cwd=repo.root)
    assert ran.exit_code == 1
    assert ran.stdout == ("memory/lessons.md:7: apm-record-format: missing field '- Fitness:' "
                          "(fields are Tags, Fitness, Body)\n")
    ran = run_apm("--json", "lint", cwd=repo.root)
    data = json.loads(ran.stdout)
    assert ran.exit_code == 1 and data["base"] == "HEAD" and data["new"] == "the work tree"
    assert data["checked"] == ["memory/lessons.md"]
    assert data["findings"] == [{"path": "memory/lessons.md", "line": 7, "hook": "apm-record-format",
                                 "message": "missing field '- Fitness:' (fields are Tags, Fitness, Body)"}]


@pytest.mark.slow
def test_paths_and_all_check_files_that_did_not_change(repo: MemoryRepo) -> None:
    add(repo, "lessons.md", BROKEN)
    git(repo.root, "commit", "-qam", "committed without checks")
    assert run_apm("lint", cwd=repo.root).exit_code == 0
    for args in (["memory/lessons.md"], ["memory"], ["--all"]):
        ran = run_apm("lint", *args, cwd=repo.root)
        assert ran.exit_code == 1 and ran.stdout.startswith("memory/lessons.md:7:"), args
    ran = run_apm("lint", "lessons.md", cwd=repo.memory)  # relative to the current directory
    assert ran.exit_code == 1


@pytest.mark.slow
def test_bad_arguments_are_one_line_and_exit_2(repo: MemoryRepo, tmp_path: object) -> None:
    for args, words in ((["--from-ref", "nope"], "--from-ref nope: no such commit"),
                        (["memory/missing.md"], "no such memory file"),
                        (["apm.yaml"], "no such memory file"),
                        (["/etc/passwd"], "outside the memory repository")):
        ran = run_apm("lint", *args, cwd=repo.root)
        assert ran.exit_code == 2, (args, ran.stderr)
        assert len(ran.stderr.strip().splitlines()) == 1 and words in ran.stderr, ran.stderr


def test_a_pull_request_is_compared_with_where_it_branched_off(repo: MemoryRepo) -> None:
    git(repo.root, "checkout", "-qb", "feature")
    add(repo, "lessons.md", "\n" + record("2026-04-06", "A lesson", tags="lesson"))
    git(repo.root, "commit", "-qam", "feature work")
    git(repo.root, "checkout", "-q", "main")
    add(repo, "decisions.md", "\n" + record("2026-04-07", "Main moved on"))
    git(repo.root, "commit", "-qam", "main work")
    git(repo.root, "checkout", "-q", "feature")
    ran = run_apm("lint", "--from-ref", "main", "--to-ref", "HEAD", cwd=repo.root)
    assert ran.exit_code == 0, ran.stdout  # main's new entry is not "lost" on the branch
    assert "(main -> HEAD)" in ran.stderr


def test_pre_commit_refs_in_the_environment_are_the_default(repo: MemoryRepo) -> None:
    add(repo, "lessons.md", BROKEN)
    git(repo.root, "commit", "-qam", "bad")
    add(repo, "people.md", "- fine\n")
    git(repo.root, "commit", "-qam", "good")
    env = {"PRE_COMMIT_FROM_REF": "HEAD~2", "PRE_COMMIT_TO_REF": "HEAD"}
    ran = run_apm("lint", cwd=repo.root, env=env)
    assert ran.exit_code == 1 and "memory/lessons.md:7:" in ran.stdout


def test_flags_win_over_pre_commit_refs_in_the_environment(repo: MemoryRepo) -> None:
    add(repo, "lessons.md", BROKEN)
    git(repo.root, "commit", "-qam", "bad")
    add(repo, "people.md", "- fine\n")
    git(repo.root, "commit", "-qam", "good")
    env = {"PRE_COMMIT_FROM_REF": "HEAD~2", "PRE_COMMIT_TO_REF": "HEAD~1"}
    ran = run_apm("lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD", cwd=repo.root, env=env)
    assert ran.exit_code == 0, ran.stdout
    assert "(HEAD~1 -> HEAD)" in ran.stderr
