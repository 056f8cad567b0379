"""Journal items: what deep sleep reads from a daily journal, in both forms of docs/design.md 2.1 and two dialects.

A journal holds records (`## [YYYY-MM-DD] Title` with fields) and Light Sleep session
notes (`## 14:30 — Session Notes` followed by `- **Decision:** what — why` lines).  Each
well-formed record is one item; so is each labelled line of a session note, turned into
the record it would become: the date of the journal's file name, the kind of its label,
the title of its first clause (as `journal add` makes titles), the whole line as Body,
and its indented continuation lines as the longer body.

Two dialects of real journals are read too (docs/sections.md):
- a dated section (`## 2026-04-01 14:25 — Deploy`) is one item: the heading's date and
  title, a kind named by the title's words (else context), its first line as Body, every
  line under the heading verbatim as the longer body, and the heading itself in `Source:`;
- each `- Candidate:` of an OpenClaw `## Light Sleep` block is one item of kind context:
  the candidate's text as Body, its lines (`- Candidate: …` and its indented details)
  verbatim as the longer body, `recalls` as hit_count and `confidence` as the value
  (0.8 and up HIGH, else LOW: deep sleep leaves it).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import re

from apm_git.model.entry_id import entry_id
from apm_git.model.fitness import Fitness
from apm_git.model.records import Block, Record, RecordFile, render_record, reparse, split_lines, strip_eol
from apm_git.model.sections import (
    DATED,
    LIGHT_SLEEP,
    dated_heading,
    first_text,
    kind_of_title,
    light_sleep_candidates,
    section_kind,
)
from apm_git.model.titles import TITLE_CHARS, default_title, normalize_title

NOTE_HEADING = re.compile(r"## (?P<time>\d{1,2}:\d{2})\s*[—–-]+\s*Session Notes\s*", re.IGNORECASE)
# A time and a time zone say when, not what: `## 2026-04-01 14:25 (Asia/Jakarta)` takes its title from its text.
_TIME = r"\d{1,2}:\d{2}(?::\d{2})?(?:\s*(?:[A-Z]{2,5}\b|[A-Z][A-Za-z]+/[A-Za-z_]+))?"
_CLOCK = re.compile(rf"^(?:{_TIME})?\s*(?:\([^)]*\)\s*)?$|^{_TIME}\s*[—–:-]*\s*")  # no two `\s*` side by side
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
CONFIDENT = 0.8  # an OpenClaw Light Sleep candidate this confident is HIGH value; below it, LOW


@dataclasses.dataclass(frozen=True)
class ItemPlace:
    """Where an item sits in its journal: a block, and for a note item the lines inside it."""

    block: int
    lines: tuple[int, ...] = ()  # () is the whole block


@dataclasses.dataclass(frozen=True)
class JournalItem:
    journal: str  # memory-relative journal name
    day: dt.date  # from the journal's file name
    form: str  # "record", "note", "dated" or "light-sleep"
    record: Record  # the record as it stands (a note item rendered as the record it becomes)
    place: ItemPlace

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
                items.append(JournalItem(journal, day, "record", block, ItemPlace(index)))
        elif NOTE_HEADING.fullmatch(block.heading):
            items += _note_items(journal, day, index, block)
        else:
            kind = section_kind(block)
            if kind == DATED:
                item = _dated_item(journal, day, index, block)
                items += [item] if item is not None else []
            elif kind == LIGHT_SLEEP:
                items += _light_sleep_items(journal, day, index, block)
    return items


def _dated_item(journal: str, day: dt.date, index: int, block: Block) -> JournalItem | None:
    record = dated_record(block)
    return JournalItem(journal, day, DATED, record, ItemPlace(index)) if record is not None else None


def dated_record(block: Block, kind: str | None = None, newline: str = "\n") -> Record | None:
    """The record a dated section (`## 2026-04-01 — Title` and its lines) becomes: every line under the
    heading kept verbatim as the longer body, the heading itself in `Source:`; None when nothing is under it.
    `kind`: the kind to give it (default: the one its title names)."""
    dated = dated_heading(block.heading)
    assert dated is not None
    when, title = dated
    body = first_text(block.lines[1:])
    title = _CLOCK.sub("", title).strip() or default_title(body)
    if len(title) > TITLE_CHARS:
        title = title[:TITLE_CHARS].rsplit(" ", 1)[0]
    if not title or not body:
        return None  # a heading with nothing under it: nothing to promote
    extra = [strip_eol(line) for line in block.lines[1:]]
    while extra and not extra[-1].strip():
        extra.pop()
    rendered = render_record(
        when, title, [kind or kind_of_title(title)], Fitness(when, 0, NOTE_VALUE), body,
        extra_fields=[("Source", f'heading "{block.heading}"')], extra_lines=extra, newline=newline,
    )
    return reparse(split_lines(rendered))


def _light_sleep_items(journal: str, day: dt.date, index: int, block: Block) -> list[JournalItem]:
    items = []
    for candidate in light_sleep_candidates(block):
        value = "HIGH" if candidate.confidence >= CONFIDENT else "LOW"
        title = default_title(candidate.text.split("; ")[0].replace(": ", " ")).lstrip("[") or candidate.text[:60]
        extra = [strip_eol(block.lines[offset]) for offset in candidate.offsets]  # every line, verbatim
        rendered = render_record(
            day, title, ["context"], Fitness(day, candidate.recalls, value), candidate.text,
            extra_fields=[("Source", "OpenClaw Light Sleep candidate")], extra_lines=extra,
        )
        items.append(JournalItem(journal, day, LIGHT_SLEEP, reparse(split_lines(rendered)),
                                 ItemPlace(index, candidate.offsets)))
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
        items.append(JournalItem(journal, day, "note", record, ItemPlace(index, tuple(range(offset, end)))))
        offset = end
    return items


def note_record(day: dt.date, kind: str, text: str, extra: list[str]) -> Record:
    title = default_title(text).lstrip("[") or text[:60]
    rendered = render_record(day, title, [kind], Fitness(day, 0, NOTE_VALUE), text, extra_lines=extra)
    record = reparse(split_lines(rendered))
    assert record.id == entry_id(day.isoformat(), title)
    return record
