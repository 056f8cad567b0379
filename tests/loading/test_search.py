"""`apm-git search` (L3): ranked entries with id, file:line and a snippet, live and archived."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from apm_git.model.records import parse
from apm_git.store.repo import MemoryRepo, open_repo
from tests.conftest import Invoke
from tests.loading.conftest import build, cli_json, record, write

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from generate import generate


@pytest.fixture
def mem(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    mem = build(repo, monkeypatch)
    write(mem, "archive/2026-01.md", "# Archive 2026-01\n\n" + record(
        "2025-10-01", "Redis eviction storm", "Keys vanished under memory pressure; maxmemory-policy fixed it.",
        kind="lesson") + "- Archived: 2026-01-03 (fitness score: 20, last_referenced: 2025-10-01, from lessons.md)\n\n")
    write(mem, "decisions.md", "# Decisions\n\n" + record("2026-03-02", "Postgres 16", "Upgrade in May.") + record(
        "2026-03-04", "Session store", "Sessions live in Redis; redis sentinel for failover.", hits=4))
    return mem


def search(run_cli: Invoke, mem: MemoryRepo, *args: str) -> dict[str, Any]:
    return cli_json(run_cli, mem, "search", *args)


def test_ranked_hits_with_id_file_line_and_snippet(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = search(run_cli, mem, "redis")
    ids = [hit["entry_id"] for hit in data["hits"]]
    # live memory first (a title hit outranks a body hit), then the archive
    assert ids == ["2026-04-06-redis-for-sessions", "2026-03-04-session-store", "2025-10-01-redis-eviction-storm"]
    assert data["total"] == 3 and data["where"] == "live, then archive"
    alike = search(run_cli, mem, "redis", "--archive")  # asked for: the archive ranks by its match alone
    assert [hit["entry_id"] for hit in alike["hits"]] == [
        "2026-04-06-redis-for-sessions", "2025-10-01-redis-eviction-storm", "2026-03-04-session-store"]
    assert alike["where"] == "live and archive alike"
    for hit in data["hits"]:
        lines = (mem.root / hit["file"]).read_text().splitlines()
        assert lines[hit["line"] - 1].startswith("## [") and hit["heading"] in lines[hit["line"] - 1]
        assert "\n" not in hit["snippet"] and len(hit["snippet"]) <= 120
    archived = data["hits"][2]
    assert archived["archived"] and archived["file"] == "memory/archive/2026-01.md" and archived["line"] == 3
    assert archived["heading"] == "[2025-10-01] Redis eviction storm"
    assert archived["snippet"] == "Keys vanished under memory pressure; maxmemory-policy fixed it."


def test_more_query_words_matched_rank_first(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = search(run_cli, mem, "redis failover")
    assert data["hits"][0]["entry_id"] == "2026-03-04-session-store"
    assert data["hits"][0]["matched"] == ["redis", "failover"]


def test_archive_only_and_limit(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = search(run_cli, mem, "redis", "--archive-only")
    assert [hit["file"] for hit in data["hits"]] == ["memory/archive/2026-01.md"] and data["where"] == "archive"
    limited = search(run_cli, mem, "redis", "--limit", "1")
    assert len(limited["hits"]) == 1 and limited["total"] == 3


def test_text_output_is_one_line_per_entry(mem: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(mem.root), "search", "redis", "--limit", "2")
    lines = ran.stdout.splitlines()
    assert lines[0].startswith("2026-04-06-redis-for-sessions  memory/2026-04-06.md:3  Journal 2026-04-06 › "
                               "[2026-04-06] Redis for sessions: Use Redis.  (score ")
    files = len([rel for rel in mem.markdown_files() if not rel.startswith("groups/") and rel != "INDEX.md"])
    assert lines[-1] == f"3 sections matched (showing 2) in {files} files (live, then archive)"
    none = run_cli("--repo", str(mem.root), "search", "kubernetesx")
    assert none.exit_code == 0 and none.stdout.startswith("nothing matched 'kubernetesx'")


def test_a_word_matches_at_word_starts_only(mem: MemoryRepo, run_cli: Invoke) -> None:
    assert search(run_cli, mem, "edis")["total"] == 0
    assert search(run_cli, mem, "sess")["hits"][0]["entry_id"] == "2026-03-04-session-store"


def test_records_hidden_in_code_fences_are_not_entries(mem: MemoryRepo, run_cli: Invoke) -> None:
    write(mem, "tools-config.md", "# Tools\n\n```\n## [2026-01-01] Fenced redis\n```\n\n" + record(
        "2026-02-02", "Real redis cli", "redis-cli --scan."))
    found = [hit for hit in search(run_cli, mem, "redis")["hits"] if hit["file"] == "memory/tools-config.md"]
    # the fenced heading is no record: the fence is text of the file's first section
    assert [(hit["entry_id"], hit["section"]) for hit in found] == [("2026-02-02-real-redis-cli", 7), (None, 1)]


@pytest.mark.parametrize(("args", "code", "message"), [
    (("--",), 2, "Missing argument"),
    (("!!!",), 2, "no words to look for"),
    (("redis", "--limit", "0"), 2, "0 is not in the range"),
])
def test_bad_queries(mem: MemoryRepo, run_cli: Invoke, args: tuple[str, ...], code: int, message: str) -> None:
    ran = run_cli("--repo", str(mem.root), "search", *args)
    assert ran.exit_code == code and message in ran.stderr


def test_search_finds_archived_entries_of_a_generated_repository(tmp_path: Path, run_cli: Invoke) -> None:
    generated = generate(tmp_path / "gen", entries=300, commits=40, groups=2, seed=3)
    assert generated.archived_ids, "the generator archived some entries"
    repo = open_repo(generated.out_dir)
    target = generated.archived_ids[len(generated.archived_ids) // 2]
    for rel in repo.markdown_files("archive"):
        records = {r.id: r for r in parse(repo.read(rel) or "").records}
        if target in records:
            title, where = records[target].title, (rel, records[target].line_no)
            break
    else:
        raise AssertionError(f"{target} is in no archive file")
    data = search(run_cli, repo, title, "--archive-only", "--limit", "50")
    found = [hit for hit in data["hits"] if hit["entry_id"] == target]
    assert found and (found[0]["file"], found[0]["line"]) == (f"memory/{where[0]}", where[1])
    assert all(hit["archived"] for hit in data["hits"])


def test_groups_are_searched_only_when_named_and_then_alone(mem: MemoryRepo, run_cli: Invoke) -> None:
    everywhere = search(run_cli, mem, "decided")
    assert everywhere["total"] == 0 and not any("groups/" in hit["file"] for hit in everywhere["hits"])
    alpha = search(run_cli, mem, "decided", "--group", "alpha")
    assert alpha["total"] == 3 and alpha["where"] == "group alpha"
    assert {hit["file"] for hit in alpha["hits"]} == {"memory/groups/alpha/experience.md"}
    ran = run_cli("--repo", str(mem.root), "search", "decided", "--group", "../beta")
    assert ran.exit_code == 2 and "unsafe group name" in ran.stderr
