"""The MCP server's workers: each tool call runs in a worker process, under a wall-clock limit.

A call takes an idle worker (apm_git/agents/mcp_worker.py) or starts one, up to `SIZE` at once, so a
slow flush does not hold up a search.  When the call's work passes its limit (`apm-git mcp --timeout`,
default 60 s), or the client goes away while it runs, the worker is ended with its process group (the
git it started included) and the call answers with one line: nothing keeps burning CPU for an answer
nobody will read.  A worker that ends on its own (a crash, an out-of-memory kill) costs only its call.

The limit counts the work, from the moment a ready worker has the request: starting a worker (Python
and apm-git's imports, a second or more on a busy machine) has a bound of its own, `START_LIMIT`, and
happens ahead of calls where it can (one worker at start, a spare in place of one that was stopped).
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import anyio
import anyio.to_thread

DEFAULT_TIMEOUT = 60.0  # seconds; a flush of a large memory takes a few
START_LIMIT = 60.0  # seconds for a worker to start (Python and apm-git's imports), apart from the call's limit
READY = b"ready"  # the worker's first line
SIZE = 4  # calls at once
KEEP_IDLE = 2


class Worker:
    def __init__(self, root: Path) -> None:
        # Started from the event loop's thread, which lives as long as the server: Linux ties
        # PR_SET_PDEATHSIG to the thread that started the child.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "apm_git.agents.mcp_worker", str(root), str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True,
        )
        self.ready = False

    def wait_ready(self) -> bool | None:
        """Whether the worker started (it says so once its imports are done); None when it ended first."""
        if not self.ready:
            try:
                line = self._pipes()[1].readline()
            except (OSError, ValueError):
                return None
            self.ready = line.strip() == READY
        return self.ready if self.ready else None

    def ask(self, request: bytes) -> dict[str, Any] | None:
        """The reply to one request, or None when the worker ended first (blocking: run in a thread)."""
        stdin, stdout = self._pipes()
        try:
            stdin.write(request)
            stdin.flush()
            line = stdout.readline()
            return dict(json.loads(line)) if line else None
        except (OSError, ValueError):
            return None

    def stop(self) -> None:
        """End the worker and every process it started (its own process group)."""
        if self.process.poll() is None:  # not reaped yet, so the pid is still this worker's
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):  # a process in D state may take a moment
            self.process.wait(timeout=2)

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        assert self.process.stdin is not None and self.process.stdout is not None
        return self.process.stdin, self.process.stdout


class WorkerPool:
    def __init__(self, root: Path, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.root = root
        self.timeout = timeout
        self._idle: list[Worker] = []
        self._busy: set[Worker] = set()
        self._slots: anyio.Semaphore | None = None

    def start(self) -> None:
        """One worker ready before the first call, so it does not wait for Python to start."""
        self._idle.append(Worker(self.root))

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """(text, is_error) of one call: the tool's answer, or apm-git's one-line error."""
        request = (json.dumps({"tool": tool, "arguments": arguments}) + "\n").encode("ascii")
        if self._slots is None:
            self._slots = anyio.Semaphore(SIZE)
        async with self._slots:
            worker = self._idle_worker() or Worker(self.root)
            self._busy.add(worker)
            try:
                return await self._run(worker, tool, request)
            except BaseException:  # the client is gone: end the worker, which ends the thread that waits for it
                worker.stop()
                raise
            finally:
                self._busy.discard(worker)

    async def _run(self, worker: Worker, tool: str, request: bytes) -> tuple[str, bool]:
        ready: bool | None = False
        with anyio.move_on_after(START_LIMIT):
            ready = await anyio.to_thread.run_sync(worker.wait_ready, abandon_on_cancel=True)
        if not worker.ready:
            worker.stop()
            return f"apm-git: the MCP worker for {tool} did not start{'' if ready is None else ' in time'}", True
        reply = None
        with anyio.move_on_after(self.timeout):
            reply = await anyio.to_thread.run_sync(worker.ask, request, abandon_on_cancel=True)
            if reply is None:
                worker.stop()
                return f"apm-git: the worker running {tool} ended unexpectedly (exit {worker.process.returncode})", True
        if reply is None:  # past the time limit
            worker.stop()
            self._spare()
            return (f"apm-git: {tool} did not finish within {self.timeout:g} s and was stopped; a commit it had "
                    "begun is finished by the next call (give more time with `apm-git mcp --timeout SECONDS`)"), True
        if len(self._idle) < KEEP_IDLE:
            self._idle.append(worker)
        else:
            worker.stop()  # idle, so nothing is cut short
        return str(reply["text"]), bool(reply["error"])

    def _spare(self) -> None:
        """A worker starting at once in place of one that was stopped, so the next call need not wait for it."""
        if not self._idle:
            self._idle.append(Worker(self.root))

    def _idle_worker(self) -> Worker | None:
        while self._idle:
            worker = self._idle.pop()
            if worker.process.poll() is None:
                return worker
            worker.stop()  # ended while idle (killed from outside): reap it, start another
        return None

    def close(self) -> None:
        """End every worker: the idle ones have nothing to finish, a busy one's call is cancelled."""
        for worker in [*self._busy, *self._idle]:
            worker.stop()
        self._busy.clear()
        self._idle.clear()
