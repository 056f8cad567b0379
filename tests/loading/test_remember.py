"""`apm-git remember`: APM write-back into a real repository, committed by the next flush."""
from __future__ import annotations

import json
from typing import Any

import pytest

from apm_git.model.records import parse
from apm_git.model.routing import parse_routing
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.loading.conftest import TODAY, cli_json


def remember(run_cli: Invoke, mem: MemoryRepo, *args: str) -> dict[str, Any]:
    return cli_json(run_cli, mem, "remember", *args)


def lines_kept(before: str, after: str) -> bool:
    """Every old line is still there, in order, unchanged or with [DEPRECATED] added at its end."""
    new = iter(after.splitlines())
    return all(any(line in (old, f"{old} [DEPRECATED]") for line in new) for old in before.splitlines())


def test_a_decision_is_appended_to_the_groups_experience(mem: MemoryRepo, run_cli: Invoke) -> None:
    path = mem.memory / "groups/alpha/experience.md"
    before = path.read_text()
    data = remember(run_cli, mem, "--scope", "group:alpha", "--decision",
                    "Use Redis 7 for sessions; Memcached lost keys.", "--value", "HIGH")
    after = path.read_text()
    assert after.startswith(before)
    entry = parse(after).entries[-1]
    assert entry.id == data["entry_id"] == f"{TODAY}-use-redis-7-for-sessions"
    assert (entry.kind, entry.body, entry.fitness.decision_value) == (
        "decision", "Use Redis 7 for sessions; Memcached lost keys.", "HIGH")
    assert data["file"] == "memory/groups/alpha/experience.md" and data["line"] == entry.line_no
    assert not list(parse(after).problems())
    assert (mem.memory / "groups/beta/experience.md").read_text() == (
        git(mem.root, "show", "HEAD:memory/groups/beta/experience.md"))
    ran = run_cli("--repo", str(mem.root), "flush", "--scope", "group:alpha")
    assert ran.exit_code == 0 and git(mem.root, "status", "--porcelain") == ""
    assert "memory/groups/alpha/experience.md" in git(mem.root, "show", "--name-only", "--format=", "HEAD")


