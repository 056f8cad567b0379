"""apm-git's commit messages: `memory: <verb> …`, an optional body, and `Apm-*` trailers (docs/design.md 7)."""
from __future__ import annotations

import re

SUBJECT_PREFIX = "memory: "
# The trailers of a consolidation commit that move or mark an entry, and the verb each stands for.
CONSOLIDATION = {
    "Apm-Promote": "promote", "Apm-Archive": "archive", "Apm-Move": "move",
    "Apm-Supersede": "supersede", "Apm-Proven": "proven", "Apm-Import": "import",
}
# A deliberate deletion: `Apm-Forget: <entry id> <file> — <reason>`, one per entry (`apm-git forget`).
FORGET = "Apm-Forget"
_TRAILER = re.compile(r"(Apm-[A-Za-z-]+): (.*)")


def message(subject: str, trailers: list[tuple[str, str]], body: str | None = None) -> str:
    parts = [SUBJECT_PREFIX + subject.strip()]
    if body and body.strip():
        parts.append(body.strip())
    lines = [f"{key}: {_one_line(value)}" for key, value in trailers]
    if lines:
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _one_line(value: str) -> str:
    return " ".join(value.split())


def parse(text: str) -> list[tuple[str, str]]:
    """The `Apm-*` trailers of a commit message, in order."""
    paragraphs = text.strip().split("\n\n")
    if len(paragraphs) < 2:
        return []
    found = []
    for line in paragraphs[-1].splitlines():
        match = _TRAILER.fullmatch(line.strip())
        if match:
            found.append((match[1], match[2]))
    return found
