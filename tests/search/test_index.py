"""The full-text index behind `search` and L2 recall: any language, every kind of section, the
archive, and a cache that rebuilds itself (missing, stale, corrupt) and never enters the work tree."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from typing import Any

import pytest

from apm_git.search.index import ENV_FTS5, Index, SearchScope
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.loading.conftest import build, cli_json, record, write


@pytest.fixture
def mem(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    mem = build(repo, monkeypatch)
    write(mem, "ops.md", "# 运维与排障\n\n数据库连接池耗尽时，先重启工作进程。\n\n## Серверы\n\n"
                         "Резервное копирование серверами в полночь.\n\n## Prüfungen\n\nDie Prüfung läuft nächtlich.\n")
    write(mem, "notes/topic.md", "---\nname: Kafka retention\ndescription: how long topics keep data\n---\n\n"
                                 "Retention is seven days; compaction on the audit topic.\n")
    write(mem, "archive/2026-01.md", "# Archive 2026-01\n\n" + record(
        "2025-10-01", "Redis eviction storm", "Keys vanished; maxmemory-policy fixed it.", kind="lesson")
        + "- Archived: 2026-01-03 (fitness score: 20, last_referenced: 2025-10-01, from lessons.md)\n\n")
    return mem


def search(run_cli: Invoke, mem: MemoryRepo, *args: str) -> dict[str, Any]:
    return cli_json(run_cli, mem, "search", *args)


def places(data: dict[str, Any]) -> list[str]:
    return [f"{hit['file']}:{hit['section']}" for hit in data["hits"]]


@pytest.mark.parametrize(("query", "where"), [
    ("排障", "memory/ops.md:1"),  # inside the run 运维与排障, not at its start
    ("连接池", "memory/ops.md:1"),
    ("сервер", "memory/ops.md:5"),  # a Russian stem finds "Серверы" and "серверами"
    ("серверов", "memory/ops.md:5"),
    ("Prüfung", "memory/ops.md:9"),
    ("prufungen", "memory/ops.md:9"),  # without the accent, inflected
    ("kafka", "memory/notes/topic.md:1"),  # a front-matter topic file, by its name
    ("compaction", "memory/notes/topic.md:1"),  # free-form text only
])
def test_any_language_and_free_form_text(mem: MemoryRepo, run_cli: Invoke, query: str, where: str) -> None:
    data = search(run_cli, mem, query)
    assert places(data)[0] == where, data["hits"]
    assert data["method"] == "index"


def test_a_hit_names_heading_snippet_and_score(mem: MemoryRepo, run_cli: Invoke) -> None:
    hit = search(run_cli, mem, "排障")["hits"][0]
    assert hit["entry_id"] is None and hit["heading"] == "运维与排障" and hit["score"] > 0
    assert hit["matched"] == ["排障"]
    ran = run_cli("--repo", str(mem.root), "search", "Резервное")
    first = ran.stdout.splitlines()[0]
    assert first.startswith("memory/ops.md:7  运维与排障 › Серверы: Резервное копирование серверами")


def test_the_archive(mem: MemoryRepo, run_cli: Invoke) -> None:
    both = search(run_cli, mem, "maxmemory")
    assert [(hit["entry_id"], hit["archived"]) for hit in both["hits"]] == [("2025-10-01-redis-eviction-storm", True)]
    only = search(run_cli, mem, "redis", "--archive-only")
    assert only["where"] == "archive" and {hit["file"] for hit in only["hits"]} == {"memory/archive/2026-01.md"}


def test_the_index_is_a_cache_outside_the_tree(mem: MemoryRepo, run_cli: Invoke) -> None:
    before = git(mem.root, "status", "--porcelain", "--untracked-files=all")
    search(run_cli, mem, "redis")
    search(run_cli, mem, "redis", "--group", "alpha")
    assert sorted(path.name for path in (mem.git_dir / "apm-git" / "search").iterdir()) == [
        "group-alpha.lock", "group-alpha.sqlite3", "memory.lock", "memory.sqlite3"]
    assert git(mem.root, "status", "--porcelain", "--untracked-files=all") == before
    assert not list(mem.memory.rglob("*.sqlite3"))


def test_a_stale_index_follows_the_files(mem: MemoryRepo, run_cli: Invoke) -> None:
    assert search(run_cli, mem, "zeppelin")["total"] == 0
    write(mem, "ops.md", (mem.memory / "ops.md").read_text() + "\n## Zeppelin\n\nThe zeppelin lands at noon.\n")
    assert places(search(run_cli, mem, "zeppelin")) == ["memory/ops.md:13"]
    (mem.memory / "notes/topic.md").unlink()
    assert search(run_cli, mem, "kafka")["total"] == 0
    (mem.memory / "ops.md").rename(mem.memory / "operations.md")
    assert places(search(run_cli, mem, "zeppelin")) == ["memory/operations.md:13"]


def test_only_changed_blobs_are_read_again(mem: MemoryRepo) -> None:
    Index(mem, SearchScope()).close()
    path = mem.memory / "ops.md"
    os.utime(path, ns=(1, 1))  # the mtime moves, the bytes do not: the blob id says unchanged
    touched = Index(mem, SearchScope())
    assert touched.refresh.indexed == 0 and touched.refresh.rebuilt is None
    touched.close()
    path.write_text(path.read_text() + "More.\n")
    changed = Index(mem, SearchScope())
    assert changed.refresh.indexed == 1 and changed.refresh.files > 10
    changed.close()


@pytest.mark.parametrize("damage", [b"this is no database at all" * 100, b""])
def test_a_corrupt_index_is_rebuilt_silently(mem: MemoryRepo, run_cli: Invoke, damage: bytes) -> None:
    first = search(run_cli, mem, "排障")
    database = mem.git_dir / "apm-git" / "search" / "memory.sqlite3"
    database.write_bytes(damage)
    ran = run_cli("--repo", str(mem.root), "--json", "search", "排障")
    assert ran.exit_code == 0 and ran.stderr == ""
    assert json.loads(ran.stdout)["hits"] == first["hits"]
    sqlite3.connect(database).execute("PRAGMA integrity_check").fetchone()


def test_an_index_of_another_format_is_rebuilt(mem: MemoryRepo, run_cli: Invoke) -> None:
    search(run_cli, mem, "redis")
    database = mem.git_dir / "apm-git" / "search" / "memory.sqlite3"
    with sqlite3.connect(database) as db:
        db.execute("UPDATE meta SET value = '0' WHERE key = 'version'")
    index = Index(mem, SearchScope())
    assert index.refresh.rebuilt == "the index had another format" and index.refresh.indexed > 10
    index.close()


def test_without_fts5_search_names_the_fallback(mem: MemoryRepo, run_cli: Invoke) -> None:
    indexed = search(run_cli, mem, "排障 Prüfung")
    env = {ENV_FTS5: "off"}
    ran = run_cli("--repo", str(mem.root), "search", "排障", env=env)
    assert ran.exit_code == 3 and ran.stdout == ""
    assert ran.stderr.strip().startswith("apm-git: this Python's SQLite has no FTS5")
    assert "`apm-git search --scan QUERY`" in ran.stderr and len(ran.stderr.strip().splitlines()) == 1
    scanned = json.loads(run_cli("--repo", str(mem.root), "--json", "search", "排障 Prüfung", "--scan",
                                 env=env).stdout)
    assert scanned["method"] == "scan"
    assert sorted(places(scanned)) == sorted(places(indexed))
    loaded = json.loads(run_cli("--repo", str(mem.root), "--json", "load", "--intent", "排障", env=env).stdout)
    assert any(item["path"] == "memory/ops.md:1-3" for item in loaded["files"])
    assert any("this load scanned the files instead" in warning for warning in loaded["warnings"])


def test_a_file_that_is_not_utf8_is_skipped_with_its_line(mem: MemoryRepo, run_cli: Invoke) -> None:
    (mem.memory / "broken.md").write_bytes(b"# Broken\n\nzeppelin \xff\n")
    ran = run_cli("--repo", str(mem.root), "search", "redis")
    assert ran.exit_code == 0
    assert "apm-git: skipped memory/broken.md:3: not valid UTF-8" in ran.stderr


@pytest.mark.slow
def test_a_warm_search_imports_neither_hashlib_nor_shutil(mem: MemoryRepo, run_cli: Invoke) -> None:
    """Blob ids are computed only for a file whose size or mtime changed, a folder in the index's place removed
    only when there is one: a search that finds nothing to re-index loads neither module."""
    for path in mem.memory.rglob("*.md"):  # written over two seconds ago: not "racy", so trusted by size and mtime
        os.utime(path, (1_700_000_000, 1_700_000_000))
    search(run_cli, mem, "redis")  # the index is built
    probe = ("import sys\nfrom pathlib import Path\nfrom apm_git.commands.search import search\n"
             "from apm_git.store.repo import open_repo\n"
             "hits = search(open_repo(Path(sys.argv[1])), sys.argv[2], limit=5).hits\n"
             "print(len(hits), sorted(name for name in ('hashlib', 'shutil') if name in sys.modules))")

    def run(query: str) -> str:
        ran = subprocess.run([sys.executable, "-c", probe, str(mem.root), query], capture_output=True, check=True)
        return ran.stdout.decode().strip()

    found = run("redis").split(" ", 1)
    assert found[1] == "[]" and int(found[0]) > 0
    write(mem, "ops.md", "# Ops\n\nRedis restarts nightly.\n")  # a changed file is hashed as git does
    assert run("redis") == f"{int(found[0]) + 1} ['hashlib']"
