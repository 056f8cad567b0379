"""The names that follow from a date: a daily journal `YYYY-MM-DD.md`, a month's archive `archive/YYYY-MM.md`."""
from __future__ import annotations

import datetime as dt
import re

from apm_git.model.names import ARCHIVE

JOURNAL_NAME = re.compile(r"\d{4}-\d{2}-\d{2}\.md")


def journal_name(day: dt.date) -> str:
    return f"{day.isoformat()}.md"


def journal_date(rel: str) -> dt.date | None:
    if not JOURNAL_NAME.fullmatch(rel):
        return None
    try:
        return dt.date.fromisoformat(rel[:10])
    except ValueError:
        return None


def archive_file(day: dt.date) -> str:
    return f"{ARCHIVE}/{day.year:04d}-{day.month:02d}.md"
