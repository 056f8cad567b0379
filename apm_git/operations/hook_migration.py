"""Move a `.pre-commit-config.yaml` from the seven separate apm hooks to `apm-checks`.

Configurations written before `apm-checks` list each check as its own `repo: local` hook, whose entry
starts `apm-git-hook` (the sh script with a findings cache, since removed).  `init` and `setup` replace
those hooks with the one `apm-checks` hook `init` writes now, by editing the lines of those hooks
alone: the person's other hooks, comments and formatting stay byte for byte (docs/hook-entry.md,
"Configurations from before `apm-checks`").  A hook list written in flow style (`hooks: [...]`) has no
lines of its own to edit; it is rewritten through ruamel.yaml's round trip instead.

Hooks of a remote `repo:` (a URL and a `rev:`) are left alone: pre-commit runs them from the pinned
revision's own environment, where the ids still mean what they meant, and the manifest keeps every old
id as an alias, so a `pre-commit autoupdate` keeps them working too.
"""
from __future__ import annotations

from typing import Any

from apm_git.checks.manifest import EVERY, OLD_PROGRAM
from apm_git.model.vocabulary import CHECK_IDS


def old_hooks(repos: Any) -> list[tuple[Any, list[int]]]:
    """(the hooks list, the indexes of its old per-check apm hooks) of each `repo: local` that has some."""
    found = []
    for repo in repos if isinstance(repos, list) else []:
        hooks = repo.get("hooks") if isinstance(repo, dict) and repo.get("repo") == "local" else None
        if not isinstance(hooks, list):
            continue
        old = [index for index, hook in enumerate(hooks) if _is_old(hook)]
        if old:
            found.append((hooks, old))
    return found


def _is_old(hook: Any) -> bool:
    entry = hook.get("entry") if isinstance(hook, dict) else None
    return (isinstance(entry, str) and hook.get("id") in CHECK_IDS
            and any(word.strip("'\"").rsplit("/", 1)[-1] == OLD_PROGRAM for word in entry.split()))


def migrate_lines(text: str, repos: Any, block: list[str]) -> str | None:
    """`text` with each list's old hooks replaced by `block` (the `apm-checks` hook as YAML lines, at
    column 0), in place of the first of them, and no new one where the list has `apm-checks` already.
    None when a hooks list is in flow style, which has no lines of its own to edit."""
    lines = text.splitlines(keepends=True)
    cuts: list[tuple[int, int, list[str]]] = []  # (first line, end line, what replaces them)
    for hooks, old in old_hooks(repos):
        if hooks.fa.flow_style():
            return None
        has_every = any(isinstance(hook, dict) and hook.get("id") == EVERY.id for hook in hooks)
        for number, index in enumerate(old):
            line, column = hooks.lc.item(index)
            start, dash = _dash_line(lines, line, column)
            if start is None:
                return None
            end = _item_end(lines, start, dash)
            new = [" " * dash + row for row in block] if number == 0 and not has_every else []
            cuts.append((start, end, new))
    for start, end, new in sorted(cuts, reverse=True):
        lines[start:end] = new
    return "".join(lines)


def migrate_data(repos: Any, hook: Any) -> None:
    """The round-trip fallback: the old hooks replaced by `hook` in the loaded data itself."""
    for hooks, old in old_hooks(repos):
        has_every = any(isinstance(item, dict) and item.get("id") == EVERY.id for item in hooks)
        first = old[0]
        for index in reversed(old):
            del hooks[index]
        if not has_every:
            hooks.insert(first, hook)


def _dash_line(lines: list[str], line: int, column: int) -> tuple[int | None, int]:
    """The line of the `-` that opens the sequence item whose content starts at (line, column), and its column."""
    for number in range(min(line, len(lines) - 1), -1, -1):
        stripped = lines[number].lstrip(" ")
        dash = len(lines[number]) - len(stripped)
        if stripped.startswith("-") and dash < column:
            return number, dash
    return None, 0


def _item_end(lines: list[str], start: int, dash: int) -> int:
    """The line after the item that opens at `start`: its lines are indented past its dash; blank and
    comment lines at its end belong to what follows."""
    end = start + 1
    last = start + 1
    while end < len(lines):
        row = lines[end]
        stripped = row.strip()
        if stripped and not stripped.startswith("#"):
            if len(row) - len(row.lstrip(" ")) <= dash:
                break
            last = end + 1
        end += 1
    return last
