"""`apm-git mcp`: the memory as an MCP server on stdio, for agents that speak MCP rather than hooks.

Built on the official SDK's low-level `Server`, with apm-git's own pieces where the SDK's would leave a
client waiting or answer unlike the command line (docs/agents.md):

- the wire (mcp_wire.py) answers every request that has an id, and ends the session when the client
  goes away;
- the tools (mcp_tools.py) are declared once, and their arguments are checked (mcp_args.py) before
  any work, each refusal one line;
- each call runs in a worker process (mcp_pool.py, mcp_worker.py) under a wall-clock limit, and a
  worker is ended when its call passes the limit or its client is gone.

A tool that fails answers with a result marked `isError` holding apm-git's one line, as the command
line prints it; the server keeps serving.  A request the protocol itself refuses (an unknown tool or
method, params of the wrong shape) gets a JSON-RPC error.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from apm_git import __version__
from apm_git.agents import mcp_args, mcp_tools
from apm_git.agents.mcp_pool import DEFAULT_TIMEOUT, WorkerPool

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.lowlevel import Server

RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for an unknown resource


def build(pool: WorkerPool) -> Server[Any]:
    """The server, its tools and the index resource; every call goes to `pool`."""
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError
    from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

    from apm_git.errors import UsageError

    tools = [types.Tool(name=tool.name, description=tool.about, input_schema=mcp_args.schema(tool.params))
             for tool in mcp_tools.TOOLS]

    async def list_tools(_ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None,
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = mcp_tools.BY_NAME.get(params.name)
        if tool is None:
            raise MCPError(code=INVALID_PARAMS, message=f"unknown tool {params.name[:60]!r}; the tools are "
                                                        f"{', '.join(mcp_tools.BY_NAME)}")
        try:
            arguments = mcp_args.check(tool.name, tool.params, params.arguments or {})
        except UsageError as error:
            return _result(f"apm-git: {error}", is_error=True)
        text, failed = await pool.call(tool.name, arguments)
        return _result(text, is_error=failed)

    async def list_resources(_ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None,
                             ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(
            uri=mcp_tools.INDEX_URI, name="INDEX.md", mime_type="text/markdown",
            description="The Dreaming index of the memory (memory/INDEX.md).")])

    async def read_resource(_ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams,
                            ) -> types.ReadResourceResult:
        if str(params.uri) != mcp_tools.INDEX_URI:
            raise MCPError(code=RESOURCE_NOT_FOUND,
                           message=f"no such resource; the one resource is {mcp_tools.INDEX_URI}")
        text, failed = await pool.call("index", {})
        if failed:
            raise MCPError(code=INTERNAL_ERROR, message=text)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=mcp_tools.INDEX_URI, mime_type="text/markdown", text=text)])

    server: Server[Any] = Server(
        "apm-git", version=__version__, instructions=mcp_tools.INSTRUCTIONS, on_list_tools=list_tools,
        on_call_tool=call_tool, on_list_resources=list_resources, on_read_resource=read_resource)
    server.middleware.append(_explain_invalid_params)
    return server


def _result(text: str, *, is_error: bool) -> types.CallToolResult:
    import mcp_types as types

    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)


async def _explain_invalid_params(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
    """The SDK answers params that fail its models with "Invalid request parameters" and nothing else;
    this says which field and why, in one line, without the value."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS
    from pydantic import ValidationError

    try:
        return await call_next(ctx)
    except ValidationError as error:
        problems = [f"{'.'.join(str(part) for part in item['loc']) or 'params'}: {item['msg']}"
                    for item in error.errors()[:3]]
        raise MCPError(code=INVALID_PARAMS, message=f"invalid params for {ctx.method[:60]}: {'; '.join(problems)}",
                       ) from None


def serve(root: Path, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Serve the memory at `root` on stdin and stdout until the client goes away."""
    import anyio

    anyio.run(_serve, root, timeout)


async def _serve(root: Path, timeout: float) -> None:
    import os
    import sys

    from apm_git.agents.mcp_wire import stdio_wire

    wire_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print reaches stderr, never the wire
    pool = WorkerPool(root, timeout)
    pool.start()
    server = build(pool)
    try:
        async with stdio_wire(stdout=wire_out) as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        pool.close()
