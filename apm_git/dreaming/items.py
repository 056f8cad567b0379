"""Journal items: what deep sleep reads from a daily journal, in both forms of DESIGN 2.1.

A journal holds records (`## [YYYY-MM-DD] Title` with fields) and Light Sleep session
notes (`## 14:30 — Session Notes` followed by `- **Decision:** what — why` lines).  Each
well-formed record is one item; so is each labelled line of a session note, turned into
the record it would become: the date of the journal's file name, the kind of its label,
the title of its first clause (as `journal add` makes titles), the whole line as Body,
and its indented continuation lines as the longer body.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import re

from apm_git.model.entry_id import entry_id
from apm_git.model.fitness import Fitness
from apm_git.model.records import Block, Record, RecordFile, render_record, reparse, split_lines, strip_eol
from apm_git.model.titles import default_title, normalize_title

NOTE_HEADING = re.compile(r"## (?P<time>\d{1,2}:\d{2})\s*[—–-]+\s*Session Notes\s*", re.IGNORECASE)
NOTE_ITEM = re.compile(r"- \*\*(?P<label>[A-Za-z]+)(?::\*\*|\*\*:)\s*(?P<text>.*)")
LABELS = {
    "decision": "decision",
    "discovery": "lesson",
    "context": "context",
    "pending": "pending",
    # Not in the seed's list, but an agent writing the other kinds this way means them.
    "lesson": "lesson",
    "person": "person",
    "tool": "tool",
    "anchor": "anchor",
}
NOTE_VALUE = "MEDIUM"


@dataclasses.dataclass(frozen=True)
class Place:
    """Where an item sits in its journal: a block, and for a note item the lines inside it."""

    block: int
    lines: tuple[int, ...] = ()  # () is the whole block


@dataclasses.dataclass(frozen=True)
class JournalItem:
    journal: str  # memory-relative journal name
    day: dt.date  # from the journal's file name
    form: str  # "record" or "note"
    record: Record  # the record as it stands (a note item rendered as the record it becomes)
    place: Place

    @property
    def entry_id(self) -> str:
        return self.record.id

    @property
    def kind(self) -> str:
        return self.record.kind

    @property
    def title(self) -> str:
        return self.record.title

    @property
    def fitness(self) -> Fitness:
        fitness = self.record.fitness
        assert fitness is not None  # items are well-formed records
        return fitness

    @property
    def content_key(self) -> tuple[str, str, tuple[str, ...]]:
        """Equal for two copies of one item: same title, body and longer body (fitness aside)."""
        return (
            normalize_title(self.title),
            " ".join(self.record.body.split()),
            tuple(line.strip() for line in self.record.extra_lines),
        )


def collect_items(journal: str, day: dt.date, parsed: RecordFile) -> list[JournalItem]:
    """Every item of a journal, in file order; copies (same id) included."""
    items: list[JournalItem] = []
    for index, block in enumerate(parsed.blocks):
        if isinstance(block, Record):
            if block.ok:
                items.append(JournalItem(journal, day, "record", block, Place(index)))
        elif NOTE_HEADING.fullmatch(block.heading):
            items += _note_items(journal, day, index, block)
    return items


def _note_items(journal: str, day: dt.date, index: int, block: Block) -> list[JournalItem]:
    items = []
    lines = [strip_eol(line) for line in block.lines]
    offset = 1
    while offset < len(lines):
        match = NOTE_ITEM.fullmatch(lines[offset].strip())
        if not match or match["label"].lower() not in LABELS or not match["text"].strip():
            offset += 1
            continue
        end = offset + 1
        while end < len(lines) and lines[end].strip() and lines[end][:1].isspace():
            end += 1
        text = " ".join(match["text"].split())
        record = note_record(day, LABELS[match["label"].lower()], text, lines[offset + 1:end])
        items.append(JournalItem(journal, day, "note", record, Place(index, tuple(range(offset, end)))))
        offset = end
    return items


def note_record(day: dt.date, kind: str, text: str, extra: list[str]) -> Record:
    title = default_title(text).lstrip("[") or text[:60]
    rendered = render_record(day, title, [kind], Fitness(day, 0, NOTE_VALUE), text, extra_lines=extra)
    record = reparse(split_lines(rendered))
    assert record.id == entry_id(day.isoformat(), title)
    return record
