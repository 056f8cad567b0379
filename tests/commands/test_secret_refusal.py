"""Issue 23.2: a suspected secret is refused where it is written (`journal add`, `remember`, and the MCP tools
that call the same operations): exit 1, one line naming the kind and the line, never the secret, nothing
written; `--allow-secret` writes a false positive with the pragma the scanner honours, so no flush withholds it."""
from __future__ import annotations

import datetime as dt
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import git, run_apm

NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
AWS_KEY = "AKIA" + "Q7XW2M4KZP3RT9BN"  # fake, of the real shape
JOURNAL = "memory/2026-04-06.md"


def _apm(repo: MemoryRepo, *args: str) -> tuple[int, str, str]:
    ran = run_apm("--repo", str(repo.root), *args, cwd=repo.root, env=NOW)
    return ran.exit_code, ran.stdout, ran.stderr


@pytest.mark.slow
def test_journal_add_refuses_a_secret_with_one_line_and_writes_nothing(repo: MemoryRepo) -> None:
    code, out, said = _apm(repo, "journal", "add", f"rotated the deploy key, new one {AWS_KEY}", "--kind", "tool",
                           "--title", "Rotated the deploy key")
    assert code == 1 and out == ""
    assert said.splitlines() == [
        f"apm-git: {JOURNAL}: not written: line 1 of the entry's text looks like a credential (AWS Access Key); keep "
        "secrets out of memory (note where the secret lives instead), or if it is not one, write it again with "
        "--allow-secret",
    ]
    assert not (repo.root / JOURNAL).exists()
    code, _, said = _apm(repo, "journal", "add", "first line is fine\nsecond line has " + AWS_KEY, "--kind", "tool",
                         "--title", "Two lines")
    assert code == 1 and "line 2 of the entry's text" in said and AWS_KEY not in said


def test_allow_secret_writes_the_pragma_and_the_flush_commits_it(repo: MemoryRepo) -> None:
    example = "AKIA" + "IOSFODNN7EXAMPLQ"  # say it is the docs' example key: a deliberate false positive
    code, _, said = _apm(repo, "journal", "add", f"the docs show {example} as the key shape", "--kind", "context",
                           "--title", "Key shape in the docs", "--allow-secret")
    assert code == 0, said
    text = (repo.root / JOURNAL).read_text()
    assert f"- Body: the docs show {example} as the key shape <!-- pragma: allowlist secret -->" in text
    code, _, said = _apm(repo, "flush")
    assert code == 0 and "WARNING" not in said, said
    assert git(repo.root, "show", f"HEAD:{JOURNAL}") == text


@pytest.mark.slow
def test_allow_secret_never_marks_a_title_or_tags(repo: MemoryRepo) -> None:
    code, _, said = _apm(repo, "journal", "add", f"{AWS_KEY} is the example key", "--kind", "context",
                         "--allow-secret")
    assert code == 1 and "the entry's title (--title, or the text's first words)" in said
    assert "--allow-secret marks the text only: give one without it" in said and AWS_KEY not in said
    code, _, said = _apm(repo, "journal", "add", f"{AWS_KEY} is the example key", "--kind", "context",
                         "--title", "Example key", "--allow-secret")
    assert code == 0, said


@pytest.mark.slow
def test_remember_refuses_a_secret_in_a_decision_or_a_task(repo: MemoryRepo) -> None:
    code, _, said = _apm(repo, "remember", "--scope", "main", "--decision", f"deploy with {AWS_KEY}")
    assert code == 1 and f"{JOURNAL}: not written: the entry's title" in said and AWS_KEY not in said
    attention = repo.memory / "main" / "attention.md"
    before = attention.read_text() if attention.exists() else None
    code, _, said = _apm(repo, "remember", "--scope", "main", "--task", f"rotate {AWS_KEY}", "--status", "todo")
    assert code == 1 and "memory/main/attention.md: not written: the task looks like a credential" in said
    assert (attention.read_text() if attention.exists() else None) == before
    for status in ("todo", "done"):  # a status change finds the task it marked
        code, _, said = _apm(repo, "remember", "--scope", "main", "--task", f"rotate {AWS_KEY}", "--status", status,
                             "--allow-secret")
        assert code == 0, said
    tasks = [line for line in attention.read_text().splitlines() if "rotate" in line]
    assert tasks == [f"- [done] rotate {AWS_KEY} <!-- pragma: allowlist secret --> (updated 2026-04-06)"]


