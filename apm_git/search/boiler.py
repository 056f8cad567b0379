"""The sections `init` and auto-initialization write, as long as nobody wrote into them: not memory, so not
indexed.  A section is boilerplate when its text is a template's section with the template's values filled in
(`# Attention: $group` matches any group's title); once a user or an agent adds a line, it is memory.

The templates' own sections are read once per process and only when a file is indexed (never on the warm path).
"""
from __future__ import annotations

import functools
import re

from apm_git.model import text_sections as sections
from apm_git.store import templates

FOLDERS = ("init/memory", "main", "group")
_PLACEHOLDER = re.compile(r"\\\$\w+")


@functools.cache
def _shapes() -> tuple[dict[str, str], tuple[tuple[str, re.Pattern[str]], ...]]:
    """(text -> "" for templates without placeholders, (first-line prefix, pattern) for those with them)."""
    names = [f"{folder}/{name}" for folder in FOLDERS for name in templates.tree(folder) if name.endswith(".md")]
    plain: dict[str, str] = {}
    shaped: list[tuple[str, re.Pattern[str]]] = []
    for name in [*names, "journal.md"]:
        text = (templates.template_dir() / name).read_text(encoding="utf-8")
        for section in sections.split(text, name):
            normal = _normal(section.text)
            if "$" not in normal:
                plain[normal] = ""
                continue
            prefix = normal.split("\n", 1)[0].split("$", 1)[0]
            shaped.append((prefix, re.compile(_PLACEHOLDER.sub(".+?", re.escape(normal)))))
    return plain, tuple(shaped)


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def untouched(section: sections.Section) -> bool:
    """Whether the section is a template's, as `init` wrote it."""
    if len(section.text) > 2000 or not section.text.startswith("#"):
        return False
    plain, shaped = _shapes()
    normal = _normal(section.text)
    if normal in plain:
        return True
    return any(normal.startswith(prefix) and pattern.fullmatch(normal) for prefix, pattern in shaped)
