"""`apm-git load` on real repositories: the three modes, the budget cut and the circuit breaker."""
from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from apm_git.commands.load import GUIDE
from apm_git.store import tokens
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.loading.conftest import TODAY, YESTERDAY, cli_json, record, write


def load_json(run_cli: Invoke, mem: MemoryRepo, *args: str) -> dict[str, Any]:
    return cli_json(run_cli, mem, "load", *args)


def paths(data: dict[str, Any]) -> list[str]:
    return [item["path"] for item in data["files"]]


@pytest.mark.slow
def test_group_by_room_loads_index_then_the_best_file_then_one_conventions_file(mem: MemoryRepo,
                                                                                 run_cli: Invoke) -> None:
    data = load_json(run_cli, mem, "--room", "room-a", "--intent", "we deploy the new API")
    assert (data["mode"], data["group"], data["room"]) == ("group", "alpha", "room-a")
    assert paths(data) == ["memory/groups/alpha.md", "memory/groups/alpha/project.md",
                           "memory/groups/alpha/conventions/api.md"]
    assert data["routes"] == [{"file": "project.md", "priority": "P1", "hits": ["deploy", "api"],
                               "reason": "matched deploy, api"}]
    assert data["skipped"] == [{"path": "memory/groups/alpha/conventions/deploy.md", "role": "conventions",
                                "priority": None, "reason": "only one conventions/ file per load; "
                                                            "conventions/api.md came first"}]
    for item in data["files"]:
        text = (mem.root / item["path"]).read_text()
        assert item["text"] == text and item["tokens"] == tokens.count(text, "cl100k_base") == item["file_tokens"]
    assert data["tokens"] == sum(item["tokens"] for item in data["files"])


def test_routing_problems_are_warnings_and_room_and_group_may_agree(mem: MemoryRepo, run_cli: Invoke) -> None:
    index = mem.memory / "groups/alpha.md"
    index.write_text(index.read_text() + "| broken row | P1 |\n")
    line = len(index.read_text().splitlines())
    data = load_json(run_cli, mem, "--room", "room-a", "--group", "alpha", "--intent", "todo")
    assert data["warnings"] == [f"memory/groups/alpha.md:{line}: routing row has 2 cells; write "
                                "'| keyword, keyword | file.md | P0 |'"]
    assert paths(data)[1] == "memory/groups/alpha/attention.md"


