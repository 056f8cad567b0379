"""Archived entries: whole records in `archive/YYYY-MM.md` (month of archiving), with `Archived:`."""
from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from apm_git.dreaming.edit import append_texts
from apm_git.model.fitness import Fitness
from apm_git.model.records import Record, newline_of, strip_eol


def archived(
    record: Record, fitness: Fitness, today: dt.date, points: int, source: str, superseded_by: str | None = None,
) -> str:
    """The record as the archive keeps it: every line, plus `Superseded-by` and `Archived`, then a blank line.

    Built from the lines directly (no reparse): REM may archive thousands at once.
    """
    stamp = (
        f"{today.isoformat()} (fitness score: {points}, "
        f"last_referenced: {fitness.last_referenced.isoformat()}, from {source})"
    )
    fields = [("Superseded-by", superseded_by)] if superseded_by else []
    fields.append(("Archived", stamp))
    lines = [strip_eol(line) for line in record.lines]
    while lines and not lines[-1].strip():
        lines.pop()
    at = record.fields[-1].offset + 1 if record.fields else 1
    for name, value in fields:
        existing = next((field for field in record.fields if field.name == name), None)
        if existing is not None:
            lines[existing.offset] = f"- {name}: {value}"
        else:
            lines.insert(at, f"- {name}: {value}")
            at += 1
    return "\n".join(lines) + "\n\n"


def archive_preamble(month_file: str) -> str:
    month = month_file.rsplit("/", 1)[-1].removesuffix(".md")
    return f"# Archive {month}\n\nEntries archived by REM and deep sleep, whole, with the reason in `Archived:`.\n\n"


def add_to_archive(current: str | None, month_file: str, records: Iterable[str]) -> str:
    """The month's archive with the archived records (texts from `archived`) at its end."""
    text = current if current is not None else archive_preamble(month_file)
    newline = newline_of(text)
    return append_texts(text, [chunk.replace("\n", newline) if newline != "\n" else chunk for chunk in records],
                        newline)
