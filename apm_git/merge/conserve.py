"""Conservation across a merge: every entry of either side survives, on record (docs/merge.md)."""
from __future__ import annotations

from collections.abc import Mapping

from apm_git.merge.records import same
from apm_git.model.entries import NAMING_FIELDS, named_ids
from apm_git.model.names import memory_rel
from apm_git.model.records import Record, parse


def _records(tree: Mapping[str, str | None], memory_dir: str) -> dict[str, Record]:
    """Entry id -> its first record, over every Markdown file of the memory dir."""
    found: dict[str, Record] = {}
    for path in sorted(tree):
        text = tree[path]
        if text is None or memory_rel(memory_dir, path) is None or not path.endswith(".md"):
            continue
        for record in parse(text).records:
            if record.date and record.title:
                found.setdefault(record.id, record)
    return found


def _named(tree: Mapping[str, str | None], memory_dir: str) -> set[str]:
    names: set[str] = set()
    for path, text in tree.items():
        if text is None or memory_rel(memory_dir, path) is None or not path.endswith(".md"):
            continue
        if "Merged:" not in text and "Supersedes:" not in text:
            continue
        for record in parse(text).records:
            for field in record.fields:
                if field.name in NAMING_FIELDS:
                    names.update(named_ids(field.name, field.value))
    return names


def lost_entries(
    base: Mapping[str, str], ours: Mapping[str, str], theirs: Mapping[str, str],
    merged: Mapping[str, str | None], *, memory_dir: str = "memory",
) -> list[str]:
    """Ids of entries of either side that `merged` holds nowhere: not a live or archived entry, nor named in
    a `Merged:` or `Supersedes:` field.  An entry that one side deleted while the other left it as it was
    at the base is not lost: the deletion is that side's own (`apm-git forget`, which its history records)."""
    old = _records(base, memory_dir)
    mine, other = _records(ours, memory_dir), _records(theirs, memory_dir)
    kept = set(_records(merged, memory_dir)) | _named(merged, memory_dir)
    lost = []
    for entry in sorted(set(mine) | set(other)):
        if entry in kept:
            continue
        if entry in old and (entry not in mine or entry not in other):
            still = mine.get(entry) or other.get(entry)
            if same(old[entry], still):
                continue
        lost.append(entry)
    return lost
