"""The writer lock (`store/lock.py`): flock(2) on `.git/apm-git/lock`, across processes and threads."""
from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from apm_git.errors import LockTimeout
from apm_git.store.lock import file_lock

HOLD = """
import sys, time
from pathlib import Path
from apm_git.store.lock import file_lock
with file_lock(Path(sys.argv[1]), "the holder"):
    print("held", flush=True)
    time.sleep(60)
"""


def holder(path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen((sys.executable, "-c", HOLD, str(path)), stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_process_waits_then_gives_up_naming_the_holder(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    proc = holder(lock)
    try:
        with (pytest.raises(LockTimeout, match=r"another apm-git process has held .*lock for 0.2s; retry"),
              file_lock(lock, "another apm-git process", timeout=0.2)):
            pass
    finally:
        proc.kill()
        proc.wait()


def test_a_killed_holder_leaves_the_lock_free(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    proc = holder(lock)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert lock.exists()  # the file stays; the kernel dropped the lock with the process
    with file_lock(lock, "nobody", timeout=1):
        pass


def test_two_threads_of_one_process_take_it_in_turn(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    inside: list[str] = []
    overlap: list[bool] = []

    def work(name: str) -> None:
        with file_lock(lock, "the other thread", timeout=5):
            overlap.append(bool(inside))
            inside.append(name)
            time.sleep(0.1)
            inside.remove(name)

    threads = [threading.Thread(target=work, args=(f"t{n}",)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlap == [False, False, False]


def test_the_lock_is_taken_again_after_release(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    for _ in range(3):
        with file_lock(lock, "nobody", timeout=0):
            pass
