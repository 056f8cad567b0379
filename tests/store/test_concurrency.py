"""Two or more agent sessions writing at once serialize on the apm-git lock and lose nothing."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from apm_git.model.records import parse
from apm_git.store.lock import file_lock
from apm_git.store.repo import MemoryRepo
from tests.conftest import git, run_apm

WRITERS = 8


@pytest.mark.slow
def test_concurrent_journal_adds_and_flushes_lose_nothing(repo: MemoryRepo) -> None:
    script = (
        "import subprocess, sys\n"
        "n = sys.argv[1]\n"
        "run = lambda *a: subprocess.run([sys.executable, '-m', 'apm_git', *a], check=True, capture_output=True)\n"
        "run('journal', 'add', f'entry from writer {n}', '--kind', 'lesson', '--title', f'writer {n}')\n"
        "run('flush', '--trigger', 'session-end', '--session', f'session-{n}')\n"
    )
    env = {**os.environ, "APM_GIT_NOW": "2026-04-06T10:00:00"}
    procs = [
        subprocess.Popen((sys.executable, "-c", script, str(n)), cwd=repo.root, env=env, stderr=subprocess.PIPE)
        for n in range(WRITERS)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    journal = parse(git(repo.root, "show", "HEAD:memory/2026-04-06.md"))
    assert sorted(record.title for record in journal.entries) == sorted(f"writer {n}" for n in range(WRITERS))
    assert git(repo.root, "status", "--porcelain") == ""
    git(repo.root, "fsck", "--strict")
    subjects = git(repo.root, "log", "--format=%s").splitlines()
    assert 2 <= len(subjects) <= WRITERS + 1  # a flush may carry another writer's entry; none is lost
    assert not (repo.git_dir / "index.lock").exists()


def test_a_waiting_writer_gives_up_with_exit_3(repo: MemoryRepo) -> None:
    (repo.memory / "lessons.md").write_text("# Lessons\n\nchanged\n")
    with file_lock(repo.state_dir / "lock", "the test"):
        ran = run_apm("flush", cwd=repo.root, env={"APM_GIT_LOCK_TIMEOUT": "0.3"})
    assert ran.exit_code == 3
    assert "held" in ran.stderr and "retry" in ran.stderr and "Traceback" not in ran.stderr
    assert git(repo.root, "rev-list", "--count", "HEAD").strip() == "1"
    assert (repo.memory / "lessons.md").read_text() == "# Lessons\n\nchanged\n"


@pytest.mark.slow
def test_git_index_lock_held_by_someone_else_is_never_deleted(repo: MemoryRepo) -> None:
    (repo.memory / "lessons.md").write_text("# Lessons\n\nchanged\n")
    state, index = (repo.memory / "flush-state.json").read_bytes(), (repo.memory / "INDEX.md").read_bytes()
    lock = repo.git_dir / "index.lock"
    lock.write_text("")
    ran = run_apm("flush", cwd=repo.root, env={"APM_GIT_NOW": "2027-01-01T10:00:00"})
    assert ran.exit_code == 3 and "index.lock" in ran.stderr
    assert lock.exists()
    # the failed flush recorded nothing: the state and the index are as they were
    assert (repo.memory / "flush-state.json").read_bytes() == state
    assert (repo.memory / "INDEX.md").read_bytes() == index
    lock.unlink()
    assert run_apm("flush", cwd=repo.root).exit_code == 0
