"""The stdio wire of `apm-git mcp`: one JSON-RPC message a line each way, every request with an id answered.

Why not the SDK's `mcp.server.stdio.stdio_server`: it validates each line against the JSON-RPC models
and hands a line that fails to the dispatcher as an exception, which the dispatcher
(`mcp.shared.jsonrpc_dispatcher.JSONRPCDispatcher._dispatch`) logs at debug level and drops.  So a
request whose `params` is an array, whose `method` is not a string, or whose `jsonrpc` is not "2.0"
got no reply at all, and the client waited for ever.  This wire checks each line first: what the SDK
accepts is passed on unchanged; a request it would drop is answered here with the JSON-RPC error its
id expects (id null when there is none to echo, as JSON-RPC 2.0 says); an invalid notification or
response is ignored with a line on stderr, since nothing waits for it.

It also ends the session when the client goes away: stdin closed, or the process that started the
server gone (the parent pid changes) while stdin stays open because another process holds it.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
MAX_LINE = 16 * 1024 * 1024  # bytes of one message; the tools' own bounds are far below
PARENT_POLL = 1.0  # seconds between two looks at the parent pid
DRAIN_SECONDS = 5.0  # at the end, how long the last replies may take to reach a client that reads slowly
_HEAD_ID = re.compile(rb'\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")\s*[,}]')

Outgoing = SessionMessage | str  # a message of the SDK's, or a reply this wire wrote itself


def error_reply(request_id: Any, code: int, message: str) -> str:
    """A JSON-RPC error response; an id that JSON-RPC does not allow (an object, a boolean) becomes null."""
    usable = request_id if isinstance(request_id, str | int | float) and not isinstance(request_id, bool) else None
    if isinstance(usable, float) and not math.isfinite(usable):
        usable = None
    return json.dumps({"jsonrpc": "2.0", "id": usable, "error": {"code": code, "message": message}})


def read_line(line: bytes) -> SessionMessage | str | None:
    """What one line of stdin is: a message for the server, a reply to write at once, or nothing to do."""
    if not line.strip():
        return None
    try:
        valid = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:  # as in the SDK's stdio transport: then say what is wrong, below
        valid = None
    # The SDK's models read a request whose id is not a string or an integer as a notification, which
    # expects no reply: only the "id" key tells them apart.
    if valid is not None and not isinstance(valid, types.JSONRPCNotification):
        return SessionMessage(valid)
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return error_reply(None, PARSE_ERROR, "not JSON: send one JSON-RPC message per line, in UTF-8")
    if valid is not None and not (isinstance(message, dict) and "id" in message):
        return SessionMessage(valid)
    if isinstance(message, list):
        return _batch(message)
    if not isinstance(message, dict):
        return error_reply(None, INVALID_REQUEST, "a JSON-RPC message is a JSON object")
    return _refusal(message)


def _batch(items: list[Any]) -> str | None:
    """JSON-RPC batches were dropped from MCP (2025-06-18): each request in one is refused, in one array."""
    if not items:
        return error_reply(None, INVALID_REQUEST, "an empty batch")
    replies = [json.loads(error_reply(item.get("id"), INVALID_REQUEST,
                                      "MCP does not take JSON-RPC batches; send one message per line"))
               for item in items if isinstance(item, dict) and "id" in item and "method" in item]
    return json.dumps(replies) if replies else None


def _refusal(message: dict[str, Any]) -> str | None:
    """The error reply to an invalid message, or None for one that expects no reply."""
    if "method" not in message and ("result" in message or "error" in message):
        _log("ignored a response the server cannot read")
        return None
    if "id" not in message and "method" in message:
        _log(f"ignored an invalid notification{_method_of(message)}")
        return None
    request_id = message.get("id")
    method = message.get("method")
    if message.get("jsonrpc") != "2.0":
        why, code = 'jsonrpc must be "2.0"', INVALID_REQUEST
    elif not isinstance(method, str):
        why, code = "a request needs a method, a string", INVALID_REQUEST
    elif isinstance(request_id, bool) or not isinstance(request_id, str | int):
        why, code = "id must be a string or a whole number", INVALID_REQUEST
    elif message.get("params") is not None and not isinstance(message["params"], dict):
        why, code = f"params of {method[:60]} must be an object (MCP passes parameters by name)", INVALID_PARAMS
    elif not _unicode(message):
        why, code = "a string holds a lone surrogate escape (\\ud800 to \\udfff): not Unicode text", INVALID_PARAMS
    else:
        why, code = "not a valid JSON-RPC request", INVALID_REQUEST
    return error_reply(request_id, code, why)


def _unicode(message: dict[str, Any]) -> bool:
    try:
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _method_of(message: dict[str, Any]) -> str:
    method = message.get("method")
    return f" ({method[:60]})" if isinstance(method, str) else ""


def _oversized(head: bytes) -> str:
    """A line past MAX_LINE is not parsed; its id is read from its start when it is written the usual way."""
    match = _HEAD_ID.match(head)
    request_id = json.loads(match.group(1)) if match else None
    return error_reply(request_id, INVALID_REQUEST, f"a message is at most {MAX_LINE // (1024 * 1024)} MB")


def _log(text: str) -> None:
    print(f"apm-git mcp: {text}", file=sys.stderr, flush=True)


@asynccontextmanager
async def stdio_wire(
    stdin: BinaryIO | None = None, stdout: BinaryIO | None = None,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[Outgoing]]]:
    """(read, write) streams for the SDK's `Server.run`; the read stream ends when the client goes away."""
    incoming, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write, outgoing = anyio.create_memory_object_stream[Outgoing](0)
    replies = write.clone()  # this wire's own replies; the SDK closes `write` when it is done
    source = stdin or sys.stdin.buffer
    token = anyio.lowlevel.current_token()
    reader = threading.Thread(target=_read_stdin, args=(source, incoming, replies, token),
                              name="apm-git mcp stdin", daemon=True)  # daemon: a blocked read never holds up the exit
    written = anyio.Event()
    async with anyio.create_task_group() as group:
        group.start_soon(_write_stdout, outgoing, stdout or sys.stdout.buffer, incoming, written)
        group.start_soon(_watch_parent, incoming)
        reader.start()
        try:
            yield read, write
        finally:
            # The last replies are still on their way to stdout: let them out before ending.
            with anyio.move_on_after(DRAIN_SECONDS, shield=True):
                await write.aclose()
                await replies.aclose()
                await written.wait()
            group.cancel_scope.cancel()


