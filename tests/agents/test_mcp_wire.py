"""`apm-git mcp` over raw JSON-RPC on a real server process: every request with an id is answered, and the
server neither outlives its client nor lets a call run past its time limit (issues 22 and 23)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

import pytest
from mcp.shared.message import SessionMessage

from apm_git.agents.mcp_wire import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, read_line
from apm_git.store.lock import file_lock
from apm_git.store.repo import STATE_DIR, MemoryRepo
from tests.agents import mcp_process
from tests.agents.mcp_process import INITIALIZE, alive, serving, wait_gone

# (what is sent, the id the reply must carry, the error code, words of the message)
INVALID = [
    ('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":[1]}', 9, INVALID_PARAMS, "must be an object"),
    ('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"x"}', 10, INVALID_PARAMS, "must be an object"),
    ('{"jsonrpc":"2.0","id":11,"method":"tools/list","params":[1]}', 11, INVALID_PARAMS, "must be an object"),
    ('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{}}', 12, INVALID_PARAMS, "params.name"),
    ('{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":42}}', 13, INVALID_PARAMS, "params.name"),
    ('{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"status","arguments":[1]}}', 14, INVALID_PARAMS,
     "params.arguments"),
    ('{"jsonrpc":"2.0","id":15,"method":"tools/call"}', 15, INVALID_PARAMS, "params"),
    ('{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"nosuch","arguments":{}}}', 16, INVALID_PARAMS,
     "unknown tool"),
    ('{"jsonrpc":"2.0","id":17,"method":"nonsense/method","params":{}}', 17, -32601, "Method not found"),
    ('{"jsonrpc":"2.0","id":18,"method":42}', 18, INVALID_REQUEST, "method"),
    ('{"jsonrpc":"2.0","id":19}', 19, INVALID_REQUEST, "method"),
    ('{"jsonrpc":"1.0","id":20,"method":"tools/list"}', 20, INVALID_REQUEST, "jsonrpc"),
    ('{"id":21,"method":"tools/list"}', 21, INVALID_REQUEST, "jsonrpc"),
    ('{"jsonrpc":"2.0","id":"s-22","method":"resources/read","params":{}}', "s-22", INVALID_PARAMS, "params.uri"),
    ('{"jsonrpc":"2.0","id":23,"method":"resources/read","params":{"uri":"apm-git://nothing"}}', 23, -32002,
     "no such resource"),
    ('{"jsonrpc":"2.0","id":24,"method":"ping","params":[1]}', 24, INVALID_PARAMS, "must be an object"),
    ('{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"load","arguments":{"intent":"\\ud800"}}}', 25,
     INVALID_PARAMS, "lone surrogate"),
    ('{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', 1.5, INVALID_REQUEST, "id must be"),
    ('{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', None, INVALID_REQUEST, "id must be"),
    ('{"jsonrpc":"2.0","id":true,"method":"tools/list"}', None, INVALID_REQUEST, "id must be"),
    ("not json at all", None, PARSE_ERROR, "not JSON"),
    ("[" * 100_000, None, PARSE_ERROR, "not JSON"),
    ("42", None, INVALID_REQUEST, "JSON object"),
    ("{}", None, INVALID_REQUEST, "jsonrpc"),
    ("[]", None, INVALID_REQUEST, "empty batch"),
]


def _error_of(reply: Any, request_id: Any) -> dict[str, Any]:
    assert isinstance(reply, dict), reply
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] == request_id
    assert "result" not in reply
    return dict(reply["error"])


@pytest.mark.parametrize(("line", "request_id", "code", "words"), INVALID, ids=[case[0][:40] for case in INVALID])
def test_each_invalid_message_gets_its_error(line: str, request_id: Any, code: int, words: str) -> None:
    """In process, as the wire reads a line: the reply the SDK's own transport would have dropped, or the
    message it passes on (left to the SDK's server, whose answers the process test below checks)."""
    item = read_line(line.encode("utf-8", "surrogatepass"))
    if isinstance(item, str):
        error = _error_of(json.loads(item), request_id)
        assert error["code"] == code
        assert words in error["message"]
        assert "\n" not in error["message"]
    else:
        assert item is not None and code in (INVALID_PARAMS, -32601, -32002)  # the SDK's server answers these


def test_nothing_is_answered_that_expects_no_answer() -> None:
    assert read_line(b'{"jsonrpc":"2.0","method":"notifications/nonsense","params":[1]}') is None
    assert read_line(b'{"jsonrpc":"2.0","id":3,"result":[1]}') is None  # a response: never answered
    passed_on = read_line(b'{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}')  # a client's own error
    assert isinstance(passed_on, SessionMessage)
    assert read_line(b"   \n") is None
    batch = read_line(b'[{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":7,"method":"ping"}]')
    assert isinstance(batch, str)
    assert [item["id"] for item in json.loads(batch)] == [7]


@pytest.mark.slow
def test_every_request_with_an_id_is_answered_and_the_server_keeps_serving(repo: MemoryRepo) -> None:
    with serving(repo.root) as server:
        for line, request_id, code, words in INVALID:
            server.send(line)
            error = _error_of(server.reply(), request_id)
            assert error["code"] == code, line
            assert words in error["message"], line
        server.send('{"jsonrpc":"2.0","method":"notifications/nonsense","params":[1]}')  # no answer expected
        server.send('[{"jsonrpc":"2.0","id":30,"method":"ping"}]')
        batch = server.reply()
        assert isinstance(batch, list) and batch[0]["id"] == 30 and "batches" in batch[0]["error"]["message"]
        assert server.ask({"jsonrpc": "2.0", "id": 31, "method": "ping"}) == {"jsonrpc": "2.0", "id": 31, "result": {}}
        status = server.call(32, "status", {})
        assert status["result"]["isError"] is False


@pytest.mark.slow
def test_an_oversized_message_is_refused_by_its_id(repo: MemoryRepo) -> None:
    from apm_git.agents.mcp_wire import MAX_LINE

    huge = json.dumps({"jsonrpc": "2.0", "id": 40, "method": "tools/call",
                       "params": {"name": "load", "arguments": {"intent": "x" * MAX_LINE}}})
    with serving(repo.root) as server:
        server.send(huge)
        error = _error_of(server.reply(), 40)
        assert error["code"] == INVALID_REQUEST and "at most 16 MB" in error["message"]
        assert server.ask({"jsonrpc": "2.0", "id": 41, "method": "ping"})["result"] == {}


def _lock(repo: MemoryRepo) -> Any:
    """The repository's writer lock, held by this test: a flush in the server waits for it."""
    return file_lock(repo.git_dir / STATE_DIR / "lock", "the test")


WAIT_FOR_LOCK = {"APM_GIT_LOCK_TIMEOUT": "600"}  # the flush would wait ten minutes: only the time limit ends it


@pytest.mark.slow
def test_a_call_past_its_time_limit_is_stopped_answered_and_loses_nothing(repo: MemoryRepo) -> None:
    with serving(repo.root, "--timeout", "5", env=WAIT_FOR_LOCK) as server:
        added = server.call(1, "journal_add", {"text": "the build cache lives on the NAS", "kind": "context",
                                               "title": "Build cache location"})
        assert added["result"]["isError"] is False
        with _lock(repo):
            workers = server.workers()
            stopped = server.call(2, "flush", {})
            text = stopped["result"]["content"][0]["text"]
            assert stopped["result"]["isError"] is True
            assert text.startswith("apm-git: flush did not finish within 5 s and was stopped")
            assert "\n" not in text
            assert all(wait_gone(pid) for pid in workers)  # nothing left running for an answer nobody reads
        flushed = server.call(3, "flush", {})  # the server kept serving, with a new worker
        assert flushed["result"]["isError"] is False
        assert json.loads(flushed["result"]["content"][0]["text"])["commit"]
    assert "Build cache location" in subprocess.run(
        ("git", "show", "HEAD"), cwd=repo.root, capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
def test_the_server_ends_when_its_client_closes_stdin_mid_call(repo: MemoryRepo) -> None:
    with serving(repo.root, env=WAIT_FOR_LOCK) as server, _lock(repo):
        server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "flush", "arguments": {}}})
        assert server.reply(within=1.0) is None  # the flush waits for the lock this test holds
        workers = server.workers()
        assert workers
        server.close_stdin()
        assert server.process.wait(timeout=mcp_process.LIVENESS) == 0
        assert all(wait_gone(pid) for pid in workers)


