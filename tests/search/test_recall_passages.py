"""Search, recall and load through passages (issue 25): the best passage of a section with its heading path and
date, the hook's budget spent on passages ranked across files, words matched whole and in any form, and the
templates `init` wrote left out until written into."""
from __future__ import annotations

from typing import Any

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke
from tests.loading.conftest import build, cli_json, record, write

FILLER = ["How was your week?", "Pretty busy, work has been hectic.", "That sounds great!", "Haha, totally.",
          "Let's catch up properly soon.", "The weather has been awful, rain every day."]


def session(number: int, date: str, turns: list[str]) -> str:
    return f"## Session {number} — {date}\n\n" + "".join(f"- {turn}\n" for turn in turns) + "\n"


@pytest.fixture
def mem(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    mem = build(repo, monkeypatch)
    long_day = [f"{'Maya' if n % 2 else 'Tom'}: {FILLER[n % len(FILLER)]} ({n})" for n in range(60)]
    long_day[41] = "Tom: I sprained my ankle playing tennis yesterday, so I'm on crutches for a while."
    write(mem, "dialogs/2023-05.md", "# Conversations, May 2023\n\n" + session(3, "2 May 2023", FILLER[:4])
          + session(4, "8 May 2023", long_day))
    write(mem, "dialogs/2023-06.md", "# Conversations, June 2023\n\n" + session(5, "3 June 2023", [
        "Maya: The physio said the ankle heals well, no crutches by July.", *FILLER[:3]]))
    write(mem, "ops.md", "# Ops\n\n## План развёртывания\n\nСначала стенд, потом прод.\n\n## CI runner\n\n"
                         "The CI runner caches wheels.\n\n" + record("2026-03-03", "Discipline in reviews",
                                                                     "Review within a day.", value="HIGH"))
    return mem


def search(run_cli: Invoke, mem: MemoryRepo, *args: str) -> dict[str, Any]:
    return cli_json(run_cli, mem, "search", *args)


def test_search_returns_the_best_passage_with_its_heading_path_and_date(mem: MemoryRepo, run_cli: Invoke) -> None:
    hit = search(run_cli, mem, "crutches tennis")["hits"][0]
    lines = (mem.memory / "dialogs/2023-05.md").read_text().splitlines()
    assert lines[hit["line"] - 1].startswith("- Tom: I sprained my ankle") and hit["last"] == hit["line"]
    assert lines[hit["section"] - 1] == "## Session 4 — 8 May 2023"
    assert (hit["trail"], hit["date"]) == ("Conversations, May 2023", "2023-05-08")
    assert hit["snippet"].startswith("- Tom: I sprained my ankle")
    ran = run_cli("--repo", str(mem.root), "search", "crutches tennis")
    assert ran.stdout.startswith(f"memory/dialogs/2023-05.md:{hit['line']}  Conversations, May 2023 › "
                                 "Session 4 — 8 May 2023: - Tom: I sprained")


@pytest.mark.parametrize("query", ["развёртывания", "развертывания", "развёртывание"])
def test_yo_and_ye_are_one_letter(mem: MemoryRepo, run_cli: Invoke, query: str) -> None:
    hits = search(run_cli, mem, query)["hits"]
    assert [(hit["file"], hit["heading"]) for hit in hits] == [("memory/ops.md", "План развёртывания")]


def test_a_short_word_matches_whole_words_only(mem: MemoryRepo, run_cli: Invoke) -> None:
    hits = search(run_cli, mem, "CI")["hits"]
    # not "Discipline" nor the record's decision_value; the journal's "Flaky CI" record and the runner
    assert {hit["heading"] for hit in hits} == {"CI runner", "[2026-04-05] Flaky CI"}
    assert search(run_cli, mem, "HIGH")["total"] == 0  # a record's counters (decision_value=HIGH) are not content


def test_untouched_templates_are_not_searched(mem: MemoryRepo, run_cli: Invoke) -> None:
    assert search(run_cli, mem, "Hard Rules routing")["total"] == 0
    index = mem.memory / "main/index.md"
    index.write_text(index.read_text() + "| redis, cache | longterm.md | P1 |\n")
    hits = search(run_cli, mem, "Hard Rules routing")["hits"]
    assert [(hit["file"], hit["heading"]) for hit in hits] == [("memory/main/index.md", "Routing")]


def recall(run_cli: Invoke, mem: MemoryRepo, prompt: str, *args: str) -> dict[str, Any]:
    return cli_json(run_cli, mem, "recall", prompt, *args)


def test_recall_spends_its_budget_on_passages_across_files(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = recall(run_cli, mem, "why is Tom on crutches after playing tennis?")
    files = [item["file"] for item in data["sections"]]
    assert files[:2] == ["memory/dialogs/2023-05.md", "memory/dialogs/2023-06.md"]  # ranked across files
    first = data["sections"][0]
    assert first["text"].startswith("- Tom: I sprained my ankle") and len(first["lines"]) == 1  # not the session
    assert (first["heading"], first["date"]) == ("Session 4 — 8 May 2023", "2023-05-08")
    assert 0 < data["tokens"] <= data["budget"] == 600
    ran = run_cli("--repo", str(mem.root), "recall", "why is Tom on crutches after playing tennis?")
    assert "## Conversations, May 2023 › Session 4 — 8 May 2023\n- Tom: I sprained my ankle" in ran.stdout


def test_recall_is_not_empty_when_search_has_a_hit(mem: MemoryRepo, run_cli: Invoke) -> None:
    assert search(run_cli, mem, "physio and the weather in Lisbon")["total"] > 0
    data = recall(run_cli, mem, "physio and the weather in Lisbon")
    assert data["sections"] and data["sections"][0]["file"] == "memory/dialogs/2023-06.md"
    whole = recall(run_cli, mem, "sprained")["tokens"]  # one passage and its heading path
    tiny = recall(run_cli, mem, "sprained", "--budget", str(whole - 4))  # too small for them: the passage is cut
    assert tiny["sections"] and 0 < tiny["tokens"] <= whole - 4
    assert tiny["sections"][0]["text"].startswith("- Tom: I sprained") and tiny["sections"][0]["text"].endswith(" …")
    assert recall(run_cli, mem, "zeppelin")["sections"] == []  # no hit: nothing


def test_a_record_is_recalled_whole_under_its_own_heading(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = recall(run_cli, mem, "pool exhaustion")
    item = data["sections"][0]
    assert item["entry_id"] == "2026-03-01-pool-exhaustion" and item["text"].startswith("## [2026-03-01]")
    ran = run_cli("--repo", str(mem.root), "recall", "pool exhaustion")
    assert "## Lessons" not in ran.stdout and ran.stdout.count("## [2026-03-01] Pool exhaustion") == 1


def test_a_load_takes_the_best_passage_of_a_section_too_large_for_it(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = cli_json(run_cli, mem, "load", "--intent", "Tom crutches ankle", "--budget", "700")
    passages = {item["path"]: item for item in data["files"] if item["role"] == "L2 section"}
    lines = (mem.memory / "dialogs/2023-05.md").read_text().splitlines()
    turn = next(number for number, line in enumerate(lines, start=1) if "sprained" in line)
    assert f"memory/dialogs/2023-05.md:{turn}-{turn}" in passages
    assert "the best passage of Conversations, May 2023 › Session 4 — 8 May 2023" in passages[
        f"memory/dialogs/2023-05.md:{turn}-{turn}"]["why"]
    assert data["tokens"] <= data["budget"]


@pytest.mark.parametrize("how", [(), ("--scan",)])
def test_the_same_words_are_shown_once(mem: MemoryRepo, run_cli: Invoke, how: tuple[str, ...]) -> None:
    """Sessions 3 and 5 both hold "- That sounds great!": a page shows it once (the better ranked place), and the
    hook spends its budget on it once."""
    lines = [*(mem.memory / "dialogs/2023-05.md").read_text().splitlines(),
             *(mem.memory / "dialogs/2023-06.md").read_text().splitlines()]
    assert lines.count("- That sounds great!") == 2
    data = search(run_cli, mem, *how, "sounds great")
    snippets = [hit["snippet"] for hit in data["hits"]]
    assert snippets.count("- That sounds great!") == 1 and len(snippets) == len(set(snippets)), snippets
    assert len(snippets) > 1  # the long day's "Maya: That sounds great! (n)" lines are other words
    recalled = [line for item in recall(run_cli, mem, "sounds great")["sections"] for line in item["text"].split("\n")]
    assert recalled.count("- That sounds great!") == 1, recalled
