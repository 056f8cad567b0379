"""The Dreaming mount's L2 domains: which category files an intent calls for.

Each domain names the record kinds whose category files it mounts (through the `routing`
setting, so renamed category files follow).  The intent's domain is the one with the
most keyword hits (matched as in routing tables: case-insensitive, stemmed); ties go to
the domain listed first.  No hit: no L2 file.
"""
from __future__ import annotations

import dataclasses

from apm_git.model.routing import keyword_hits


@dataclasses.dataclass(frozen=True)
class Domain:
    name: str
    kinds: tuple[str, ...]  # record kinds, mapped to files by the `routing` setting
    keywords: tuple[str, ...]


DOMAINS: tuple[Domain, ...] = (
    Domain("code", ("decision", "context"), (
        "code", "coding", "implement", "write", "refactor", "feature", "function", "class", "module",
        "api", "endpoint", "architecture", "design", "schema", "database", "migration", "stack", "library",
        "review", "pull request", "pr", "build", "develop",
    )),
    Domain("debugging", ("lesson",), (
        "debug", "bug", "error", "fix", "crash", "fail", "broken", "exception", "traceback", "stack trace",
        "regression", "leak", "timeout", "flaky", "slow", "incident", "root cause", "workaround", "issue",
    )),
    Domain("user-facing", ("person",), (
        "user", "customer", "client", "people", "person", "who", "team", "prefer", "reply",
        "email", "message", "meeting", "stakeholder", "manager", "role", "contact", "communicate",
    )),
    Domain("env/setup", ("tool",), (
        "setup", "set up", "install", "env", "environment", "config", "proxy", "docker",
        "kubectl", "ci", "cli", "command", "shell", "path", "ssh", "vpn", "tool", "credentials",
    )),
)


@dataclasses.dataclass(frozen=True)
class DomainChoice:
    domain: Domain
    hits: tuple[str, ...]


def domain_of(intent: str | None) -> DomainChoice | None:
    if not intent:
        return None
    best: DomainChoice | None = None
    for domain in DOMAINS:
        hits = tuple(keyword_hits(domain.keywords, intent))
        if hits and (best is None or len(hits) > len(best.hits)):
            best = DomainChoice(domain, hits)
    return best
