"""Live memory ranks above the archive (issue 23, case 4): a topic with a year of archived entries still
shows its live entries first, unless the user asks for the archive (`--archive`), which ranks both by
their match alone and puts a live entry first only on an equal match.  The plain scan, `recall` (the
per-prompt hook) and a load's L2 sections follow the same rule."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from apm_git.search.index import ENV_FTS5
from apm_git.store.repo import MemoryRepo
from tests.conftest import BIN, Invoke
from tests.loading.conftest import record, write

TOPIC = "kafka retention"
OFF = {ENV_FTS5: "off"}
LIVE = {"2026-03-20-kafka-retention-policy", "2026-02-11-consumer-lag", "2026-03-30-broker-rack-awareness"}


def pair(day: str) -> str:
    """The same entry, live and archived: an equal match (the same words, and as many tokens around them)."""
    return (f"## [{day}] Broker rack awareness\n- Tags: decision\n"
            f"- Fitness: last_referenced={day}, hit_count=0, decision_value=MEDIUM\n"
            "- Body: Spread replicas over racks so a rack failure loses no partition.\n\n")


@pytest.fixture
def year(mem: MemoryRepo) -> MemoryRepo:
    """A year of archived entries, a third of them on Kafka retention (strong matches: title and body) and
    the rest on other topics (so the topic's words are rare enough for BM25 to weigh), three live entries:
    one as strong, one that names the topic once in a long text, and one that the archive holds word for word too."""
    for month in range(1, 13):
        write(mem, f"archive/2025-{month:02d}.md", f"# Archive 2025-{month:02d}\n\n" + "".join(
            record(f"2025-{month:02d}-{day:02d}", f"Kafka retention change {month}-{day}",
                   f"Kafka retention for topic {day} set to {month} days; kafka retention audited.")
            for day in range(1, 11)) + "".join(
            record(f"2025-{month:02d}-{day:02d}", f"{other} note {month}-{day}", f"{other} was tuned in batch {day}.")
            for day in range(11, 28) for other in ("Postgres vacuum", "Nginx buffers"))
            + (pair("2025-06-30") if month == 6 else ""))
    write(mem, "decisions.md", (mem.memory / "decisions.md").read_text()
          + record("2026-03-20", "Kafka retention policy", "Kafka retention is seven days; compaction for audit."))
    # its place ("main projects infra" and the heading above) has as many tokens as "archive 2025 06 Archive 2025-06":
    # BM25 counts the whole row, so the two copies score exactly alike
    write(mem, "main/projects/infra.md", "# Infra notes today\n\n" + pair("2026-03-30"))
    write(mem, "lessons.md", (mem.memory / "lessons.md").read_text()
          + record("2026-02-11", "Consumer lag", "Lag grew while kafka was rebalancing. " + "The consumers of the "
                   "billing service restarted in turn, each pausing its partitions and reading them again. " * 4,
                   kind="lesson"))
    return mem


def hits(run_cli: Invoke, mem: MemoryRepo, query: str, *args: str, env: dict[str, str] | None = None
         ) -> list[dict[str, Any]]:
    ran = run_cli("--repo", str(mem.root), "--json", "search", query, *args, env=env)
    assert ran.exit_code == 0, ran.stderr
    found = json.loads(ran.stdout)["hits"]
    assert isinstance(found, list)
    return found


@pytest.mark.parametrize("method", [(), ("--scan",)], ids=["index", "scan"])
def test_live_entries_rank_above_a_year_of_archived_ones(year: MemoryRepo, run_cli: Invoke,
                                                         method: tuple[str, ...]) -> None:
    found = hits(run_cli, year, "kafka", "--limit", "20", *method, env=OFF if method else None)
    flags = [hit["archived"] for hit in found]
    assert flags == [False, False] + [True] * 18, [hit["entry_id"] for hit in found]
    assert {hit["entry_id"] for hit in found[:2]} == {"2026-03-20-kafka-retention-policy", "2026-02-11-consumer-lag"}
    assert found[0]["entry_id"] == "2026-03-20-kafka-retention-policy"  # within live memory, by match
    scores = [hit["score"] for hit in found[2:]]
    assert scores == sorted(scores, reverse=True)  # within the archive too


@pytest.mark.slow
@pytest.mark.parametrize("method", [(), ("--scan",)], ids=["index", "scan"])
def test_asked_for_the_archive_it_ranks_by_match_alone(year: MemoryRepo, run_cli: Invoke,
                                                       method: tuple[str, ...]) -> None:
    env = OFF if method else None
    found = hits(run_cli, year, TOPIC, "--archive", "--limit", "200", *method, env=env)
    scores = [hit["score"] for hit in found]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0.5  # the words are rare enough to weigh
    weak = next(index for index, hit in enumerate(found) if hit["entry_id"] == "2026-02-11-consumer-lag")
    assert weak > 100 and sum(hit["archived"] for hit in found[:weak]) > 100  # below the archive's strong matches
    default = hits(run_cli, year, TOPIC, "--limit", "200", *method, env=env)
    assert [hit["entry_id"] for hit in default].index("2026-02-11-consumer-lag") == 1  # without --archive: second
    only = hits(run_cli, year, TOPIC, "--archive-only", "--limit", "200", *method, env=env)
    assert only and all(hit["archived"] for hit in only)
    assert len(only) == len(found) - 2


@pytest.mark.parametrize("method", [(), ("--scan",)], ids=["index", "scan"])
def test_an_equal_match_puts_the_live_entry_first(year: MemoryRepo, run_cli: Invoke, method: tuple[str, ...]) -> None:
    env = OFF if method else None
    for args in ((), ("--archive",)):
        found = hits(run_cli, year, "broker rack", *args, *method, env=env)
        assert [(hit["entry_id"], hit["file"]) for hit in found] == [
            ("2026-03-30-broker-rack-awareness", "memory/main/projects/infra.md"),
            ("2025-06-30-broker-rack-awareness", "memory/archive/2025-06.md")], args
        assert found[0]["score"] == found[1]["score"]


def test_the_text_output_says_live_first(year: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(year.root), "search", "kafka", "--limit", "3")
    assert ran.stdout.splitlines()[-1].endswith("(live, then archive)")
    ran = run_cli("--repo", str(year.root), "search", "kafka", "--archive", "--archive-only")
    assert ran.exit_code == 2 and "give one of them" in ran.stderr


@pytest.mark.slow
@pytest.mark.parametrize("env", [None, OFF], ids=["index", "scan"])
def test_recall_never_lets_the_archive_crowd_out_live_memory(year: MemoryRepo, run_cli: Invoke,
                                                             env: dict[str, str] | None) -> None:
    """More than a dozen archived sections outrank the live one: recall still finds it (the scan used to
    take its twelve candidates from the archive and then drop them all)."""
    ran = run_cli("--repo", str(year.root), "--json", "recall", "tell me about kafka retention", env=env)
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    recalled = [item["entry_id"] for item in data["sections"]]
    assert "2026-03-20-kafka-retention-policy" in recalled
    assert set(recalled) <= LIVE and not any("archive/" in item["file"] for item in data["sections"])
    payload = json.dumps({"session_id": "s", "hook_event_name": "UserPromptSubmit", "cwd": str(year.root),
                          "prompt": "tell me about kafka retention"}).encode()
    hook = subprocess.run((str(Path(BIN) / "apm-git-recall"), "--repo", str(year.root), "--hook-input", "-"),
                          input=payload, capture_output=True, check=False, env={**os.environ, **(env or {})})
    assert hook.returncode == 0, hook.stderr
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Kafka retention policy" in context and "memory/archive/" not in context


def test_a_load_without_fts5_recalls_live_sections(year: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(year.root), "--json", "load", "--intent", "kafka retention", env=OFF)
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    sections = [item["path"] for item in data["files"] if item["role"] == "L2 section"]
    assert sections and not any("archive/" in path for path in sections)
