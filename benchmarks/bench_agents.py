"""Issue 10: the UserPromptSubmit hook on the large repository, exactly as `hooks install claude-code
--recall` writes it and Claude Code runs it (`/bin/sh -c COMMAND` in the project, a real payload on
stdin), against `cat` of a file (the floor of any hook process); and an MCP tool call round trip
(search) through the SDK's stdio client once the server runs."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from harness import APM, Context, Row, alternate, env, median_of

SECTION = "agents"
HOOK_TARGET = 0.15
MCP_TARGET = 0.05
PROMPT = "why does the redis timeout keep happening in the deploy?"


def _installed(root: Path, project: Path) -> str:
    """The UserPromptSubmit command `hooks install claude-code --memory ROOT --recall` writes into the project."""
    project.mkdir(exist_ok=True)
    subprocess.run((*APM, "hooks", "install", "claude-code", "--memory", str(root), "--recall"), cwd=project,
                   env=env(), capture_output=True, check=True)
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (command,) = [hook["command"] for group in settings["hooks"]["UserPromptSubmit"] for hook in group["hooks"]]
    return str(command)


def _hook(command: str, project: Path, cpu: list[float] | None = None, forget: Path | None = None) -> float:
    """One run as Claude Code makes it: a shell that finds apm-git on PATH; `forget` deletes that cache first."""
    if forget is not None:
        forget.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    payload = json.dumps({"session_id": "bench", "hook_event_name": "UserPromptSubmit", "cwd": str(project),
                          "transcript_path": "", "prompt": PROMPT})
    path = f"{Path(APM[0]).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    start = time.perf_counter()
    proc = subprocess.run(("/bin/sh", "-c", command), input=payload.encode(), cwd=project, env=env(PATH=path),
                          capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cpu is not None:
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if proc.returncode != 0 or b"additionalContext" not in proc.stdout:
        raise RuntimeError(f"the recall hook failed ({proc.returncode}): {proc.stderr.decode()[-300:]}")
    return elapsed


def _cat(root: Path) -> float:
    start = time.perf_counter()
    subprocess.run(("cat", str(root / "apm.yaml")), capture_output=True, check=False)
    return time.perf_counter() - start


def _mcp_round_trips(root: Path, repeat: int) -> list[float]:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    samples: list[float] = []

    async def session() -> None:
        params = StdioServerParameters(command=APM[0], args=["mcp", "--repo", str(root)], cwd=str(root), env=env())
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            await client.call_tool("search", {"query": "redis timeout"})  # warm: the index exists
            for _ in range(repeat):
                start = time.perf_counter()
                result = await client.call_tool("search", {"query": "redis timeout"})
                samples.append(time.perf_counter() - start)
                if result.is_error:
                    raise RuntimeError("the MCP search failed")

    anyio.run(session)
    return samples


def run_section(ctx: Context) -> list[Row]:
    root = ctx.fresh_copy("large", "agents")
    project = ctx.workdir / "agents-project"  # a project of its own; the memory is reached through --repo
    command = _installed(root, project)
    _hook(command, project)  # warm: the search index exists, the matched sections' token counts are cached
    cpu: list[float] = []
    hooks, cats = alternate(ctx.repeat, lambda _: _hook(command, project, cpu), lambda _: _cat(root))
    hook = median_of(hooks)
    rows = [Row(SECTION, "UserPromptSubmit hook (recall), large", hook, median_of(cats),
                f"<= {HOOK_TARGET}s", hook <= HOOK_TARGET, f"CPU {median_of(cpu):.3f}s; {command.split()[0]}")]
    counts = root / ".git" / "apm-git" / "tokens.cache"
    cold_cpu: list[float] = []
    cold = median_of([_hook(command, project, cold_cpu, forget=counts) for _ in range(ctx.repeat)])
    rows.append(Row(SECTION, "  the same, token counts not cached", cold, None, "", None,
                    f"CPU {median_of(cold_cpu):.3f}s; tiktoken built (ranks from ~/.cache/apm-git)"))
    try:
        trips = _mcp_round_trips(root, max(ctx.repeat, 20))
    except ImportError:
        print("mcp is not installed: the MCP round trip is not measured", file=sys.stderr)
        return rows
    trip = median_of(trips)
    rows.append(Row(SECTION, "MCP search round trip, large", trip, None, f"<= {MCP_TARGET}s", trip <= MCP_TARGET))
    return rows
