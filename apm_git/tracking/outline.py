"""The sections and facts of a free-form Markdown memory file (docs/tracking.md, "What diff names").

A section is a heading of any level and the lines up to the next heading (headings inside a code
fence do not count); the text before the first heading is the file's top section, with the heading
"".  A fact is what an agent writes as one piece of memory: a list item (with the lines that continue
it; a nested item is a fact of its own), a table row, a paragraph, a fenced block, a line of a
front matter.  Blank lines only separate them.  Pure: text in, parts out.
"""
from __future__ import annotations

import itertools
import re
from typing import NamedTuple

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+.*|[ \t]*)")
_FENCE = re.compile(r" {0,3}(```+|~~~+)")
_ITEM = re.compile(r"(?P<indent>\s*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_TABLE_RULE = re.compile(r"\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*")
_SPACES = re.compile(r"\s+")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?")


class Fact(NamedTuple):
    line: int  # 1-based, in the file
    end: int  # its last line
    text: str  # as written, its lines joined by "\n" (line ends dropped)

    @property
    def key(self) -> str:
        """What two facts share when they say the same: the text without list markers, white space collapsed."""
        return key_of(self.text)


class OutlinePart(NamedTuple):
    heading: str  # the heading line as written, stripped ("## Decisions"); "" for the top of the file
    level: int  # 1-6; 0 for the top of the file
    trail: tuple[str, ...]  # the headings it sits under, outermost first
    line: int  # 1-based line of its heading (1 for the top)
    text: str  # every line of it, heading included, line ends kept
    facts: tuple[Fact, ...]


def key_of(text: str) -> str:
    return _SPACES.sub(" ", " ".join(_MARKER.sub("", line) for line in text.split("\n"))).strip()


def outline(text: str) -> list[OutlinePart]:
    """The parts of `text` in file order; the top part only when it holds anything but blank lines."""
    lines = text.removeprefix("\ufeff").splitlines(keepends=True)
    starts: list[tuple[int, int]] = []  # (line index, level) of each heading
    fence: str | None = None
    for index, line in enumerate(lines):
        bare = line.rstrip("\r\n")
        fenced = _FENCE.match(bare)
        if fenced:
            mark = fenced[1][0] * 3
            fence = None if fence == mark else fence or mark
            continue
        if fence is None and (match := _HEADING.fullmatch(bare)):
            starts.append((index, len(match[1])))
    parts: list[OutlinePart] = []
    bounds = [(0, 0), *starts, (len(lines), 0)]
    stack: list[tuple[int, str]] = []
    for (start, level), (stop, _) in itertools.pairwise(bounds):
        if level == 0 and start == 0 and starts and starts[0][0] == 0:
            continue  # the file begins with a heading: no top part
        heading = lines[start].strip() if level else ""
        while stack and stack[-1][0] >= level > 0:
            stack.pop()
        trail = tuple(text for _, text in stack)
        body_from = start + 1 if level else 0
        facts = tuple(_facts(lines, body_from, stop, front=level == 0))
        chunk = "".join(lines[start:stop])
        if level or chunk.strip():
            parts.append(OutlinePart(heading, level, trail, start + 1, chunk, facts))
        if level:
            stack.append((level, heading))
    return parts


def _facts(lines: list[str], start: int, stop: int, *, front: bool) -> list[Fact]:
    found: list[Fact] = []
    index = start
    if front and index < stop and lines[index].strip() == "---":  # a front matter: each line a fact
        close = next((n for n in range(index + 1, min(stop, index + 200)) if lines[n].strip() in ("---", "...")), None)
        if close is not None:
            found += [Fact(n + 1, n + 1, lines[n].rstrip("\r\n")) for n in range(index + 1, close)
                      if lines[n].strip()]
            index = close + 1
    while index < stop:
        bare = lines[index].rstrip("\r\n")
        if not bare.strip():
            index += 1
            continue
        end = _fact_end(lines, index, stop)
        if _TABLE_RULE.fullmatch(bare):  # a table's |---|---| row says nothing
            index = end
            continue
        found.append(Fact(index + 1, end, "\n".join(line.rstrip("\r\n") for line in lines[index:end])))
        index = end
    return found


def _fact_end(lines: list[str], index: int, stop: int) -> int:
    """The index after the last line of the fact that starts at `index`."""
    first = lines[index].rstrip("\r\n")
    fenced = _FENCE.match(first)
    if fenced:
        mark = fenced[1][0] * 3
        for end in range(index + 1, stop):
            if lines[end].lstrip().startswith(mark):
                return end + 1
        return stop
    if first.lstrip().startswith("|"):
        return index + 1  # a table row
    item = _ITEM.match(first)
    end = index + 1
    while end < stop:
        line = lines[end].rstrip("\r\n")
        if not line.strip() or _FENCE.match(line) or line.lstrip().startswith("|") or _ITEM.match(line):
            break
        if item is not None and len(line) - len(line.lstrip()) <= len(item["indent"]) and not _lazy(line):
            break
        end += 1
    return end


def _lazy(line: str) -> bool:
    """A line that continues the item above it without an indent (Markdown's lazy continuation)."""
    return not line.startswith(("#", ">", "<", "---", "***"))
