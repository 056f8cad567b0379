"""Remotes for the sync tests and benchmarks: a bare repository by path, or served by a real
`git daemon` on the loopback interface (started and stopped by the caller)."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path


def git(root: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(("git", *args), cwd=root, capture_output=True, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
    return proc.stdout.decode("utf-8", "replace")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """`git daemon` serving every repository under `base` (push enabled) on 127.0.0.1; yields the
    URL prefix (`git://127.0.0.1:PORT/`)."""
    port = free_port()
    proc = subprocess.Popen(
        ("git", "daemon", "--export-all", f"--base-path={base}", "--listen=127.0.0.1", f"--port={port}",
         "--enable=receive-pack", "--reuseaddr", "--informative-errors", str(base)),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"git daemon did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
            time.sleep(0.02)
        yield f"git://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


def bare_remote(base: Path, name: str = "remote.git") -> Path:
    remote = base / name
    git(base, "init", "-q", "--bare", "-b", "main", str(remote))
    return remote


def first_clone(path: Path, url: str) -> Path:
    """A memory repository made by `apm-git init` (the tests' copy of one, `initialized`), with `origin` =
    `url` and no upstream yet."""
    from tests.conftest import initialized  # not at the top: the benchmarks import this module outside pytest

    initialized(path)
    git(path, "remote", "add", "origin", url)
    return path


def clone(path: Path, url: str) -> Path:
    git(path.parent, "clone", "-q", url, str(path))
    return path


def set_identity(path: Path, name: str) -> None:
    git(path, "config", "user.name", name)
    git(path, "config", "user.email", f"{name}@example.invalid")


def env_now(stamp: str) -> dict[str, str]:
    return {**os.environ, "APM_GIT_NOW": stamp}
