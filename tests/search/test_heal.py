"""The search index is a cache and behaves like one (issue 22, case 8).

Whatever happened to `.git/apm-git/search/` (the folder or the file gone, truncated, junk bytes, NULL
rows, an emptied table, another format, a folder in the file's place, a read-only index with a memory
file changed since), six `apm-git search` processes started at once all exit 0, print what a fresh build
prints and no traceback; afterwards the index on disk is sound again.  Where it cannot be written, each
says so in one line and answers from an index it built in memory.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from apm_git.search.cache import VERSION
from apm_git.search.index import Index, SearchScope
from apm_git.search.scan import query_terms
from apm_git.store.repo import MemoryRepo
from tests.conftest import BIN
from tests.e2e.test_odd_environments import read_only
from tests.loading.conftest import record, write

QUERY = "redis timeout"
PROCESSES = 6
FAILURES = ("Traceback", "disk I/O error", "readonly database", "malformed", "cannot rollback", "locked")
NOTE = "apm-git: the search index could not be written ("
NEW_RECORD = record("2026-04-06", "Redis timeout on the replica", "The replica's redis timeout is 5 s.")


@pytest.fixture
def topic(mem: MemoryRepo) -> MemoryRepo:
    """The loading memory, with months of archived entries on one topic: an index of many pages."""
    for month in range(1, 13):
        write(mem, f"archive/2025-{month:02d}.md", f"# Archive 2025-{month:02d}\n\n" + "".join(
            record(f"2025-{month:02d}-{day:02d}", f"Redis timeout {month}-{day}",
                   f"The redis timeout of batch {day} was raised; pool {month} and retries unchanged. " * 3)
            for day in range(1, 21)))
    write(mem, "lessons.md", (mem.memory / "lessons.md").read_text() + record(
        "2026-03-09", "Timeouts under load", "A redis timeout under load means the pool is too small."))
    return mem


def folder(mem: MemoryRepo) -> Path:
    return mem.git_dir / "apm-git" / "search"


def database(mem: MemoryRepo) -> Path:
    return folder(mem) / "memory.sqlite3"


def search(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen((sys.executable, "-m", "apm_git", "--repo", str(root), "search", *args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def at_once(root: Path, *args: str, env: dict[str, str] | None = None) -> list[tuple[int, str, str]]:
    """PROCESSES searches started together; each (exit code, stdout, stderr)."""
    started = [search(root, *args, env=env) for _ in range(PROCESSES)]
    outputs = [proc.communicate(timeout=300) for proc in started]
    return [(proc.returncode, out, err) for proc, (out, err) in zip(started, outputs, strict=True)]


def fresh_build(mem: MemoryRepo, *args: str) -> str:
    shutil.rmtree(folder(mem), ignore_errors=True)
    out, err = search(mem.root, *args).communicate(timeout=300)
    assert err == "", err
    return out


def sql(mem: MemoryRepo, *statements: str) -> None:
    with contextlib.closing(sqlite3.connect(database(mem))) as db:
        for statement in statements:
            db.execute(statement)
        db.commit()


def junk(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def change_a_file(mem: MemoryRepo) -> None:
    """A memory file changed since the index was built: the answer must show it."""
    path = mem.memory / "lessons.md"
    path.write_text(path.read_text() + NEW_RECORD, encoding="utf-8")


def junk_pages(mem: MemoryRepo) -> None:
    data = bytearray(database(mem).read_bytes())
    pages = len(data) // 4096
    assert pages > 20, "the index spans many pages"
    for page in range(1, pages, 3):
        data[page * 4096:(page + 1) * 4096] = junk(4096, page)
    database(mem).write_bytes(bytes(data))


def folder_in_its_place(mem: MemoryRepo) -> None:
    database(mem).unlink()
    (database(mem) / "inside").mkdir(parents=True)
    (database(mem) / "inside" / "file").write_text("x")


def file_for_the_folder(mem: MemoryRepo) -> None:
    shutil.rmtree(folder(mem))
    folder(mem).write_text("not a folder")


def lock_is_a_folder(mem: MemoryRepo) -> None:
    (folder(mem) / "memory.lock").unlink()
    (folder(mem) / "memory.lock").mkdir()
    change_a_file(mem)


DAMAGES: dict[str, Callable[[MemoryRepo], None]] = {
    "the folder deleted": lambda mem: shutil.rmtree(folder(mem)),
    "the file deleted": lambda mem: database(mem).unlink(),
    "an empty file": lambda mem: database(mem).write_bytes(b""),
    "truncated": lambda mem: os.truncate(database(mem), database(mem).stat().st_size // 2),
    "junk bytes for the file": lambda mem: database(mem).write_bytes(junk(database(mem).stat().st_size, 1)),
    "junk over the header": lambda mem: database(mem).write_bytes(junk(100, 2) + database(mem).read_bytes()[100:]),
    "junk over every third page": junk_pages,
    "a junk journal beside it": lambda mem: Path(f"{database(mem)}-journal").write_bytes(junk(5000, 3)),
    "NULL rows": lambda mem: sql(mem, "UPDATE sections SET heading = NULL, trail = NULL, text = NULL WHERE id % 2 = 0",
                                 "INSERT INTO files(path, blob) VALUES (NULL, 'x')"),
    "the full-text table emptied": lambda mem: sql(mem, "DELETE FROM fts"),
    "the full-text data deleted": lambda mem: sql(mem, "DELETE FROM fts_data"),
    "the sections emptied": lambda mem: sql(mem, "DELETE FROM sections"),
    "the files forgotten": lambda mem: sql(mem, "DELETE FROM files"),
    "another format": lambda mem: sql(mem, "UPDATE meta SET value = '1' WHERE key = 'version'"),
    "a folder where the index file should be": folder_in_its_place,
    "a file where the search folder should be": file_for_the_folder,
    "a memory file changed since": change_a_file,
}
READ_ONLY: dict[str, tuple[Callable[[MemoryRepo], Path], bool]] = {
    # what is made immutable, and whether a memory file changed since (then the index must be written)
    "read-only index, nothing changed": (database, False),
    "read-only index, a file changed since": (database, True),
    "read-only folder, a file changed since": (folder, True),
}


def assert_answers(results: list[tuple[int, str, str]], expected: str, *, note: bool = False) -> None:
    for code, out, err in results:
        assert code == 0, err
        assert not any(failure in err for failure in FAILURES), err
        assert out == expected
        if note:
            assert len(err.splitlines()) == 1 and err.startswith(NOTE), err
            assert "built one in memory (slower, the same answer)" in err
        else:
            assert err == ""


def assert_sound(mem: MemoryRepo) -> None:
    """The index on disk is whole, holds no NULL row and the files as they are: a search opens it as it is."""
    with contextlib.closing(sqlite3.connect(database(mem))) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (VERSION,)
        assert db.execute("SELECT count(*) FROM sections WHERE heading IS NULL OR text IS NULL").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM files WHERE path IS NULL").fetchone() == (0,)
    index = Index(mem, SearchScope())
    index.close()
    assert (index.refresh.rebuilt, index.refresh.indexed, index.refresh.note) == (None, 0, None)
    assert sorted(path.name for path in folder(mem).iterdir()) == ["memory.lock", "memory.sqlite3"]


# Six processes a case, about 0.8 s of CPU: one case (a rebuild from junk) in the fast loop, the others slow.
@pytest.mark.parametrize("damage", [pytest.param(name, marks=() if name == "junk bytes for the file" else
                                                 pytest.mark.slow) for name in DAMAGES])
def test_six_searches_heal_any_damage(topic: MemoryRepo, damage: str) -> None:
    search(topic.root, QUERY).communicate(timeout=300)  # the index, as the files are now
    DAMAGES[damage](topic)
    results = at_once(topic.root, QUERY, "--limit", "40")
    assert_sound(topic)
    expected = fresh_build(topic, QUERY, "--limit", "40")
    assert_answers(results, expected)
    assert ("Redis timeout on the replica" in expected) == (damage == "a memory file changed since")


@pytest.mark.slow
@pytest.mark.parametrize("case", READ_ONLY)
def test_six_searches_answer_from_a_read_only_index(topic: MemoryRepo, case: str) -> None:
    search(topic.root, QUERY).communicate(timeout=300)
    made_read_only, changed = READ_ONLY[case]
    if changed:
        change_a_file(topic)
    with read_only(made_read_only(topic)):
        results = at_once(topic.root, QUERY, "--limit", "40")
    expected = fresh_build(topic, QUERY, "--limit", "40")
    assert ("Redis timeout on the replica" in expected) == changed
    assert_answers(results, expected, note=changed)


@pytest.mark.slow
def test_a_lock_that_is_a_folder_is_bypassed(topic: MemoryRepo) -> None:
    search(topic.root, QUERY).communicate(timeout=300)
    lock_is_a_folder(topic)
    results = at_once(topic.root, QUERY, "--limit", "40")
    shutil.rmtree(folder(topic) / "memory.lock")
    expected = fresh_build(topic, QUERY, "--limit", "40")
    assert "Redis timeout on the replica" in expected
    assert_answers(results, expected, note=True)
    assert "memory.lock" in results[0][2] and "a folder stands where a file must be" in results[0][2]


@pytest.mark.slow
def test_a_search_does_not_wait_for_ever_on_a_held_lock(topic: MemoryRepo) -> None:
    """Another process holds the index's lock (building, or stuck): past the wait, the search builds its
    own index in memory and answers."""
    search(topic.root, QUERY).communicate(timeout=300)
    change_a_file(topic)
    descriptor = os.open(folder(topic) / "memory.lock", os.O_RDWR)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        out, err = search(topic.root, QUERY, env={"APM_GIT_LOCK_TIMEOUT": "0.2"}).communicate(timeout=300)
    finally:
        os.close(descriptor)
    assert out == fresh_build(topic, QUERY)
    assert err.startswith(NOTE) and "memory.lock for 0.2s" in err and len(err.splitlines()) == 1


@pytest.mark.slow
def test_concurrent_searches_build_the_index_once(topic: MemoryRepo) -> None:
    """Six searches on a missing index: one builds it, the others wait and then use it (threads of one
    process take the lock as processes do: each opens the lock file anew)."""
    search(topic.root, QUERY).communicate(timeout=300)
    shutil.rmtree(folder(topic))
    start = threading.Barrier(PROCESSES)
    opened: list[Index] = []

    def one() -> None:
        start.wait()
        index = Index(topic, SearchScope())
        index.search(query_terms(QUERY), limit=5)
        index.close()
        opened.append(index)

    threads = [threading.Thread(target=one) for _ in range(PROCESSES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reasons = sorted(str(index.refresh.rebuilt) for index in opened)
    assert reasons == ["None"] * (PROCESSES - 1) + ["there was no index yet"]
    assert [index.refresh.note for index in opened] == [None] * PROCESSES
    assert_sound(topic)


@pytest.mark.slow
def test_recall_answers_from_a_read_only_index(topic: MemoryRepo) -> None:
    """The per-prompt hook, on a read-only index that misses a changed file: it recalls the new entry and exits 0."""
    search(topic.root, QUERY).communicate(timeout=300)
    change_a_file(topic)
    payload = json.dumps({"session_id": "s", "hook_event_name": "UserPromptSubmit", "cwd": str(topic.root),
                          "prompt": "what is the redis timeout on the replica?"}).encode()
    with read_only(database(topic)):
        ran = [subprocess.run((str(Path(BIN) / name), "--repo", str(topic.root), *args, "--hook-input", "-"),
                              input=payload, capture_output=True, check=False)
               for name, args in (("apm-git-recall", ()), ("apm-git", ("recall",)))]
    for proc in ran:
        assert proc.returncode == 0, proc.stderr
        assert b"Redis timeout on the replica" in proc.stdout and b"Traceback" not in proc.stderr
    assert ran[0].stdout == ran[1].stdout


@pytest.mark.slow
def test_damage_met_by_a_query_heals_the_file(topic: MemoryRepo) -> None:
    """NULLs show only in the rows a query returns: the search rebuilds the index on disk and asks again."""
    search(topic.root, QUERY).communicate(timeout=300)
    sql(topic, "UPDATE sections SET text = NULL")
    index = Index(topic, SearchScope())
    hits, total = index.search(query_terms(QUERY), limit=3)
    index.close()
    assert len(hits) == 3 and total > 200 and all(hit.text for hit in hits)
    assert index.refresh.rebuilt is not None and "NULL" in index.refresh.rebuilt
    assert index.refresh.note is None
    assert_sound(topic)
