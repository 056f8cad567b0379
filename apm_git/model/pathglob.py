"""Whole-path glob matching: `*` stays inside one path segment, `**` spans any number."""
from __future__ import annotations

from fnmatch import fnmatchcase


def glob_match(pattern: str, path: str) -> bool:
    return _match(pattern.split("/"), path.split("/"))


def _match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_match(rest, parts[index:]) for index in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], head) and _match(rest, parts[1:])
