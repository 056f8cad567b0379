"""`apm-git ui`: the local page, served by uvicorn on 127.0.0.1 (a free port unless --port), behind a token.

What keeps it the user's alone (docs/ui.md):
- a random token (32 bytes, URL-safe) in the URL it prints: every request without it is refused (403),
  compared in constant time; a write is a POST whose form holds the token too;
- the Host header must name this address and port, and an Origin, when a browser sends one, must be
  this page's own: a DNS-rebinding page (evil.example resolving to 127.0.0.1) is refused (421 / 403);
- GET, HEAD and POST only; no script runs on the page (Content-Security-Policy), it is never framed,
  and no Referer leaves for another site (the token is in the URL);
- no request path reaches the filesystem unchecked: a file is shown only when the memory's own listing
  holds the path asked for, an entry id must be an entry id, a proposal must be one of the open
  proposals, and the stylesheet is one fixed name;
- `--read-only`: every POST is refused, and the page shows no form.
"""
from __future__ import annotations

import hmac
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK = "127.0.0.1"
METHODS = frozenset({"GET", "HEAD", "POST"})
SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; "
     b"base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # the token never leaves in a Referer; a form still names its Origin
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_matches(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), token.encode())


class Guard:
    """The ASGI middleware that refuses what is not the user's own request, before any view runs."""

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.hosts = {f"{LOOPBACK}:{port}".encode(), f"localhost:{port}".encode()}
        self.origins = {b"http://" + host for host in self.hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.lower(): value for name, value in scope.get("headers", [])}
        refusal = self.refusal(scope, headers)
        if refusal is not None:
            status, text = refusal
            await _plain(send, status, text)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)

    def refusal(self, scope: Scope, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        if headers.get(b"host") not in self.hosts:
            return 421, "apm-git ui answers only to the address it printed (127.0.0.1 and its port)"
        if scope.get("method") not in METHODS:
            return 405, "apm-git ui takes GET and POST only"
        origin = headers.get(b"origin")
        if origin is not None and origin not in self.origins:
            return 403, "a request from another site is refused"
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if not token_matches((query.get("t") or [None])[0], self.token):
            return 403, "the token is missing or wrong: open the URL that `apm-git ui` printed"
        return None


async def _plain(send: Send, status: int, text: str) -> None:
    body = f"apm-git: {text}\n".encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (port 0: a free one, chosen by the system)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((LOOPBACK, port))
    sock.listen(64)
    return sock


def serve(repo_path: Path, *, port: int = 0, read_only: bool = False, token: str | None = None,
          ready: Callable[[str], None] | None = None) -> None:
    """Serve the page until interrupted; `ready` gets the URL (with the token) once the socket listens."""
    import uvicorn

    from apm_git.ui.app import make_app

    sock = bind(port)
    chosen = sock.getsockname()[1]
    token = token or new_token()
    app = make_app(repo_path, token, read_only=read_only)
    config = uvicorn.Config(Guard(app, token, chosen), log_level="warning", access_log=False, lifespan="off",
                            server_header=False, date_header=False)
    server = uvicorn.Server(config)
    if ready is not None:
        ready(f"http://{LOOPBACK}:{chosen}/?t={token}")
    threading.Thread(target=_warm, args=(app,), daemon=True).start()
    server.run(sockets=[sock])


def _warm(app: Any) -> None:
    """Read the history for the charts at once, so their first view does not wait for it."""
    warm = getattr(app.state, "warm", None)
    if warm is not None:
        warm()
