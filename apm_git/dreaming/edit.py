"""Text edits that consolidation makes: take blocks or lines out of a file, add records at its end.

Everything not edited stays byte for byte, line ends included.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from apm_git.model.records import Block, Record, RecordFile, eol_of, ready_to_append, split_lines, strip_eol


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


def keep_end(before: str, after: str) -> str:
    """`after` ending as `before` did: the same blank lines after its last line of text.

    Taking a journal's last section out leaves the blank line that separated it from the one
    before; without this the journal would end with one newline more than it was written with,
    and carry it into the archive when it moves there.
    """
    body, _ = _split_end(after)
    if not body:
        return after
    return body + _split_end(before)[1]


def _split_end(text: str) -> tuple[str, str]:
    """(text up to the end of its last non-blank line's content, the line end and blank lines after it)."""
    lines = split_lines(text)
    last = len(lines) - 1
    while last >= 0 and not strip_eol(lines[last]).strip():
        last -= 1
    if last < 0:
        return "", text
    return "".join(lines[:last]) + strip_eol(lines[last]), eol_of(lines[last]) + "".join(lines[last + 1:])


def without_lines(block: Block, offsets: Iterable[int]) -> Block | None:
    """A session-note block with some item lines taken out; None when only its heading is left."""
    drop = set(offsets)
    lines = [line for number, line in enumerate(block.lines) if number not in drop]
    if all(not strip_eol(line).strip() for line in lines[1:]):
        return None
    return Block(lines, block.line_no)



class LinesAfterEdit:
    """The line count of `append_records(rewrite(parsed, removed), added, newline)` as blocks leave the
    file and records are taken back from its end, kept up to date in constant time a step: fitting a
    file to its budget one entry at a time must not rebuild and recount the whole text every time."""

    def __init__(self, parsed: RecordFile, added: list[Record], newline: str) -> None:
        self.parsed = parsed
        self.newline = newline
        self.lines = sum(block.text.count("\n") for block in [parsed.preamble, *parsed.blocks])
        self.added = [record_text(record, newline).count("\n") for record in added]
        self.adding = sum(self.added)
        self.joining = len(added)
        self.removed: set[int] = set()
        self.last = len(parsed.blocks) - 1  # the last block still in the file, -1 when none is

    def remove(self, index: int) -> None:
        """Block `index` of the file leaves it."""
        self.removed.add(index)
        self.lines -= self.parsed.blocks[index].text.count("\n")
        while self.last in self.removed:
            self.last -= 1

    def take_back(self, index: int) -> None:
        """Added record `index` no longer joins the file."""
        self.adding -= self.added[index]
        self.joining -= 1

    @property
    def count(self) -> int:
        """Lines as `count_lines` counts them: only the file's end decides how the records join it."""
        parsed = self.parsed
        end = parsed.blocks[self.last].text if self.last >= 0 else parsed.bom + parsed.preamble.text
        if not self.joining:
            return self.lines + (1 if end and not end.endswith("\n") else 0)
        return self.lines + ready_to_append(end, self.newline).count("\n") - end.count("\n") + self.adding
