"""Put records back into a file's text, or take them out, leaving every other line as it is.

A flush that finds entries gone from the work tree without a record of where they went
commits the work tree's text with those records put back (`keep_records`); `forget` and a
deleted file whose other entries went elsewhere take records out (`drop_records`).
"""
from __future__ import annotations

from collections.abc import Collection

from apm_git.model.records import Block, Record, RecordFile, parse


def record_ids(parsed: RecordFile) -> list[str]:
    """The entry id of each record that has one (a date and a title), in file order."""
    return [record.id for record in parsed.records if _identified(record)]


def keep_records(current: str, base: str, ids: Collection[str]) -> str:
    """`current` with the records of `base` whose id is in `ids` (and that `current` lacks) put back.

    Each goes right after the nearest record that preceded it in `base` and is still in
    `current` (or after one put back before it); with none, right after the preamble.
    Its lines are `base`'s, byte for byte; only a missing line end or separating blank
    line is added around it.
    """
    new = parse(current)
    present: dict[str, int] = {}
    for position, block in enumerate(new.blocks):
        if isinstance(block, Record) and _identified(block):
            present.setdefault(block.id, position)
    after: dict[int, list[Block]] = {}  # position in `new.blocks` (-1: the preamble) -> blocks put back after it
    anchor = -1
    for block in parse(base).records:
        if not _identified(block):
            continue
        if block.id in present:
            anchor = present[block.id]
        elif block.id in ids:
            after.setdefault(anchor, []).append(block)
    if not after:
        return current
    newline = new.newline
    parts: list[str] = [new.bom, new.preamble.text]
    for kept in after.get(-1, []):
        _append(parts, kept.text, newline)
    follows_kept = bool(after.get(-1))
    for position, block in enumerate(new.blocks):
        if follows_kept:
            _append(parts, block.text, newline, end=False)
        else:
            parts.append(block.text)
        follows_kept = bool(after.get(position))
        for kept in after.get(position, []):
            _append(parts, kept.text, newline)
    return "".join(parts)


def drop_records(text: str, ids: Collection[str]) -> str:
    """`text` without the records whose id is in `ids`; everything else stays byte for byte."""
    parsed = parse(text)
    kept = [block for block in parsed.blocks if not (isinstance(block, Record) and _identified(block)
                                                     and block.id in ids)]
    if len(kept) == len(parsed.blocks):
        return text
    return parsed.bom + parsed.preamble.text + "".join(block.text for block in kept)


def _append(parts: list[str], text: str, newline: str, *, end: bool = True) -> None:
    """Add a block after `parts`, on a line of its own and after a blank line (unless at the very start);
    with `end`, it ends with a line end."""
    before = "".join(parts[-2:])
    if before.strip():
        if not before.endswith("\n"):
            parts.append(newline)
            before += newline
        if not before.endswith(("\n\n", "\n\r\n")):
            parts.append(newline)
    parts.append(text if text.endswith("\n") or not end else text + newline)


def _identified(record: Record) -> bool:
    return bool(record.date and record.title)
