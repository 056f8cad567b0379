"""Archived entries: whole records in `archive/YYYY-MM.md` (month of archiving), with `Archived:`."""
from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from apm_git.dreaming.edit import append_records
from apm_git.model.records import Record, parse, set_field


def archived(record: Record, today: dt.date, points: int, source: str, superseded_by: str | None = None) -> Record:
    """The record as the archive keeps it: every line, plus `Superseded-by` and `Archived`."""
    fitness = record.fitness
    assert fitness is not None
    if superseded_by:
        record = set_field(record, "Superseded-by", superseded_by)
    stamp = (
        f"{today.isoformat()} (fitness score: {points}, "
        f"last_referenced: {fitness.last_referenced.isoformat()}, from {source})"
    )
    return set_field(record, "Archived", stamp)


def archive_preamble(month_file: str) -> str:
    month = month_file.rsplit("/", 1)[-1].removesuffix(".md")
    return f"# Archive {month}\n\nEntries archived by REM and deep sleep, whole, with the reason in `Archived:`.\n\n"


def add_to_archive(current: str | None, month_file: str, records: Iterable[Record]) -> str:
    text = current if current is not None else archive_preamble(month_file)
    return append_records(text, records, parse(text).newline)
