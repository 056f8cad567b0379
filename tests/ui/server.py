"""`apm-git ui` run as a real process on a free port, and plain HTTP requests to it (http.client)."""
from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode, urlsplit


class Served:
    def __init__(self, url: str, proc: subprocess.Popen[str]) -> None:
        self.url = url
        self.proc = proc
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "", parts.port or 0
        self.token = parts.query.removeprefix("t=")

    def request(self, method: str, path: str, *, token: bool = True, form: dict[str, str | list[str]] | None = None,
                headers: dict[str, str] | None = None, params: dict[str, str] | None = None,
                ) -> tuple[int, dict[str, str], str]:
        query = urlencode({**({"t": self.token} if token else {}), **(params or {})})
        body = None
        sent = {"Host": f"{self.host}:{self.port}", **(headers or {})}
        if form is not None:
            body = urlencode(form, doseq=True)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            connection.putrequest(method, f"{path}?{query}" if query else path, skip_host=True)
            for name, value in sent.items():
                connection.putheader(name, value)
            data = body.encode() if body is not None else b""
            if body is not None:
                connection.putheader("Content-Length", str(len(data)))
            connection.endheaders(data if body is not None else None)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
        finally:
            connection.close()


@contextmanager
def serve(root: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """Start `apm-git ui` on the repository, wait for the URL it prints, stop it (by its pid) afterwards."""
    proc = subprocess.Popen(
        (sys.executable, "-m", "apm_git", "--repo", str(root), "ui", *args), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline and "http://" not in line:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                raise AssertionError(f"apm-git ui exited: {proc.stderr.read() if proc.stderr else ''}")
        url = line.split()[-1]
        yield Served(url, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
