"""A year stays small (issue 23): after a consolidation commit apm-git runs `git gc --auto`, which packs the
loose objects once they pass a threshold; a flush from an agent's hook never does.

git packs in the background unless `gc.autoDetach` is false; these repositories set it false, so the packing
has happened when the command returns (no waiting in a test)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.operations.consolidation import PACK_LOOSE_OBJECTS
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git, run_apm
from tests.records import record

WHEN = {"APM_GIT_NOW": "2026-04-20T09:00:00+00:00"}


def loose(root: Path) -> tuple[int, int]:
    """(loose objects, packs), as `git count-objects -v` counts them."""
    counts = dict(line.split(": ") for line in git(root, "count-objects", "-v").splitlines())
    return int(counts["count"]), int(counts["packs"])


def make_loose(root: Path, tmp_path: Path, how_many: int) -> None:
    """`how_many` blobs as loose objects, reachable from a ref (through one tree), as a year of apm-git's
    plumbing commits leaves them: git's own `git commit` would have packed them, `commit-tree` never does."""
    folder = tmp_path / "blobs"
    folder.mkdir()
    for number in range(how_many):
        (folder / str(number)).write_text(f"blob {number}\n")
    paths = "".join(f"{folder / str(number)}\n" for number in range(how_many)).encode()
    blobs = git(root, "hash-object", "-w", "--stdin-paths", input=paths).split()
    tree = git(root, "mktree", input="".join(f"100644 blob {blob}\t{n}\n" for n, blob in enumerate(blobs)).encode())
    git(root, "update-ref", "refs/kept/blobs", tree.strip())


def journal_with_a_lesson(repo: MemoryRepo) -> None:
    (repo.memory / "2026-04-10.md").write_text("# 2026-04-10\n\n" + record("2026-04-10", "Retry the upload", "lesson"))


@pytest.mark.slow
def test_a_consolidation_packs_once_loose_objects_pass_the_threshold(
    repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
) -> None:
    journal_with_a_lesson(repo)
    git(repo.root, "config", "gc.autoDetach", "false")
    run_cli("--repo", str(repo.root), "flush", env=WHEN)
    make_loose(repo.root, tmp_path, 3 * PACK_LOOSE_OBJECTS)
    before, packs = loose(repo.root)
    assert before > 3 * PACK_LOOSE_OBJECTS and packs == 0
    ran = run_cli("--repo", str(repo.root), "deep-sleep", env=WHEN)
    assert ran.exit_code == 0 and "promoted 1" in ran.stdout, ran.stderr
    after, packs = loose(repo.root)
    assert packs >= 1 and after < PACK_LOOSE_OBJECTS, (after, packs)
    assert git(repo.root, "status", "--porcelain") == ""
    assert run_cli("--repo", str(repo.root), "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD").exit_code == 0


@pytest.mark.slow
def test_a_repository_that_turns_gc_auto_off_is_never_packed(
    repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
) -> None:
    journal_with_a_lesson(repo)
    git(repo.root, "config", "gc.autoDetach", "false")
    git(repo.root, "config", "gc.auto", "0")  # the repository's own setting wins: never
    make_loose(repo.root, tmp_path, 3 * PACK_LOOSE_OBJECTS)
    ran = run_cli("--repo", str(repo.root), "deep-sleep", env=WHEN)
    assert ran.exit_code == 0 and "promoted 1" in ran.stdout, ran.stderr
    assert loose(repo.root)[1] == 0


@pytest.mark.slow
def test_a_flush_from_an_agents_hook_never_packs(repo: MemoryRepo, tmp_path: Path) -> None:
    git(repo.root, "config", "gc.autoDetach", "false")
    make_loose(repo.root, tmp_path, 3 * PACK_LOOSE_OBJECTS)
    journal_with_a_lesson(repo)
    payload = {"session_id": "s-1", "hook_event_name": "SessionEnd", "reason": "exit", "cwd": str(repo.root)}
    ran = run_apm("flush", "--hook-input", "-", cwd=tmp_path, input=json.dumps(payload), env=WHEN)
    assert ran.exit_code == 0, ran.stderr
    assert git(repo.root, "log", "-1", "--format=%s").startswith("memory: flush")
    assert loose(repo.root)[1] == 0