@pytest.mark.slow
def test_the_mcp_journal_tool_refuses_a_secret_too(repo: MemoryRepo, tmp_path: Path) -> None:
    mcp = pytest.importorskip("mcp")
    from mcp.client.stdio import stdio_client

    async def call() -> tuple[bool, str]:
        params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "apm_git", "mcp", "--repo",
                                                                        str(repo.root)], cwd=str(tmp_path))
        async with stdio_client(params) as (read, write), mcp.ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("journal_add", {"text": f"the key is {AWS_KEY}", "kind": "tool",
                                                             "title": "Deploy key"})
            return result.is_error, "".join(getattr(part, "text", "") for part in result.content)

    is_error, text = anyio.run(call)
    assert is_error and "not written" in text and "(AWS Access Key)" in text and AWS_KEY not in text
    assert "write it again with allow_secret: true" in text and "--allow-secret" not in text  # the tool's words
    assert not (repo.memory / f"{dt.date.today().isoformat()}.md").exists() or AWS_KEY not in (
        repo.memory / f"{dt.date.today().isoformat()}.md").read_text()


@pytest.mark.slow
def test_the_mcp_write_tools_take_allow_secret_as_the_command_line_does(repo: MemoryRepo, tmp_path: Path) -> None:
    mcp = pytest.importorskip("mcp")
    from mcp.client.stdio import stdio_client

    example = "AKIA" + "IOSFODNN7EXAMPLQ"  # a deliberate false positive: the docs' example key shape
    seen: dict[str, tuple[bool, str]] = {}

    async def call() -> dict[str, Any]:
        params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "apm_git", "mcp", "--repo",
                                                                        str(repo.root)], cwd=str(tmp_path),
                                           env={**os.environ, **NOW})
        async with stdio_client(params) as (read, write), mcp.ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name: tool.input_schema for tool in (await session.list_tools()).tools}
            calls = {
                "journal": ("journal_add", {"text": f"the docs show {example} as the key shape", "kind": "context",
                                            "title": "Key shape in the docs", "allow_secret": True}),
                "title": ("journal_add", {"text": f"{example} is the example key", "kind": "context",
                                          "allow_secret": True}),
                "not a boolean": ("journal_add", {"text": "x", "kind": "context", "allow_secret": "yes"}),
                "task refused": ("remember", {"scope": "main", "task": f"rotate {AWS_KEY}", "status": "todo"}),
                "task": ("remember", {"scope": "main", "task": f"rotate {AWS_KEY}", "status": "todo",
                                      "allow_secret": True}),
                "decision": ("remember", {"scope": "main", "decision": f"the example key is {example}",
                                          "title": "Example key", "allow_secret": True}),
            }
            for name, (tool, arguments) in calls.items():
                result = await session.call_tool(tool, arguments)
                seen[name] = result.is_error, "".join(getattr(part, "text", "") for part in result.content)
            return tools

    tools = anyio.run(call)
    for tool in ("journal_add", "remember"):
        assert tools[tool]["properties"]["allow_secret"]["type"] == "boolean"
        assert tools[tool]["properties"]["allow_secret"]["default"] is False
        assert "allow_secret" not in tools[tool]["required"]
    assert seen["journal"][0] is False and json.loads(seen["journal"][1])["file"] == JOURNAL
    assert seen["title"][0] is True
    assert "allow_secret: true marks the text only: give one without it" in seen["title"][1]
    assert seen["not a boolean"] == (True, "apm-git: allow_secret must be true or false, not a string")
    assert seen["task refused"][0] is True and "the task looks like a credential" in seen["task refused"][1]
    assert seen["task"][0] is False and seen["decision"][0] is False
    journal = (repo.root / JOURNAL).read_text()
    assert f"- Body: the docs show {example} as the key shape <!-- pragma: allowlist secret -->" in journal
    assert f"- Body: the example key is {example} <!-- pragma: allowlist secret -->" in journal
    assert f"rotate {AWS_KEY} <!-- pragma: allowlist secret -->" in (repo.memory / "main" / "attention.md").read_text()
    flushed = run_apm("--repo", str(repo.root), "flush", cwd=repo.root, env=NOW)
    assert flushed.exit_code == 0 and "WARNING" not in flushed.stderr, flushed.stderr  # nothing withheld
    assert git(repo.root, "show", f"HEAD:{JOURNAL}") == journal
