"""The MCP write tools under hostile input (issue 22, cases 4 and 6): a 5 MB `journal_add` is refused before
it touches the day's journal, and a `flush` whose message or session holds a credential commits nothing;
the server answers each with an error and goes on serving.  A real server process, the SDK's own client."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from apm_git.store.repo import MemoryRepo
from tests.commands.test_flush_messages import anthropic_key, github_token
from tests.conftest import git

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


def text_of(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def hostile_session(repo: MemoryRepo, cwd: Path, secrets: dict[str, str]) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "apm_git", "mcp", "--repo", str(repo.root)],
                                   cwd=str(cwd))
    seen: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        seen["first"] = await session.call_tool("journal_add", {"text": "the first item of the day", "kind": "lesson"})
        seen["journal"] = json.loads(text_of(seen["first"]))["file"]
        seen["before"] = (repo.root / seen["journal"]).read_bytes()
        seen["huge"] = await session.call_tool("journal_add", {"text": "y" * 5_000_000, "kind": "lesson"})
        seen["after_huge"] = (repo.root / seen["journal"]).read_bytes()
        seen["secret_message"] = await session.call_tool("flush", {"message": f"token {secrets['message']}"})
        seen["secret_session"] = await session.call_tool("flush", {"session": secrets["session"]})
        seen["head_before_flush"] = git(repo.root, "rev-parse", "HEAD")
        seen["flush"] = json.loads(text_of(await session.call_tool("flush", {"session": "mcp-1"})))
    return seen


@pytest.mark.slow
def test_mcp_refuses_a_huge_item_and_a_credential_in_a_flush_and_keeps_the_day_committed(
    repo: MemoryRepo, tmp_path: Path,
) -> None:
    secrets = {"message": github_token(), "session": anthropic_key()}
    head = git(repo.root, "rev-parse", "HEAD")
    seen = anyio.run(hostile_session, repo, tmp_path, secrets)
    assert not seen["first"].is_error
    assert seen["huge"].is_error and "one journal item may hold" in text_of(seen["huge"])
    assert seen["after_huge"] == seen["before"], "the refused item never touched the journal"
    for key, kind in (("secret_message", "GitHub Token"), ("secret_session", "Anthropic API Key")):
        assert seen[key].is_error and kind in text_of(seen[key]), key
        assert all(secret not in text_of(seen[key]) for secret in secrets.values())
    assert seen["head_before_flush"] == head, "nothing was committed by the refused flushes"
    assert seen["flush"]["commit"] and seen["journal"] in seen["flush"]["files"]
    assert "the first item of the day" in git(repo.root, "show", f"HEAD:{seen['journal']}")
    log = git(repo.root, "log", "--all", "-p", "--format=%B")
    assert all(secret not in log for secret in secrets.values())
