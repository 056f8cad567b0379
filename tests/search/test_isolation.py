"""APM rule 1 for the index: a group search is built from, and returns, that group's sections alone.
Proved on the real filesystem by the audit hook of tests/loading/test_load_isolation.py, which records
every file opened and every folder listed."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke
from tests.loading import test_load_isolation
from tests.loading.conftest import cli_json, write
from tests.loading.test_load_isolation import touched, under


def _audit_sqlite(event: str, args: tuple[Any, ...]) -> None:
    """SQLite opens its database in C: record the connection as the file it opens (a `file:` URI as its path)."""
    if event == "sqlite3.connect" and test_load_isolation._recording and isinstance(args[0], (str, os.PathLike)):
        name = os.fsdecode(args[0])
        if name.startswith("file:"):
            name = unquote(name.removeprefix("file:").partition("?")[0])
        test_load_isolation._recording[-1].append(str(Path(name).absolute()))


sys.addaudithook(_audit_sqlite)

WORD = "quokka"


@pytest.fixture
def spread(mem: MemoryRepo) -> MemoryRepo:
    """The same word in both groups, the DM memory, the Dreaming files and the archive."""
    for rel in ("groups/alpha/project.md", "groups/alpha/conventions/api.md", "groups/beta/project.md",
                "groups/beta/conventions/api.md", "groups/beta.md", "main/projects/zoo.md", "lessons.md",
                "archive/2026-01.md"):
        path = mem.memory / rel
        before = path.read_text() if path.exists() else "# Archive\n"
        write(mem, rel, before + f"\n## The {WORD}\n\nA {WORD} in {rel}.\n")
    return mem


def allowed_for(mem: MemoryRepo, group: str, seen: list[str]) -> list[str]:
    """The recorded paths under the memory dir that are not the group's own."""
    own = [str((mem.memory / f"groups/{group}").resolve()), str((mem.memory / f"groups/{group}.md").resolve())]
    return [path for path in under(seen, mem.memory) if not any(path == base or path.startswith(base + "/")
                                                                 for base in own)]


@pytest.mark.parametrize("state", ["cold", "warm", "changed elsewhere"])
def test_a_group_search_reads_and_returns_only_its_group(spread: MemoryRepo, run_cli: Invoke, state: str) -> None:
    if state != "cold":
        cli_json(run_cli, spread, "search", WORD)  # the memory index exists too
        cli_json(run_cli, spread, "search", WORD, "--group", "alpha")
    if state == "changed elsewhere":
        for rel in ("groups/beta/people.md", "main/attention.md"):
            write(spread, rel, (spread.memory / rel).read_text() + f"\nAnother {WORD}.\n")
    with touched() as seen:
        data = cli_json(run_cli, spread, "search", WORD, "--group", "alpha", "--limit", "50")
    files = {hit["file"] for hit in data["hits"]}
    assert files == {"memory/groups/alpha/project.md", "memory/groups/alpha/conventions/api.md"}
    assert under(seen, spread.memory / "groups/alpha"), "the recorder saw the group's own files"
    assert allowed_for(spread, "alpha", seen) == []
    databases = [Path(path).name for path in seen if path.endswith(".sqlite3")]
    assert set(databases) == {"group-alpha.sqlite3"}


def test_a_search_without_group_never_returns_groups(spread: MemoryRepo, run_cli: Invoke) -> None:
    with touched() as seen:
        data = cli_json(run_cli, spread, "search", WORD, "--limit", "50")
    assert {hit["file"] for hit in data["hits"]} == {
        "memory/main/projects/zoo.md", "memory/lessons.md", "memory/archive/2026-01.md"}
    assert under(seen, spread.memory / "groups") == []


def test_a_dm_load_recalls_without_reading_groups(spread: MemoryRepo, run_cli: Invoke) -> None:
    with touched() as seen:
        data = cli_json(run_cli, spread, "load", "--main", "--intent", f"the {WORD}")
    assert under(seen, spread.memory / "groups") == []
    recalled = [item["path"] for item in data["files"] if item["role"] == "L2 section"]
    assert recalled == ["memory/main/projects/zoo.md:3-5"]


def test_a_group_load_recalls_from_its_group_alone(spread: MemoryRepo, run_cli: Invoke) -> None:
    with touched() as seen:
        data = cli_json(run_cli, spread, "load", "--group", "alpha", "--intent", f"the {WORD}")
    recalled = [item["path"] for item in data["files"] if item["role"] == "L2 section"]
    assert recalled and all(path.startswith("memory/groups/alpha/") for path in recalled)
    assert allowed_for(spread, "alpha", seen) == []