def test_a_dm_decision_goes_to_todays_journal(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = remember(run_cli, mem, "--scope", "main", "--decision", "Answer in English", "--title", "Language")
    assert data["file"] == f"memory/{TODAY}.md"
    assert parse((mem.memory / f"{TODAY}.md").read_text()).entries[-1].id == f"{TODAY}-language"


def test_a_task_is_added_then_its_status_updated_in_place(mem: MemoryRepo, run_cli: Invoke) -> None:
    path = mem.memory / "groups/beta/attention.md"
    added = remember(run_cli, mem, "--scope", "group:beta", "--task", "Rotate the API keys", "--status", "todo")
    assert path.read_text().endswith("- [todo] beta release\n- [todo] Rotate the API keys (updated 2026-04-06)\n")
    assert added["line"] == 6 and added["detail"] == "added task [todo]"
    before = path.read_text()
    updated = remember(run_cli, mem, "--scope", "group:beta", "--task", "rotate the api KEYS", "--status", "done")
    assert updated["detail"] == "task status todo -> done" and updated["line"] == 6
    assert path.read_text() == before.replace("- [todo] Rotate the API keys", "- [done] Rotate the API keys")


def test_a_missing_group_is_initialized_first(mem: MemoryRepo, run_cli: Invoke) -> None:
    data = remember(run_cli, mem, "--scope", "group:gamma", "--create", "--task", "Say hello", "--status", "todo")
    assert "memory/groups/gamma.md" in data["created"] and "memory/groups/gamma/attention.md" in data["created"]
    assert "- [todo] Say hello (updated 2026-04-06)" in (mem.memory / "groups/gamma/attention.md").read_text()
    assert data["rows_added"] == []  # the template's index already routes to attention.md


def test_index_only_grows_a_new_route_and_a_retired_one(mem: MemoryRepo, run_cli: Invoke) -> None:
    index = mem.memory / "groups/alpha.md"
    (mem.memory / "groups/alpha/runbook.md").write_text("# Runbook\n")
    original = index.read_text()
    added = remember(run_cli, mem, "--scope", "group:alpha", "--route", "runbook.md", "--keywords",
                     "Incident, On-call", "--priority", "P1")
    assert added["rows_added"] == ["| incident, on-call | runbook.md | P1 |"] and added["rows_deprecated"] == []
    first_row = index.read_text().splitlines().index(added["rows_added"][0]) + 1
    changed = remember(run_cli, mem, "--scope", "group:alpha", "--route", "runbook.md", "--keywords", "pager",
                       "--priority", "P2")
    assert changed["rows_added"] == ["| pager | runbook.md | P2 |"] and changed["rows_deprecated"] == [first_row]
    same = remember(run_cli, mem, "--scope", "group:alpha", "--route", "runbook.md", "--keywords", "pager",
                    "--priority", "P2")
    assert same["detail"] == "already routed so; nothing changed"
    retired = remember(run_cli, mem, "--scope", "group:alpha", "--deprecate-route", "people.md")
    assert len(retired["rows_deprecated"]) == 1
    text = index.read_text()
    assert lines_kept(original, text) and len(text.splitlines()) == len(original.splitlines()) + 2
    table = parse_routing(text)
    assert table.problems == ()
    assert [(r.file, r.priority) for r in table.active if r.file in ("runbook.md", "people.md")] == [
        ("runbook.md", "P2")]
    assert [r.file for r in table.routes if r.deprecated] == ["people.md", "runbook.md"]
    data = json.loads(run_cli("--repo", str(mem.root), "load", "--group", "alpha", "--intent", "pager duty",
                              "--format", "json").stdout)
    assert data["files"][1]["path"] == "memory/groups/alpha/runbook.md"


def test_write_back_appends_a_missing_route_for_its_file(mem: MemoryRepo, run_cli: Invoke) -> None:
    index = mem.memory / "groups/alpha.md"
    text = index.read_text()
    experience_row = next(line for line in text.splitlines() if "| experience.md |" in line)
    index.write_text(text.replace(experience_row, experience_row + " [DEPRECATED]"))
    data = remember(run_cli, mem, "--scope", "group:alpha", "--decision", "Keep the API versioned")
    assert data["rows_added"] == ["| decision, lesson, why, experience | experience.md | P2 |"]
    assert lines_kept(text, index.read_text())
    again = remember(run_cli, mem, "--scope", "group:alpha", "--decision", "Another one")
    assert again["rows_added"] == []


def test_crlf_and_bom_survive_write_back(mem: MemoryRepo, run_cli: Invoke) -> None:
    path = mem.memory / "groups/alpha/attention.md"
    original = "\ufeff# Attention\r\n\r\n## Tasks\r\n\r\n- [todo] alpha release\r\n"
    path.write_bytes(original.encode())
    remember(run_cli, mem, "--scope", "group:alpha", "--task", "Second", "--status", "doing")
    assert path.read_bytes() == (original + "- [doing] Second (updated 2026-04-06)\r\n").encode()
    index = mem.memory / "groups/alpha.md"
    index.write_bytes(("\ufeff" + index.read_text().replace("\n", "\r\n")).encode())
    before = index.read_bytes()
    remember(run_cli, mem, "--scope", "group:alpha", "--deprecate-route", "people.md")
    after = index.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf") and after.count(b"\r\n") == before.count(b"\r\n")
    assert after.replace(b" [DEPRECATED]", b"") == before


@pytest.mark.parametrize(("args", "code", "message"), [
    (("--scope", "all", "--decision", "x"), 2, "remember needs one scope"),
    (("--scope", "group:../x", "--decision", "x"), 2, "unsafe group name"),
    (("--scope", "main"), 2, "give exactly one of"),
    (("--scope", "main", "--decision", "x", "--task", "y", "--status", "z"), 2, "give exactly one of"),
    (("--scope", "main", "--task", "y"), 2, "--task and --status go together"),
    (("--scope", "main", "--task", "y", "--status", "[x]"), 2, "without brackets"),
    (("--scope", "main", "--decision", "   "), 2, "the entry text is empty"),
    (("--scope", "group:alpha", "--route", "nope.md", "--keywords", "a", "--priority", "P1"), 2, "does not exist"),
    (("--scope", "group:alpha", "--route", "../beta/people.md", "--keywords", "a", "--priority", "P1"), 2,
     "must be a .md path inside groups/alpha/"),
    (("--scope", "group:alpha", "--route", "people.md", "--keywords", "a"), 2, "go together"),
    (("--scope", "group:alpha", "--deprecate-route", "nowhere.md"), 1, "has no routing row for nowhere.md"),
])
def test_bad_input_changes_nothing(mem: MemoryRepo, run_cli: Invoke, args: tuple[str, ...], code: int,
                                   message: str) -> None:
    ran = run_cli("--repo", str(mem.root), "remember", *args)
    assert ran.exit_code == code and message in ran.stderr, ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1
    assert git(mem.root, "status", "--porcelain", "--untracked-files=all") == ""
