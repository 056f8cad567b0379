"""`apm-git mcp`: a real MCP session over stdio through the SDK's own client, on a real memory repository."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from apm_git import __version__
from apm_git.store.repo import MemoryRepo
from tests.cli.test_json_schemas import validator
from tests.conftest import run_apm

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

TOOLS = {"load", "search", "journal_add", "remember", "hit", "flush", "history", "status"}


def text_of(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def server_params(repo: MemoryRepo, cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "apm_git", "mcp", "--repo", str(repo.root)],
                                 cwd=str(cwd))


async def session_run(repo: MemoryRepo, cwd: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with stdio_client(server_params(repo, cwd)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        seen["tools"] = {tool.name for tool in (await session.list_tools()).tools}
        added = await session.call_tool("journal_add", {
            "text": "the nightly export needs the EXPORT_TOKEN rotated every 30 days", "kind": "lesson",
            "title": "Nightly export token rotation", "tags": ["export"]})
        seen["added"] = json.loads(text_of(added))
        seen["remember"] = await session.call_tool("remember", {"scope": "main", "decision": "we ship on Tuesdays"})
        seen["flush"] = json.loads(text_of(await session.call_tool("flush", {"session": "mcp-1"})))
        seen["search"] = json.loads(text_of(await session.call_tool("search", {"query": "export token rotation"})))
        seen["meaning"] = json.loads(text_of(await session.call_tool(
            "search", {"query": "how often must the export credential change", "meaning": True})))
        entry = seen["added"]["entry_id"]
        seen["hit"] = json.loads(text_of(await session.call_tool("hit", {"entry_ids": [entry]})))
        seen["history"] = json.loads(text_of(await session.call_tool("history", {"entry_id": entry})))
        seen["load"] = text_of(await session.call_tool("load", {"intent": "debug the nightly export"}))
        seen["status"] = json.loads(text_of(await session.call_tool("status", {})))
        seen["bad_args"] = await session.call_tool("journal_add", {"text": 42})
        seen["bad_kind"] = await session.call_tool("journal_add", {"text": "x", "kind": "nonsense"})
        seen["bad_id"] = await session.call_tool("history", {"entry_id": "not an id"})
        seen["after"] = json.loads(text_of(await session.call_tool("search", {"query": "EXPORT_TOKEN"})))
        resources = await session.list_resources()
        seen["resources"] = [str(item.uri) for item in resources.resources]
        index = await session.read_resource(resources.resources[0].uri)
        seen["index"] = "".join(getattr(part, "text", "") for part in index.contents)
    return seen


@pytest.mark.slow
def test_a_real_mcp_session_calls_every_tool(repo: MemoryRepo, tmp_path: Path) -> None:
    seen = anyio.run(session_run, repo, tmp_path)
    assert seen["tools"] == TOOLS
    assert not seen["remember"].is_error
    assert seen["flush"]["commit"]
    assert seen["added"]["entry_id"] in {hit["entry_id"] for hit in seen["search"]["hits"]}
    assert seen["meaning"]["method"] == "meaning"  # no vectors built yet: ranked by the words it shares
    assert seen["added"]["entry_id"] in {hit["entry_id"] for hit in seen["meaning"]["hits"]}
    assert seen["hit"]["hits"][0]["hit_count"] == 1
    assert any(event["commit"].startswith(seen["flush"]["commit"][:7]) for event in seen["history"]["events"])
    for key, schema in (("added", "journal-add"), ("flush", "flush"), ("search", "search"), ("hit", "hit"),
                        ("history", "history"), ("status", "status")):
        assert not list(validator(schema).iter_errors(seen[key])), key  # the same JSON as the CLI's --json
    assert "Nightly export token rotation" in seen["load"] or "INDEX.md" in seen["load"]
    assert "files" in seen["status"]
    for bad in ("bad_args", "bad_kind", "bad_id"):
        assert seen[bad].is_error, bad
    assert "kind must be one of" in text_of(seen["bad_kind"])
    assert "is not an entry id" in text_of(seen["bad_id"])
    assert seen["after"]["hits"]  # the server kept serving after the errors
    assert seen["resources"] == ["apm-git://memory/INDEX.md"]
    assert "INDEX" in seen["index"] or "|" in seen["index"]


# (tool, arguments, what the one-line error says): the SDK's validation would have answered some of these
# with several lines of pydantic, and accepted the others.
EDGES = [
    ("journal_add", {"text": 42, "kind": "lesson"}, "apm-git: text must be a string, not a number"),
    ("journal_add", {"text": "x"}, "apm-git: journal_add needs kind"),
    ("load", {"budget": -5}, "apm-git: budget must be from 1 to 1,000,000; -5 is out of range"),
    ("load", {"budget": "5"}, "apm-git: budget must be a whole number, not a string"),
    ("load", {"budget": 10**30}, "apm-git: budget must be from 1 to 1,000,000; a 31-digit number is out of range"),
    ("load", {"main": "yes"}, "apm-git: main must be true or false, not a string"),
    ("search", {"query": "export", "limit": -1}, "apm-git: limit must be from 1 to 1,000; -1 is out of range"),
    ("search", {"query": "export", "limit": 1.5}, "apm-git: limit must be a whole number, not a number"),
    ("history", {"entry_id": "2026-04-06-" + "a" * 100_000},
     "apm-git: entry_id is 100,011 characters long; the limit is 200"),
    ("hit", {"entry_ids": []}, "apm-git: entry_ids holds 0 items; give 1 to 1,000"),
    ("hit", {"entry_ids": ["2026-04-06-x", 7]}, "apm-git: entry_ids[1] must be a string, not a number"),
    ("load", {"intent": "deploy " * 300_000}, "apm-git: intent is 2,100,000 characters long; the limit is 2,000"),
    ("load", {"budjet": 100}, "apm-git: load takes no argument 'budjet'; it takes: intent, budget, group, room, main,"),
    ("flush", {"trigger": "sometimes"}, "apm-git: trigger must be one of manual, pre-compact, session-end, idle"),
    ("remember", {"scope": "main"}, "apm-git: give either decision, or task and status"),
    ("search", {"query": "export", "archive": True, "archive_only": True},
     "apm-git: archive and archive_only exclude each other"),
]


async def edges_run(repo: MemoryRepo, cwd: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {"errors": []}
    async with stdio_client(server_params(repo, cwd)) as (read, write), ClientSession(read, write) as session:
        seen["init"] = await session.initialize()
        seen["tools"] = (await session.list_tools()).tools
        for tool, arguments, _ in EDGES:
            seen["errors"].append(await session.call_tool(tool, arguments))
        seen["cased"] = await session.call_tool("journal_add", {"text": "ship on Tuesdays", "kind": "Decision",
                                                                "value": "high", "title": "Release day"})
    return seen


@pytest.mark.slow
def test_mcp_answers_like_the_cli(repo: MemoryRepo, tmp_path: Path) -> None:
    """Issue 24 case 8: apm-git's version, clean descriptions, and one line for every bad argument,
    refused before any work (a 100,000-character id never reaches git; a 2 MB intent is not echoed)."""
    seen = anyio.run(edges_run, repo, tmp_path)
    assert seen["init"].server_info.name == "apm-git"
    assert seen["init"].server_info.version == __version__
    for tool in seen["tools"]:
        texts = [tool.description or "", *(prop["description"] for prop in tool.input_schema["properties"].values())]
        for text in texts:
            assert text and "  " not in text and "\n" not in text, (tool.name, text)
        assert tool.input_schema["additionalProperties"] is False
    for (tool, _, expected), result in zip(EDGES, seen["errors"], strict=True):
        text = text_of(result)
        assert result.is_error, tool
        assert text.startswith(expected), (text, expected)
        assert "\n" not in text and len(text) < 300, text
    assert not seen["cased"].is_error  # kind and value are read without regard to case, as words
    assert json.loads(text_of(seen["cased"]))["entry_id"].endswith("release-day")


def test_mcp_refuses_to_start_without_a_memory_repository(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-memory"
    ran = run_apm("mcp", "--repo", str(missing), cwd=tmp_path, input="")
    assert ran.exit_code == 3
    assert ran.stdout == ""
    assert ran.stderr.count("\n") == 1 and str(missing) in ran.stderr and "does not exist" in ran.stderr
    plain = tmp_path / "plain"
    plain.mkdir()
    ran = run_apm("mcp", "--repo", str(plain), cwd=tmp_path, input="")
    assert ran.exit_code == 3 and ran.stderr.count("\n") == 1 and "not inside a git repository" in ran.stderr
