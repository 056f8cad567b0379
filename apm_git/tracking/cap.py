"""The loading cap: Claude Code loads only the head of `MEMORY.md` at session start (the first 200 lines,
and no more than 25,000 bytes), and says nothing of the rest.  Which sections that leaves out is told
here, as a pure function of the file's text (docs/tracking.md, "The loading cap").
"""
from __future__ import annotations

from typing import NamedTuple

from apm_git.tracking.outline import outline

DEFAULT_LINES = 200
DEFAULT_BYTES = 25_000
SHOWN = 8  # sections (or items) named in one line; the rest are counted


class Limits(NamedTuple):
    lines: int = DEFAULT_LINES
    bytes: int = DEFAULT_BYTES


class Cut(NamedTuple):
    """A section the cap leaves out: its heading (or its first item, where the file has no heading there),
    the line it starts on, and whether its head still loads."""

    heading: str
    line: int
    partly: bool


class CapReport(NamedTuple):
    file: str
    lines: int
    bytes: int
    limits: Limits
    loaded_lines: int  # the lines the agent sees whole
    cut: tuple[Cut, ...]  # what it does not see, in file order

    @property
    def over(self) -> bool:
        return self.loaded_lines < self.lines

    def summary(self) -> str:
        """One line: how far over, and what does not load."""
        sizes = f"{self.lines} lines, {self.bytes:,} bytes"
        limit = f"loads the first {self.limits.lines} lines or {self.limits.bytes:,} bytes"
        if not self.over:
            return f"{self.file}: {sizes}; the agent {limit}: all of it loads"
        names = [f"{'part of ' if cut.partly else ''}{cut.heading!r} (line {cut.line})" for cut in self.cut[:SHOWN]]
        more = len(self.cut) - SHOWN
        left = ", ".join(names) + (f" and {more} more" if more > 0 else "")
        return (f"{self.file} is over the loading cap ({sizes}; the agent {limit}): lines "
                f"{self.loaded_lines + 1}-{self.lines} do not load at session start: {left}")


def measure(file: str, text: str, limits: Limits) -> CapReport:
    """What of `text` loads under `limits`; the line cut and the byte cut, whichever comes first."""
    data = text.encode("utf-8")
    lines = text.split("\n")
    total = len(lines) - (1 if text.endswith("\n") else 0) if text else 0
    loaded, used = 0, 0
    for line in lines[:min(total, limits.lines)]:
        size = len(line.encode("utf-8")) + 1
        if used + size > limits.bytes:
            break
        used += size
        loaded += 1
    if loaded >= total:
        return CapReport(file, total, len(data), limits, total, ())
    cut: list[Cut] = []
    parts = outline(text)
    for part in parts:
        end = part.line + part.text.count("\n") - (1 if part.text.endswith("\n") else 0)
        if end <= loaded:
            continue
        partly = part.line <= loaded
        if part.heading:
            cut.append(Cut(part.heading, part.line, partly))
        else:  # the text before the first heading: name its items that do not load
            cut += [Cut(fact.text.split("\n", 1)[0].strip(), fact.line, fact.line <= loaded)
                    for fact in part.facts if fact.end > loaded]
    return CapReport(file, total, len(data), limits, loaded, tuple(cut))
