"""The sections of a memory file, as the search index sees them.

A section is a heading and the lines up to the next heading of any level (code fences
hide headings).  A Dreaming record (`## [YYYY-MM-DD] Title`) is a section that carries its
entry id; any other heading (`## 2026-03-04 — Title`, `## Light Sleep`, `### Notes`) is a
free-form section; text before the first heading is a section named after the file (or the
`name:`/`title:` of a Claude Code front matter).  A section longer than `MAX_LINES` is cut
into pieces at blank lines, so one huge journal day does not become one huge hit.  Each section carries the
nearest date above it: its own heading's, an enclosing heading's, or the file name's.
"""
from __future__ import annotations

import dataclasses
import re

from apm_git.model import text_dates as dates
from apm_git.model.entry_id import entry_id

MAX_LINES = 60
HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*)")  # the title loses its closing `#`s and a `\r` after (linear)
_RECORD = re.compile(r"\[(\d{4}-\d{2}-\d{2})\]\s*(?:\[PROVEN\]\s*)?(.*)")
FENCE = re.compile(r" {0,3}(```|~~~)")
_FRONT_KEY = re.compile(r"(name|title|description)\s*:\s*(.*)")


@dataclasses.dataclass(frozen=True)
class Section:
    line: int  # 1-based line of its first line
    end: int  # its last line
    heading: str  # the heading's text, or the file's name for text before the first heading
    trail: str  # the headings it sits under, outermost first, joined by " › "
    entry_id: str | None  # a Dreaming record's id
    text: str
    date: str | None = None  # the nearest date above it (YYYY-MM-DD): its heading's, an enclosing one's, the file's


def place_of(path: str) -> str:
    """The words of a file's path, matched with the headings above a section."""
    return path.replace("/", " ").replace("-", " ").replace("_", " ").removesuffix(".md")


def split(text: str, name: str) -> list[Section]:
    """The non-blank sections of `text` (a memory file named `name`), in order."""
    lines = text.removeprefix("\ufeff").split("\n")
    title = name.rsplit("/", 1)[-1].removesuffix(".md")
    if lines and lines[0].strip() == "---":
        for number in range(1, min(len(lines), 60)):
            if lines[number].strip() == "---":
                for line in lines[1:number]:
                    match = _FRONT_KEY.fullmatch(line.strip())
                    if match and match[1] in ("name", "title") and match[2].strip():
                        title = match[2].strip().strip("\"'")
                break
    found: list[Section] = []
    file_date = dates.find(name.rsplit("/", 1)[-1])
    stack: list[tuple[int, str]] = []  # (level, heading) of the enclosing headings
    start, heading, record_id, level = 0, title, None, 0
    fence: str | None = None
    for number, line in enumerate(lines):
        fenced = FENCE.match(line)
        if fenced:
            fence = None if fence == fenced[1] else fence or fenced[1]
            continue
        if fence is not None or not line.startswith(("#", " ")):
            continue
        match = HEADING.fullmatch(line)
        if match is None:
            continue
        _emit(found, lines, start, number, heading, stack, level, record_id, file_date)
        level = len(match[1])
        while stack and stack[-1][0] >= level:
            stack.pop()
        heading = title_of(match)
        record = _RECORD.fullmatch(heading) if level == 2 else None
        record_id = entry_id(record[1], record[2].strip()) if record else None
        start = number
        stack.append((level, heading))
    _emit(found, lines, start, len(lines), heading, stack, level, record_id, file_date)
    return found


def title_of(match: re.Match[str]) -> str:
    """A heading line's title, from its `HEADING` match: without its closing `#`s and a `\\r` after."""
    return match[2].removesuffix("\r").rstrip(" \t#").strip()


def _emit(found: list[Section], lines: list[str], start: int, stop: int, heading: str,
          stack: list[tuple[int, str]], level: int, record_id: str | None, file_date: str | None) -> None:
    """Add the section of `lines[start:stop]` (cut in pieces when long), unless it is blank."""
    while stop > start and not lines[stop - 1].strip():
        stop -= 1
    if stop <= start or not any(line.strip() for line in lines[start:stop]):
        return
    outer = [text for lvl, text in stack if lvl < level] if level else []
    trail = " › ".join(outer)
    date = next((found_date for found_date in map(dates.find, [heading, *reversed(outer)]) if found_date), file_date)
    piece = start
    while piece < stop:
        end = min(stop, piece + MAX_LINES)
        if end < stop:  # end the piece at its last blank line, when there is one in its second half
            blank = next((n for n in range(end - 1, piece + MAX_LINES // 2, -1) if not lines[n].strip()), None)
            end = blank + 1 if blank is not None else end
        chunk = "\n".join(lines[piece:end]).rstrip()
        if chunk.strip():
            found.append(Section(piece + 1, end, heading, trail, record_id if piece == start else None, chunk, date))
        piece = end
