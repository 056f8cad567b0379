"""Where a memory file may be cut: between records, or between lines in a file without records."""
from __future__ import annotations

from apm_git.model.records import parse


def record_units(text: str) -> list[str] | None:
    """[preamble, record, …] whose concatenation is `text` (the preamble may be ""), or None
    for a file without records.  A plain `## ` section after a record is a unit of its own."""
    parsed = parse(text)
    if not parsed.records:
        return None
    return [parsed.bom + parsed.preamble.text, *(block.text for block in parsed.blocks)]

