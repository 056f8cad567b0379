"""The worker process of `apm-git mcp`: it runs the tools' bodies, one call at a time.

The server (apm_git/agents/mcp_pool.py) starts it as `python -m apm_git.agents.mcp_worker ROOT SERVER_PID`,
writes one JSON request a line to its stdin and reads one JSON reply a line from its stdout.  The work
runs here, not in the server, so that a call which passes its time limit can be stopped by ending this
process: a thread cannot be stopped, and a scan that runs on in the server keeps burning CPU after the
client is gone.  Ending it mid-call is safe: the writer lock is flock(2), which the kernel drops, and
a commit it interrupted is finished by the next call (docs/crash-safety.md).

A worker never outlives its server: on Linux the kernel sends it SIGTERM when the server dies
(PR_SET_PDEATHSIG, delivered even while a regular expression holds the GIL), and a thread watches the
parent's pid everywhere.  No MCP SDK here: a worker starts in a few tenths of a second.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any, BinaryIO

EXIT_ORPHANED = 3
MAX_ERROR_CHARS = 1_000  # an error names the problem; it never carries a value back whole


def main(argv: list[str] | None = None) -> int:
    root, parent = _arguments(sys.argv[1:] if argv is None else argv)
    _end_with(parent)
    requests, replies = _private_streams()
    _warm()
    replies.write(b"ready\n")
    replies.flush()
    for line in requests:
        try:
            request = json.loads(line)
            reply = answer(root, str(request["tool"]), dict(request["arguments"]))
        except (ValueError, KeyError, TypeError):
            reply = {"text": "apm-git: the MCP worker got a request it cannot read", "error": True}
        replies.write(json.dumps(reply).encode("ascii") + b"\n")
        replies.flush()
    return 0


def answer(root: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One call's reply: {"text": the tool's answer or apm-git's one-line error, "error": bool}."""
    from apm_git.agents import mcp_tools
    from apm_git.errors import ApmGitError, describe_os_error
    from apm_git.store import writer
    from apm_git.store.repo import open_repo

    repo = None
    try:
        repo = open_repo(root)
        writer.finish_pending(repo, wait=False)  # a commit an ended call left half-landed, as the CLI does
        body = mcp_tools.read_index if tool == "index" else mcp_tools.BY_NAME[tool].body
        return {"text": body(repo, **arguments), "error": False}
    except ApmGitError as error:
        message = str(error)
    except OSError as error:
        message = describe_os_error(error)
    except Exception as error:  # a bug: the traceback goes to the server's stderr, the client gets one line
        traceback.print_exc()
        message = f"{tool} failed unexpectedly ({type(error).__name__}); the traceback is on the server's stderr"
    finally:
        for note in repo.take_notes() if repo is not None else []:
            print(f"apm-git: {note}", file=sys.stderr)
    return {"text": one_line(f"apm-git: {message}"), "error": True}


def one_line(text: str) -> str:
    joined = "; ".join(part.strip() for part in text.splitlines() if part.strip())
    return joined if len(joined) <= MAX_ERROR_CHARS else joined[:MAX_ERROR_CHARS - 1] + "…"


def _arguments(argv: list[str]) -> tuple[Path, int]:
    if len(argv) != 2 or not argv[1].isdigit():
        raise SystemExit("apm-git: the MCP worker is started by `apm-git mcp`, with ROOT and SERVER_PID")
    return Path(argv[0]), int(argv[1])


def _end_with(parent: int) -> None:
    """End this process when its server is gone (see the module's docstring)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        with contextlib.suppress(OSError, AttributeError):  # no C library to ask: the thread below watches
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the server died before the watch began
        os._exit(EXIT_ORPHANED)
    threading.Thread(target=_watch, args=(parent,), name="apm-git parent watch", daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(EXIT_ORPHANED)


def _private_streams() -> tuple[BinaryIO, BinaryIO]:
    """The request and reply pipes on descriptors of their own; fd 0 then reads nothing and fd 1 writes to
    stderr, so a git child that reads stdin or a stray print can never take a request or tear a reply."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return requests, replies


def _warm() -> None:
    """Import what the tools use before the first request, while the client is still starting."""
    import apm_git.commands.flush
    import apm_git.commands.journal
    import apm_git.commands.load
    import apm_git.commands.search
    import apm_git.present.load_format
    import apm_git.present.shapes
    import apm_git.store.writer  # noqa: F401


if __name__ == "__main__":
    sys.exit(main())
