"""apm-record-format: records break the record format of docs/design.md 2.1, or an entry id is not unique.

Only records, and sections that try to be records or session notes, are checked: an
ordinary heading of free-form memory is never a finding (docs/sections.md).  Each kind
of memory file has its validator (VALIDATORS); the checks common to every record file
(entry ids unique across the live memory and the archive) run on top.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Final

from apm_git.checks.check import Check
from apm_git.model.config import KINDS
from apm_git.model.names import MAIN
from apm_git.model.records import Problem, Record, RecordFile
from apm_git.model.routing import routing_problems
from apm_git.model.snapshot import (
    ARCHIVE,
    CATEGORY,
    EXPERIENCE,
    GROUP_INDEX,
    JOURNAL,
    MAIN_INDEX,
    RECORD_KINDS,
    Finding,
    Snapshot,
)

ID: Final = "apm-record-format"
SESSION_KINDS = ("Decision", "Discovery", "Pending", "Context")
_SESSION_HEADING = re.compile(r"## (?P<hour>\d{1,2}):(?P<minute>\d{2})\s*[—–-]+\s*Session Notes\s*", re.IGNORECASE)
_SESSION_ITEM = re.compile(r"- \*\*(?P<kind>[^*]+?):\*\*(?P<text>.*)")

# A validator takes a file's parse (shared with the other checks) and returns the problems
# of that file, each with its line.
FileValidator = Callable[[RecordFile], Iterable[Problem]]


def record_problems(parsed: RecordFile) -> Iterator[Problem]:
    """Category, experience and archive files: the problems of their records (other sections are prose)."""
    yield from parsed.problems()


def journal_problems(parsed: RecordFile) -> Iterator[Problem]:
    """Journals: records whose first tag is their kind, and Light Sleep session notes (`## HH:MM — Session Notes`)."""
    yield from parsed.problems()
    for block in parsed.blocks:
        if isinstance(block, Record):
            if block.ok and block.kind not in KINDS:
                yield Problem(
                    block.line_no + 1,
                    f"the first tag of a journal record is its kind, one of {', '.join(KINDS)} (got {block.kind!r})",
                )
            continue
        yield from _session_note_problems(block.heading, block.line_no, block.lines[1:])


def _session_note_problems(heading: str, line_no: int, lines: list[str]) -> Iterator[Problem]:
    match = _SESSION_HEADING.fullmatch(heading)
    if not match:
        return  # an ordinary section of the journal
    if int(match["hour"]) > 23 or int(match["minute"]) > 59:
        yield Problem(line_no, f"{match['hour']}:{match['minute']} is not a time of day (HH:MM)")
    for offset, line in enumerate(lines, start=1):
        item = _SESSION_ITEM.match(line.strip())
        if item is None:
            continue
        if item["kind"] not in SESSION_KINDS:
            yield Problem(line_no + offset,
                          f"session-note item **{item['kind']}:** is not one of {', '.join(SESSION_KINDS)}")
        elif not item["text"].strip():
            yield Problem(line_no + offset, f"session-note item **{item['kind']}:** is empty")


def routing_table_problems(snap: Snapshot, path: str) -> list[Problem]:
    """An entry index (`groups/<g>.md`, `main/index.md`): its routing table, whose every active
    row must name a file of the index's own folder on the new side."""
    rel = snap.rel(path) or ""
    folder = f"{snap.config.memory_dir}/{rel.removesuffix('.md') if snap.kind(path) == GROUP_INDEX else MAIN}/"
    existing = {name[len(folder):] for name in snap.files if name.startswith(folder)}
    return routing_problems(snap.new[path], existing)


# Per kind of file, the validator that knows its shape.  The entry indexes' routing tables
# need the folder's files as well, so `routing_table_problems` takes the snapshot.
VALIDATORS: dict[str, FileValidator] = {
    CATEGORY: record_problems,
    EXPERIENCE: record_problems,
    ARCHIVE: record_problems,
    JOURNAL: journal_problems,
}


def validate(snap: Snapshot) -> Iterator[Finding]:
    fresh: dict[str, list[tuple[str, int]]] = {}  # id -> where this change puts it
    for path in snap.targets:
        if path in snap.unreadable:
            line, why = snap.unreadable[path]
            yield Finding(path, line, ID, why)
            continue
        kind = snap.kind(path)
        if kind in (GROUP_INDEX, MAIN_INDEX) and path in snap.new:
            for problem in routing_table_problems(snap, path):
                yield Finding(path, problem.line, ID, problem.message)
            continue
        validator = VALIDATORS.get(kind or "")
        if validator is None or path not in snap.new:
            continue
        parsed = snap.parsed(path)
        for problem in validator(parsed):
            yield Finding(path, problem.line, ID, problem.message)
        if kind in RECORD_KINDS:
            before = set(snap.base_entries(path)) if snap.at_base(path) else set()
            for record in parsed.records:
                if record.date and record.title and record.id not in before:
                    fresh.setdefault(record.id, []).append((path, record.line_no))
    yield from _not_unique(snap, fresh)


def _not_unique(snap: Snapshot, fresh: dict[str, list[tuple[str, int]]]) -> Iterator[Finding]:
    if not fresh:
        return
    found = snap.entries.places(fresh)
    for entry, spots in fresh.items():
        places = [place for place in found[entry] if not place.named and snap.kind(place.path) in RECORD_KINDS]
        for path, line in spots:
            others = [place for place in places if (place.path, place.line) != (path, line)]
            if others:
                where = ", ".join(f"{place.path}:{place.line}" for place in others[:3])
                yield Finding(
                    path, line, ID,
                    f"entry id {entry} is not unique (also at {where}); ids are unique across the live memory "
                    "and the archive: change the title or date, or fold the two into one entry",
                )


CHECK = Check(
    ID, "a record breaks the record format, or an entry id is not unique",
    applies_to="file", severity=70, validate=validate,
)