@pytest.mark.slow
def test_the_server_ends_when_its_parent_is_gone_though_stdin_stays_open(repo: MemoryRepo) -> None:
    """The client is killed but a process it started still holds the server's stdin open: the server
    notices that its parent changed, and ends with its workers."""
    read_end, write_end = os.pipe()
    starter = ("import subprocess, sys, time\n"
               "server = subprocess.Popen(sys.argv[1:], stdin=0, stdout=1, stderr=subprocess.DEVNULL)\n"
               "print(server.pid, file=sys.stderr, flush=True)\n"
               "time.sleep(600)\n")
    client = subprocess.Popen(
        (sys.executable, "-c", starter, sys.executable, "-m", "apm_git", "mcp", "--repo", str(repo.root)),
        stdin=read_end, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **WAIT_FOR_LOCK})
    os.close(read_end)
    try:
        assert client.stderr is not None and client.stdout is not None
        server_pid = int(client.stderr.readline())
        os.write(write_end, (json.dumps(INITIALIZE) + "\n").encode())
        assert b'"id":0' in client.stdout.readline()
        with _lock(repo):
            os.write(write_end, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flush"}}\n')
            workers = mcp_process.children(server_pid)  # the worker started with the server
            assert workers
            client.send_signal(signal.SIGKILL)
            client.wait()
            assert wait_gone(server_pid)  # while this test still holds the write end of its stdin
            assert all(wait_gone(pid) for pid in workers)
    finally:
        os.close(write_end)
        if alive(client.pid):
            client.kill()
