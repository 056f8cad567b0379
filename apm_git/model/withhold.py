"""Withhold the sections of a memory file that hold a suspected secret, and commit the rest (issue 23).

A section is the preamble (the text before the first `## ` heading) or a `## ` heading with the lines
under it (a record, or free-form memory).  The text flush commits for a file is the work tree's with
each flagged section put back as the base (HEAD) has it, found by its entry id or, for a section
that is no record, by its heading; a section the base lacks is left out.  So nothing the base holds
is lost, the other sections' changes are committed, and the flagged ones stay on disk only.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from typing import NamedTuple

from apm_git.model.records import Block, Record, RecordFile, parse, strip_eol


class ScannedSection(NamedTuple):
    """Where a flagged line sits: its section's first line and heading (empty for the preamble)."""

    line: int  # the flagged line, 1-based
    start: int  # the section's first line
    heading: str  # the section's heading line without `## ` and line end; "" for the preamble
    heading_flagged: bool  # the heading itself holds the suspect: it must not be shown


class WithheldSection(NamedTuple):
    """A section flush leaves uncommitted for a suspected secret: never the secret itself."""

    path: str
    line: int  # the line that holds the suspect
    heading: str | None  # the section's heading ("" for the text before the first one); None when it holds the suspect
    kinds: list[str]  # e.g. ["AWS Access Key"]
    whole: bool = False  # its file is left out whole: a new file with nothing else in it


def _blocks(parsed: RecordFile) -> list[Block]:
    return [parsed.preamble, *parsed.blocks]


def _containing(blocks: list[Block], line: int) -> int:
    """Index of the block that holds `line` (blocks in file order, the preamble first)."""
    found = 0
    for index, block in enumerate(blocks):
        if block.lines and block.line_no <= line:
            found = index
    return found


def sections_of(text: str, lines: Iterable[int]) -> list[ScannedSection]:
    """The section of each flagged line, in line order."""
    blocks = _blocks(parse(text))
    found = []
    for line in sorted(set(lines)):
        block = blocks[_containing(blocks, line)]
        heading = strip_eol(block.lines[0]).removeprefix("## ").strip() if block is not blocks[0] else ""
        found.append(ScannedSection(line, block.line_no, heading, block is not blocks[0] and line == block.line_no))
    return found


def _key(block: Block) -> tuple[str, str]:
    if isinstance(block, Record) and block.date and block.title:
        return "id", block.id
    return "heading", block.heading


def withhold(current: str, base: str | None, lines: Collection[int]) -> str:
    """`current` with each section that holds one of `lines` as `base` has it, or left out when `base`
    has no such section.  `base` None: a new file (every flagged section is left out)."""
    parsed = parse(current)
    blocks = _blocks(parsed)
    flagged = {_containing(blocks, line) for line in lines}
    if not flagged:
        return current
    old = parse(base) if base is not None else None
    # A base section that `current` still holds unflagged is taken; only the others may stand in for a
    # flagged one (two sections may share a heading: the copy kept must not be committed twice).
    kept = Counter(block.text for index, block in enumerate(blocks) if index and index not in flagged)
    spare: dict[tuple[str, str], list[Block]] = {}
    for block in old.blocks if old is not None else []:
        if kept[block.text] > 0:
            kept[block.text] -= 1
        else:
            spare.setdefault(_key(block), []).append(block)
    parts = [parsed.bom]
    for index, block in enumerate(blocks):
        if index not in flagged:
            parts.append(block.text)
        elif index == 0:
            parts.append(old.preamble.text if old is not None else "")
        elif spare.get(_key(block)):
            parts.append(spare[_key(block)].pop(0).text)
    text = "".join(parts)
    if base is not None and text != base and text.rstrip("\r\n") == base.rstrip("\r\n"):
        return base  # only the blank line that separated a dropped section from the one before it
    return text


def blank_sections(text: str, lines: dict[int, list[str]]) -> str:
    """`text` with each section that holds one of `lines` (line -> kinds) replaced by one line that says
    so; its heading stays when the heading itself is not flagged.  What `load` hands an agent."""
    parsed = parse(text)
    blocks = _blocks(parsed)
    flagged: dict[int, list[str]] = {}
    for line, kinds in lines.items():
        index = _containing(blocks, line)
        flagged[index] = sorted({*flagged.get(index, []), *kinds})
    if not flagged:
        return text
    parts = [parsed.bom]
    newline = parsed.newline
    for index, block in enumerate(blocks):
        if index not in flagged:
            parts.append(block.text)
            continue
        keep_heading = index > 0 and block.line_no not in lines
        note = (f"[apm-git: {'the rest of this section' if keep_heading else 'a section'} is left out here: it holds "
                f"what looks like a credential ({', '.join(flagged[index])})]")
        parts.append((block.lines[0] if keep_heading else "") + note + newline + newline)
    return "".join(parts)