def test_group_without_intent_loads_the_p0_file(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = load_json(run_cli, mem, "--group", "beta")
    assert paths(data) == ["memory/groups/beta.md", "memory/groups/beta/attention.md"]
    assert data["routes"][0]["reason"] == "no intent given: by priority"


def test_a_routed_file_that_is_missing_is_reported(mem: MemoryRepo, run_cli: Invoke) -> None:
    (mem.memory / "groups/alpha/people.md").unlink()
    data = load_json(run_cli, mem, "--group", "alpha", "--intent", "who is the owner")
    assert paths(data) == ["memory/groups/alpha.md"]
    assert data["skipped"][0]["path"] == "memory/groups/alpha/people.md"
    assert data["skipped"][0]["reason"].startswith("missing: memory/groups/alpha.md routes to it")


def test_dm_loads_index_two_routed_files_journals_and_the_last_flush(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = load_json(run_cli, mem, "--main")
    assert paths(data) == ["memory/main/index.md", "memory/main/attention.md", "memory/main/longterm.md",
                           f"memory/{TODAY}.md", f"memory/{YESTERDAY}.md"]
    assert data["last_flush"] == "2026-04-06 15:00"
    recap = load_json(run_cli, mem, "--main", "--intent", "give me a recap of the week")
    assert paths(recap)[1:3] == ["memory/main/daily-synced.md", "memory/main/attention.md"]
    assert recap["routes"][0]["hits"] == ["recap", "week"]


def test_dm_reports_a_never_flushed_memory_and_a_missing_journal(repo: MemoryRepo, run_cli: Invoke,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from apm_git.store import layout

    monkeypatch.setenv("APM_GIT_NOW", TODAY)
    layout.ensure_main(repo, dt.date.fromisoformat(TODAY))
    ran = run_cli("--repo", str(repo.root), "load", "--main")
    assert ran.exit_code == 0, ran.stderr
    assert "Last flush: never" in ran.stdout
    assert f"- memory/{TODAY}.md: no journal for today ({TODAY})" in ran.stdout


def test_dm_with_an_unreadable_flush_state_still_loads(mem: MemoryRepo, run_cli: Invoke) -> None:
    (mem.memory / "flush-state.json").write_text("{oops")
    data = load_json(run_cli, mem, "--main")
    assert data["last_flush"] == "unknown" and len(data["files"]) == 5
    assert data["warnings"][0].startswith("memory/flush-state.json:1:2: not valid JSON")


def test_dreaming_mount_l1_and_the_domain_files(mem: MemoryRepo, run_cli: Invoke) -> None:
    l1 = ["memory/INDEX.md", f"memory/{TODAY}.md", f"memory/{YESTERDAY}.md"]
    start = load_json(run_cli, mem)  # session start: L1, then the Hot Files' entries
    assert paths(start) == [*l1, "memory/decisions.md:3"] and start["files"][3]["role"] == "hot"
    cases = {
        "implement the export feature": ["memory/decisions.md", "memory/project-context.md"],
        "debug the crash in the worker": ["memory/lessons.md"],
        "reply to the customer": ["memory/people.md"],
        "set up the proxy": ["memory/tools-config.md"],
    }
    for intent, l2 in cases.items():
        data = load_json(run_cli, mem, "--intent", intent)
        whole = [item for item in data["files"] if item["role"] != "L2 section"]
        assert [item["path"] for item in whole] == l1 + l2, intent
        assert {item["role"] for item in whole[3:]} == {"L2"}
        sections = [item["path"] for item in data["files"] if item["role"] == "L2 section"]
        assert not [path for path in sections if path.split(":")[0] in l1 + l2], "no section of a file loaded whole"


def test_the_first_file_is_cut_at_a_record_boundary(mem: MemoryRepo, run_cli: Invoke) -> None:
    journal = f"# Journal {TODAY}\n\n" + "".join(record(TODAY, f"Entry {n}", "word " * 40) for n in range(12))
    write(mem, f"{TODAY}.md", journal)
    (mem.memory / "INDEX.md").unlink()  # without an L1 index, today's journal is the first file
    data = load_json(run_cli, mem, "--budget", "300")
    first = data["files"][0]
    assert first["path"] == f"memory/{TODAY}.md" and first["file_tokens"] > 300 >= first["tokens"]
    assert journal.startswith(first["text"]) and first["text"].endswith("\n\n")
    kept = first["text"].count("## [")
    assert 0 < kept < 12 and first["cut"].startswith(f"cut at a record boundary: kept {kept} of 12 records")
    assert first["tokens"] == tokens.count(first["text"], "cl100k_base")
    # one more record would pass the budget: the cut keeps as many as fit
    more = journal[: len(first["text"]) + len(record(TODAY, f"Entry {kept}", "word " * 40))]
    assert tokens.count(more, "cl100k_base") > 150 and "its share of 150 tokens" in first["cut"]  # L1: half
    assert [(item["path"], item["reason"]) for item in data["skipped"]] == [
        ("memory/INDEX.md", "missing: run `apm-git index` to build it"),
    ]
    # a later L1 file too is cut to what is left of L1's share, rather than tripping the breaker
    assert data["files"][1]["path"] == f"memory/{YESTERDAY}.md"
    assert data["files"][1]["cut"].endswith("to stay within its share of 150 tokens")


def test_a_file_without_records_is_cut_at_a_line_boundary(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = load_json(run_cli, mem, "--group", "alpha", "--budget", "60")
    index = (mem.memory / "groups/alpha.md").read_text()
    first = data["files"][0]
    assert index.startswith(first["text"]) and first["text"].endswith("\n") and first["tokens"] <= 60
    assert first["cut"].startswith("cut at a line boundary")
    assert [item["path"] for item in data["skipped"]] == ["memory/groups/alpha/attention.md"]


def test_the_breaker_stops_before_the_file_that_would_pass_the_budget(mem: MemoryRepo, run_cli: Invoke) -> None:
    full = load_json(run_cli, mem, "--main")
    sizes = [item["tokens"] for item in full["files"]]
    budget = sum(sizes[:3]) + sizes[3] - 1  # everything up to the first journal, which is one token short
    data = load_json(run_cli, mem, "--main", "--budget", str(budget))
    assert paths(data) == paths(full)[:3] and data["tokens"] == sum(sizes[:3])
    assert data["skipped"] == [
        {"path": f"memory/{TODAY}.md", "role": "journal", "priority": None,
         "reason": f"budget: its {sizes[3]} tokens would bring the total to {sum(sizes[:4])}, past the budget of "
                   f"{budget}"},
        {"path": f"memory/{YESTERDAY}.md", "role": "journal", "priority": None,
         "reason": f"not loaded: the circuit breaker tripped at memory/{TODAY}.md"},
    ]


def test_memory_budget_from_apm_yaml_is_the_default(mem: MemoryRepo, run_cli: Invoke) -> None:
    config = mem.root / "apm.yaml"
    config.write_text(config.read_text().replace("memory_budget: 4000", "memory_budget: 50"))
    data = load_json(run_cli, mem, "--group", "alpha")
    assert data["budget"] == 50 and data["tokens"] <= 50 and data["files"][0]["cut"]


def test_markdown_names_every_file_its_tokens_and_what_was_skipped(mem: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(mem.root), "load", "--room", "room-b", "--intent", "api")
    data = load_json(run_cli, mem, "--room", "room-b", "--intent", "api")
    assert ran.exit_code == 0
    out = ran.stdout
    assert out.startswith("# Memory loaded by apm-git: group beta, room room-b\n")
    assert f"Tokens: {data['tokens']} of 4000 (cl100k_base)" in out
    for item in data["files"]:
        assert f"- {item['path']} ({item['priority'] or item['role']}, {item['tokens']} tokens)" in out
        assert f"<!-- apm-git: {item['path']} (" in out and item["text"] in out
    assert "- memory/groups/beta/conventions/deploy.md: only one conventions/ file per load" in out


def test_claude_hook_format_stays_under_10000_characters(mem: MemoryRepo, run_cli: Invoke) -> None:
    write(mem, f"{TODAY}.md", f"# Journal {TODAY}\n\n" + "".join(
        record(TODAY, f"Long entry {n}", "detail " * 60) for n in range(60)))
    ran = run_cli("--repo", str(mem.root), "load", "--format", "claude-hook", "--budget", "100000")
    assert ran.exit_code == 0, ran.stderr
    output = json.loads(ran.stdout)
    context = output["hookSpecificOutput"]["additionalContext"]
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert 9000 < len(context) < 10_000
    assert context.startswith("# Memory loaded by apm-git: Dreaming mount")
    assert context.endswith("\n" + GUIDE)  # the guide on writing and recalling memory is never cut
    context = context.removesuffix("\n" + GUIDE)
    note = context[context.rindex("\n[apm-git: cut here"):]
    assert "characters not shown, among them memory/" in note and note.endswith("]\n")
    full = run_cli("--repo", str(mem.root), "load", "--budget", "100000").stdout.removesuffix("\n" + GUIDE)
    kept = context[: -len(note)]
    assert full.startswith(kept) and full[len(kept):].startswith(f"## [{TODAY}] Long entry ")  # cut between two records
    assert f"{len(full) - len(kept):,} characters not shown" in note
    small = json.loads(run_cli("--repo", str(mem.root), "load", "--format", "claude-hook", "--group",
                               "alpha").stdout)
    assert "cut here" not in small["hookSpecificOutput"]["additionalContext"]


def test_json_flag_and_format_agree_or_refuse(mem: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(mem.root), "--json", "load", "--main")
    assert ran.exit_code == 0 and json.loads(ran.stdout)["mode"] == "main"
    bad = run_cli("--repo", str(mem.root), "--json", "load", "--format", "markdown")
    assert bad.exit_code == 2 and "contradict" in bad.stderr and bad.stdout == ""


@pytest.mark.parametrize(("args", "code", "message"), [
    (("--room", "room-zz"), 3, "room 'room-zz' is not mapped in memory/group_names.json"),
    (("--group", "../main"), 2, "unsafe group name"),
    (("--group", "gamma"), 3, "memory/groups/gamma.md does not exist"),
    (("--group", "alpha", "--main"), 2, "at most one of --room, --group and --main"),
    (("--room", "room-a", "--group", "beta"), 2, "--room room-a maps to group alpha, which contradicts --group beta"),
    (("--room", "room-a", "--main"), 2, "at most one of --room, --group and --main"),
    (("--budget", "0"), 2, "0 is not in the range"),
])
def test_bad_input_is_one_line_and_the_right_code(mem: MemoryRepo, run_cli: Invoke, args: tuple[str, ...],
                                                  code: int, message: str) -> None:
    ran = run_cli("--repo", str(mem.root), "load", *args)
    assert ran.exit_code == code and message in ran.stderr and ran.stdout == ""
    assert len(ran.stderr.strip().splitlines()) == 1 or code == 2


def test_a_file_with_invalid_utf8_is_skipped_not_fatal(mem: MemoryRepo, run_cli: Invoke) -> None:
    (mem.memory / f"{YESTERDAY}.md").write_bytes(b"# Journal\n\xff\xfe broken\n")
    data = load_json(run_cli, mem, "--main")
    assert f"memory/{YESTERDAY}.md" not in paths(data)
    assert "not valid UTF-8" in data["skipped"][-1]["reason"]


def test_load_changes_nothing_in_the_work_tree(mem: MemoryRepo, run_cli: Invoke) -> None:
    for args in (("--main", "--session", "s1"), ("--group", "alpha", "--session", "s1"), ("--session", "s1")):
        assert run_cli("--repo", str(mem.root), "load", *args).exit_code == 0
    assert git(mem.root, "status", "--porcelain", "--ignored") == ""
