"""The passages of a section: what search ranks and recall returns, each with its section's heading path and date.

A passage is a unit a reader takes in at once: a list item with its continuation lines (a dialog turn, a
bullet), a paragraph, a table row, a fenced block; at most `MAX_LINES` lines, a longer unit cut in pieces.
A Dreaming record is one passage from its heading on (its fields belong together), up to `RECORD_LINES`.
A section with a heading and nothing under it is one passage: its heading line.

What is matched as a passage's content leaves out what is not memory: the `- Fitness:` and `- Archived:`
lines of a record (counters and dates: `decision_value=HIGH` is not a decision), and the field labels
(`Body:`, `Source:`).  Tags are labels, matched with the file's path and the headings above (the place).
"""
from __future__ import annotations

import dataclasses
import re

from apm_git.model.text_sections import FENCE, HEADING, Section, title_of

MAX_LINES = 8
RECORD_LINES = 24
_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,3}[.)])[ \t]")
_TABLE_RULE = re.compile(r"\s*\|?\s*:?-{3,}")
_FIELD = re.compile(r"\s*[-*]\s+(Tags|Fitness|Body|Source|Supersedes|Superseded-by|Merged|Conflicts|Archived)"
                    r"\s*:\s?(.*)")
_HIDDEN_FIELDS = ("Fitness", "Archived")


@dataclasses.dataclass(frozen=True)
class Passage:
    line: int  # 1-based, in the file
    last: int
    text: str  # the lines as written
    content: str  # what is matched as its body
    labels: str  # tags: matched with the place


def split(section: Section) -> list[Passage]:
    """The passages of `section`, in order."""
    lines = section.text.split("\n")
    first = 0
    if section.line and lines and _heads(lines[0], section.heading):
        first = 1
    if first == len(lines) or not any(line.strip() for line in lines[first:]):
        return [Passage(section.line, section.line, lines[0], "", "")]
    if section.entry_id and first and len(lines) <= RECORD_LINES + 1:  # the common record: one passage
        content, labels = matchable(lines[1:])
        return [Passage(section.line, section.line + len(lines) - 1, section.text, content, labels)]
    spans = _record_spans(lines, first) if section.entry_id else []
    start = spans[-1][1] if spans else first
    found = [_passage(section, lines, begin, end) for begin, end in [*spans, *_units(lines, start)]]
    if spans and first:  # a record's passage begins at its heading, which is matched as the heading
        found[0] = dataclasses.replace(found[0], line=section.line, text=f"{lines[0]}\n{found[0].text}")
    return found


def _heads(line: str, heading: str) -> bool:
    match = HEADING.fullmatch(line)
    return match is not None and title_of(match) == heading


def _record_spans(lines: list[str], first: int) -> list[tuple[int, int]]:
    """A record's body, one passage, up to RECORD_LINES (what follows is cut in units)."""
    end = min(len(lines), first + RECORD_LINES)
    while end > first and not lines[end - 1].strip():
        end -= 1
    return [(first, end)] if end > first else []


def _units(lines: list[str], start: int) -> list[tuple[int, int]]:
    """Index spans [begin, end) of the units of lines[start:]."""
    spans: list[tuple[int, int]] = []
    begin: int | None = None
    fence: str | None = None

    def close(end: int) -> None:
        nonlocal begin
        if begin is not None and end > begin:
            spans.extend((piece, min(end, piece + MAX_LINES)) for piece in range(begin, end, MAX_LINES))
        begin = None

    for number in range(start, len(lines)):
        line = lines[number]
        fenced = FENCE.match(line)
        if fence is not None:
            if fenced and fenced[1] == fence:
                fence = None
                close(number + 1)
            continue
        if fenced:
            close(number)
            fence, begin = fenced[1], number
            continue
        if not line.strip():
            close(number)
            continue
        table = line.lstrip().startswith("|")
        if table and _TABLE_RULE.match(line):  # the rule under a table's header row belongs to no passage
            close(number)
            continue
        if begin is None or _ITEM.match(line) or table:
            close(number)
            begin = number
    close(len(lines))
    return spans


def _passage(section: Section, lines: list[str], begin: int, end: int) -> Passage:
    text = "\n".join(lines[begin:end]).rstrip()
    content, labels = matchable(lines[begin:end])
    last = begin + len(text.split("\n")) - 1
    return Passage(section.line + begin, section.line + last, text, content, labels)


def matchable(lines: list[str]) -> tuple[str, str]:
    """(content, labels) of a passage's lines: what is matched as its body, and its tags."""
    content: list[str] = []
    labels: list[str] = []
    for line in lines:
        field = _FIELD.match(line)
        if field is None:
            content.append(line)
        elif field[1] == "Tags":
            labels.append(field[2])
        elif field[1] not in _HIDDEN_FIELDS:
            content.append(field[2])
    return "\n".join(content), " ".join(labels)
