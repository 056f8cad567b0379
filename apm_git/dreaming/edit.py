"""Text edits that consolidation makes: take blocks or lines out of a file, add records at its end.

Everything not edited stays byte for byte, line ends included.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from apm_git.model.records import Block, Record, RecordFile, ready_to_append, strip_eol


def record_text(record: Record, newline: str = "\n") -> str:
    """A record as it is appended elsewhere: its lines in `newline`, then one blank line."""
    lines = [strip_eol(line) for line in record.lines]
    while lines and not lines[-1].strip():
        lines.pop()
    return newline.join(lines) + newline + newline


def append_records(text: str, records: Iterable[Record], newline: str) -> str:
    """`text` with `records` at its end, each separated from what comes before by a blank line."""
    return append_texts(text, [record_text(record, newline) for record in records], newline)


def append_texts(text: str, chunks: list[str], newline: str) -> str:
    """`text` with `chunks` (records as `record_text` renders them) at its end, after a blank line."""
    if not chunks:
        return text
    return ready_to_append(text, newline) + "".join(chunks)


def rewrite(parsed: RecordFile, replace: Mapping[int, Block | None]) -> str:
    """The file with blocks replaced (by index) or, where the value is None, removed."""
    parts = [parsed.bom, parsed.preamble.text]
    for index, block in enumerate(parsed.blocks):
        new = replace.get(index, block) if index in replace else block
        if new is not None:
            parts.append(new.text)
    return "".join(parts)


def without_lines(block: Block, offsets: Iterable[int]) -> Block | None:
    """A session-note block with some item lines taken out; None when only its heading is left."""
    drop = set(offsets)
    lines = [line for number, line in enumerate(block.lines) if number not in drop]
    if all(not strip_eol(line).strip() for line in lines[1:]):
        return None
    return Block(lines, block.line_no)

