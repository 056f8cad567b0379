"""`apm-git mcp`: a real MCP session over stdio through the SDK's own client, on a real memory repository."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from apm_git.store.repo import MemoryRepo
from tests.cli.test_json_schemas import validator

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

TOOLS = {"load", "search", "journal_add", "remember", "hit", "flush", "history", "status"}


def text_of(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def session_run(repo: MemoryRepo, cwd: Path) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "apm_git", "mcp", "--repo", str(repo.root)],
                                   cwd=str(cwd))
    seen: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        seen["tools"] = {tool.name for tool in (await session.list_tools()).tools}
        added = await session.call_tool("journal_add", {
            "text": "the nightly export needs the EXPORT_TOKEN rotated every 30 days", "kind": "lesson",
            "title": "Nightly export token rotation", "tags": ["export"]})
        seen["added"] = json.loads(text_of(added))
        seen["remember"] = await session.call_tool("remember", {"scope": "main", "decision": "we ship on Tuesdays"})
        seen["flush"] = json.loads(text_of(await session.call_tool("flush", {"session": "mcp-1"})))
        seen["search"] = json.loads(text_of(await session.call_tool("search", {"query": "export token rotation"})))
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
