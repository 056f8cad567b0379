"""A project's identity, the same on every machine: what matches one tracked memory on a laptop
(`~/.claude/projects/-home-me-shop/memory`) with the same project's on a server
(`~/.claude/projects/-srv-work-shop/memory`), whose paths and slugs differ (docs/tracking.md, "Every machine").

The identity is the project's git remote URL without its scheme, user, password, port and `.git`
(`git@github.com:me/shop.git` and `https://me@github.com/me/shop` are both `github.com/me/shop`), or a
name the user gives.  A remote branch holds each identity's history: `apm-git/<agent>/<identity>`.
"""
from __future__ import annotations

import re

BRANCH_PREFIX = "apm-git"
_SCP = re.compile(r"(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>[^/\s].*)")  # user@host:path (not C:\)
_URL = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*)://(?:[^@/]*@)?(?P<host>[^/:]*)(?::\d*)?(?P<path>/.*)?",
                  re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_REF_UNSAFE = re.compile(r"[^A-Za-z0-9._/-]")


def from_remote(url: str) -> str | None:
    """The identity a remote URL names; None when it names nothing to go by (empty, a bare word)."""
    url = url.strip()
    match = _URL.fullmatch(url)
    if match:
        host = match["host"].lower() if match["scheme"].lower() != "file" else ""
        path = match["path"] or ""
    elif (scp := _SCP.fullmatch(url)) and "/" not in scp["host"]:
        host, path = scp["host"].lower(), scp["path"]
    elif url.startswith(("/", "./", "../", "~")):
        host, path = "", url
    else:
        return None
    path = path.strip("/")
    path = path.removesuffix(".git").rstrip("/")
    parts = [part for part in path.split("/") if part not in ("", ".", "..", "~")]
    if not parts:
        return None
    if not host:  # a path on a shared disk: its last two folders say which project it is
        parts = parts[-2:]
    return "/".join([*([host] if host else []), *parts])


def name_problem(name: str) -> str | None:
    """Why `name` cannot be an identity the user gives, or None."""
    if not _NAME.fullmatch(name):
        return (f"{name!r} cannot name a project: use 1-64 letters, digits, '.', '_' or '-', starting with a letter "
                "or digit")
    return None


def branch(agent: str, identity: str) -> str:
    """The remote branch that holds the tracked memory of `agent` for `identity` (a valid ref name)."""
    safe = _REF_UNSAFE.sub("-", identity)
    parts = [part.strip(".").removesuffix(".lock") or "-" for part in safe.split("/") if part]
    return "/".join([BRANCH_PREFIX, agent, *parts]).replace("..", "-")
