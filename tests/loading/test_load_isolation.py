"""Isolation, observed on the real filesystem: every file a load opens (or folder it lists) is recorded
by a Python audit hook; a group load touches nothing of another group nor `main/`, a DM load nothing
under `groups/`."""
from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke

EVENTS = {"open": 0, "os.listdir": 0, "os.scandir": 0}
_recording: list[list[str]] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _recording or event not in EVENTS or not args:
        return
    target = args[EVENTS[event]]
    if isinstance(target, (str, bytes, os.PathLike)):
        _recording[-1].append(str(Path(os.fsdecode(target)).absolute()))


sys.addaudithook(_audit)  # audit hooks cannot be removed; this one records only inside `touched()`


@contextlib.contextmanager
def touched() -> Iterator[list[str]]:
    seen: list[str] = []
    _recording.append(seen)
    try:
        yield seen
    finally:
        _recording.pop()



def under(paths: list[str], folder: Path) -> list[str]:
    base = str(folder.resolve())
    return [path for path in paths if path == base or path.startswith(base + os.sep)]


def memory_reads(mem: MemoryRepo, paths: list[str]) -> set[str]:
    return {Path(path).relative_to(mem.memory.resolve()).as_posix() for path in under(paths, mem.memory)}


@pytest.mark.parametrize("intent", [None, "todo", "stack api", "why", "who owns it"])
def test_a_group_load_reads_only_its_group(mem: MemoryRepo, run_cli: Invoke, intent: str | None) -> None:
    # files of the group that point elsewhere: another group's conventions, main/
    for name in ("experience.md", "people.md"):
        path = mem.memory / "groups/alpha" / name
        path.write_text(path.read_text() + "See ../beta/conventions/api.md, groups/beta/conventions/deploy.md, "
                        "memory/groups/beta/conventions/api.md and ../../main/longterm.md.\n")
    args = ["--repo", str(mem.root), "load", "--room", "room-a", "--session", "iso"]
    with touched() as seen:
        ran = run_cli(*args, *(["--intent", intent] if intent else []))
    assert ran.exit_code == 0, ran.stderr
    assert under(seen, mem.memory / "groups/alpha"), "the recorder saw the group's own files"
    assert under(seen, mem.memory / "groups/beta") == []
    assert not [path for path in under(seen, mem.memory / "groups") if path.endswith("beta.md")]
    assert under(seen, mem.memory / "main") == []
    assert memory_reads(mem, seen) <= {
        "group_names.json", "groups/alpha.md", "groups/alpha/attention.md", "groups/alpha/project.md",
        "groups/alpha/experience.md", "groups/alpha/people.md", "groups/alpha/conventions/api.md",
    }


def test_a_dm_load_reads_nothing_under_groups(mem: MemoryRepo, run_cli: Invoke) -> None:
    for intent in (None, "daily recap", "who am I"):
        with touched() as seen:
            ran = run_cli("--repo", str(mem.root), "load", "--main", *(["--intent", intent] if intent else []))
        assert ran.exit_code == 0, ran.stderr
        assert under(seen, mem.memory / "main"), "the recorder saw the DM files"
        assert under(seen, mem.memory / "groups") == []
        assert "group_names.json" not in memory_reads(mem, seen)


def test_the_recorder_sees_a_forbidden_read(mem: MemoryRepo) -> None:
    """The same recorder, on code that does read another group's file, catches it."""
    with touched() as seen:
        (mem.memory / "groups/beta/attention.md").read_text()
    assert under(seen, mem.memory / "groups/beta") != []
