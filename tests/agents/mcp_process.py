"""A real `apm-git mcp` process spoken to in raw JSON-RPC lines, for what the SDK's client never sends."""
from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw-test", "version": "1"}}}
LIVENESS = 60.0  # seconds: a bound on waiting for a process, never a measured expectation


class RawServer:
    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    @property
    def pid(self) -> int:
        return self.process.pid

    def _stdin(self) -> IO[bytes]:
        assert self.process.stdin is not None
        return self.process.stdin

    def send(self, message: dict[str, Any] | str) -> None:
        line = message if isinstance(message, str) else json.dumps(message)
        self._stdin().write(line.encode("utf-8", "surrogatepass") + b"\n")
        self._stdin().flush()

    def reply(self, within: float = LIVENESS) -> dict[str, Any] | list[Any] | None:
        """The next line the server writes, parsed; None when none came within `within` seconds."""
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], within)
        if not ready:
            return None
        line = self.process.stdout.readline()
        return json.loads(line) if line else None

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        answer = self.reply()
        assert isinstance(answer, dict), f"no reply to {message}"
        return answer

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.ask({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                         "params": {"name": tool, "arguments": arguments}})

    def workers(self) -> list[int]:
        return children(self.pid)

    def close_stdin(self) -> None:
        self._stdin().close()


def start(repo_root: Path, *args: str, env: dict[str, str] | None = None, initialize: bool = True) -> RawServer:
    process = subprocess.Popen(
        (sys.executable, "-m", "apm_git", "mcp", "--repo", str(repo_root), *args),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})},
    )
    server = RawServer(process)
    if initialize:
        assert "result" in server.ask(INITIALIZE)
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return server


@contextlib.contextmanager
def serving(repo_root: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[RawServer]:
    server = start(repo_root, *args, env=env)
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.process.kill()
        server.process.wait()


def children(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[1] == pid and stat[0] != "Z":
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def wait_gone(pid: int, within: float = LIVENESS) -> bool:
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, or None when there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])