def _read_stdin(source: BinaryIO, incoming: MemoryObjectSendStream[SessionMessage | Exception],
                replies: MemoryObjectSendStream[Outgoing], token: anyio.lowlevel.EventLoopToken) -> None:
    try:
        while True:
            line = source.readline(MAX_LINE + 1)
            if not line:
                break
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while (rest := source.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                    pass
                item: SessionMessage | str | None = _oversized(line[:4096])
            else:
                item = read_line(line)
            if isinstance(item, SessionMessage):
                anyio.from_thread.run(incoming.send, item, token=token)
            elif item is not None:
                anyio.from_thread.run(replies.send, item, token=token)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.RunFinishedError, OSError):
        pass  # the session is over
    finally:
        with contextlib.suppress(anyio.RunFinishedError, RuntimeError):  # the loop has ended already
            anyio.from_thread.run(incoming.aclose, token=token)  # stdin closed: the client is gone


async def _write_stdout(outgoing: MemoryObjectReceiveStream[Outgoing], stdout: BinaryIO,
                        incoming: MemoryObjectSendStream[SessionMessage | Exception], written: anyio.Event) -> None:
    def write(data: bytes) -> None:
        stdout.write(data)
        stdout.flush()

    broken = False
    async for item in outgoing:  # read to the end even when broken, so that no sender waits for ever
        if broken:
            continue
        text = item if isinstance(item, str) else item.message.model_dump_json(by_alias=True, exclude_unset=True)
        try:
            await anyio.to_thread.run_sync(write, text.encode("utf-8") + b"\n", abandon_on_cancel=True)
        except (OSError, ValueError):  # the client closed its end of stdout: it is gone
            _log("stdout is closed; stopping")
            broken = True
            await incoming.aclose()
    written.set()


async def _watch_parent(incoming: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    """End the session when the process that started the server is gone, even with stdin still open."""
    parent = os.getppid()
    if parent == 1:  # started by init or a daemon manager: nobody to watch
        return
    while os.getppid() == parent:
        await anyio.sleep(PARENT_POLL)
    _log("the client process is gone; stopping")
    await incoming.aclose()
