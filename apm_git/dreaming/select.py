"""Part of a consolidation, entry by entry: the files as they would be had only the chosen entries moved.

A pure function of texts.  `before` holds the files a run reads, `after` what the run writes;
each entry the run changed (moved to another file, changed in place, folded away, archived) is
either chosen, and ends as `after` has it, or not, and stays as `before` has it, where it was.
Lines that are not records stay as `before` has them, except in a file the run creates (a new
month of the archive), whose preamble is `after`'s.  A file that ends as it was is not written.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping

from apm_git.model.records import Block, Record, RecordFile, parse


def _records(parsed: RecordFile) -> dict[str, Record]:
    return {block.id: block for block in parsed.records if block.date and block.title}


def changed_ids(before: Mapping[str, str], after: Mapping[str, str]) -> set[str]:
    """The ids whose file or text differ between `before` and `after` (over the files `after` writes)."""
    was: dict[str, tuple[str, str]] = {}
    now: dict[str, tuple[str, str]] = {}
    for name in after:
        for entry, record in _records(parse(before.get(name, ""))).items():
            was[entry] = (name, record.text)
        for entry, record in _records(parse(after[name])).items():
            now[entry] = (name, record.text)
    return {entry for entry in was.keys() | now.keys() if was.get(entry) != now.get(entry)}


def select(before: Mapping[str, str], after: Mapping[str, str], chosen: Collection[str]) -> dict[str, str]:
    """The writes of `after` with every change to an entry not in `chosen` left out (see the module's docstring)."""
    changed = changed_ids(before, after)
    dropped = changed - set(chosen)
    if not dropped:
        return {name: text for name, text in after.items() if text != before.get(name, "")}
    lands: dict[str, tuple[str, Record]] = {}  # chosen id -> where `after` puts it
    for name, text in after.items():
        for entry, record in _records(parse(text)).items():
            if entry in changed and entry not in dropped:
                lands[entry] = (name, record)
    writes = {}
    for name, text in after.items():
        old_text = before.get(name, "")
        old, new = parse(old_text), parse(text)
        blocks: list[Block] = []
        present: set[str] = set()
        for block in old.blocks:
            if isinstance(block, Record) and block.date and block.title and block.id in changed \
                    and block.id not in dropped:
                target = lands.get(block.id)
                if target is None or target[0] != name:
                    continue  # moved elsewhere or folded away: it leaves this file
                block = target[1]
            if isinstance(block, Record) and block.date and block.title:
                present.add(block.id)
            blocks.append(block)
        for record in new.records:
            if record.date and record.title and record.id in lands and lands[record.id][0] == name \
                    and record.id not in present:
                blocks.append(record)
        if not old_text and not any(isinstance(block, Record) for block in blocks):
            continue  # a file the run creates, with none of the chosen entries in it
        head = old if old_text else new
        result = head.bom + head.preamble.text + _joined(blocks)
        if result != old_text:
            writes[name] = result
    return writes


def _joined(blocks: list[Block]) -> str:
    """Blocks in order, each starting on a line of its own after a blank line (a moved record may end without one)."""
    parts: list[str] = []
    for block in blocks:
        if parts and not parts[-1].endswith("\n"):
            parts[-1] += "\n"
        if parts and not parts[-1].endswith(("\n\n", "\r\n\r\n")) and isinstance(block, Record):
            parts[-1] += "\n"
        parts.append(block.text)
    return "".join(parts)
