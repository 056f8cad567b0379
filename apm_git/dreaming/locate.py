"""Find one entry's lines in a file's text, fast: for `history`, over thousands of file versions."""
from __future__ import annotations

import datetime as dt
import re

from apm_git.dreaming.items import collect_items
from apm_git.model.records import has_fence, parse

_DATED_LINE = re.compile(r"^## \d{4}-\d{2}-\d{2}", re.MULTILINE)


def entry_block(text: str, entry_id: str, journal_day: dt.date | None = None) -> str | None:
    """The entry's record (trailing blank lines dropped), or in a journal the session-note item it comes from.

    Records are found at their `## ` lines directly, or by the full parser when a code fence could
    hide one (or hold a line that looks like one).
    """
    marker = f"## [{entry_id[:10]}]"
    if marker in text and has_fence(text):
        for record in parse(text).records:
            if record.date == entry_id[:10] and record.day is not None and record.title and record.id == entry_id:
                return record.text.rstrip()
    elif marker in text:
        lines = text.split("\n")
        for start, line in enumerate(lines):
            if not line.startswith(marker) or header_id(line) != entry_id:
                continue
            end = start + 1
            while end < len(lines) and not lines[end].startswith("## "):
                end += 1
            return "\n".join(lines[start:end]).rstrip()
    if journal_day is not None and _may_hold_items(text):
        parsed = parse(text)
        for item in collect_items("", journal_day, parsed):
            if item.form != "record" and item.entry_id == entry_id:
                block = parsed.blocks[item.place.block]
                if not item.place.lines:
                    return block.text.rstrip()
                return "".join(block.lines[offset] for offset in item.place.lines).rstrip()
    return None


def _may_hold_items(text: str) -> bool:
    """Whether a journal may hold items other than records (session notes, dated sections, Light Sleep)."""
    folded = text.casefold()
    return "session notes" in folded or "## light sleep" in folded or _DATED_LINE.search(text) is not None


def header_id(line: str) -> str | None:
    """The entry id of a `## [YYYY-MM-DD] Title` line."""
    records = parse(line.rstrip("\r\n") + "\n").records
    return records[0].id if records and records[0].day is not None and records[0].title else None

