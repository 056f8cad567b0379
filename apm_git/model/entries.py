"""Where entry ids live on one side: a compact text per file, cheap to cache and to search.

A file's summary holds one line per entry (`e<TAB>line<TAB>id`) and one per id that a
`Merged:` or `Supersedes:` field names (`n<TAB>line<TAB>id`).  Summaries are cached by
blob id under `.git/apm-git/`, so a commit re-reads only the files it changed, and a
lookup of a few ids is a substring search instead of a parse of the whole memory.
"""
from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import NamedTuple

from apm_git.model.entry_id import ENTRY_ID
from apm_git.model.records import RecordFile

ENTRY = "e"
NAMED = "n"
NAMING_FIELDS = ("Merged", "Supersedes")
_FULL_MAP_ABOVE = 48  # ids per query above which one pass over every summary beats a search per id


class EntryPlace(NamedTuple):
    path: str
    line: int
    named: bool  # True: a Merged/Supersedes field names the id; False: the entry itself


def summarize(parsed: RecordFile) -> str:
    lines = []
    for record in parsed.records:
        if not record.date or not record.title:
            continue
        lines.append(f"{ENTRY}\t{record.line_no}\t{record.id}\n")
        for field in record.fields:
            if field.name in NAMING_FIELDS:
                for entry in named_ids(field.name, field.value):
                    lines.append(f"{NAMED}\t{record.line_no + field.offset}\t{entry}\n")
    return "".join(lines)


def named_ids(field: str, value: str) -> list[str]:
    """Ids a naming field refers to: every id of `Merged`, the leading id of `Supersedes: <id> — summary`."""
    if field == "Merged":
        return ENTRY_ID.findall(value)
    match = ENTRY_ID.match(value.strip())
    return [match[0]] if match else []


def entry_lines(summary: str) -> Iterator[tuple[int, str]]:
    """(line, id) of each entry in a summary."""
    for row in summary.splitlines():
        kind, line, entry = row.split("\t")
        if kind == ENTRY:
            yield int(line), entry


class EntryIndex:
    """Entry ids and naming fields of every memory file on one side of a comparison."""

    def __init__(self, summaries: Mapping[str, str]) -> None:
        self.summaries = dict(summaries)

    def places(self, ids: Collection[str]) -> dict[str, list[EntryPlace]]:
        found: dict[str, list[EntryPlace]] = {entry: [] for entry in ids}
        if len(found) > _FULL_MAP_ABOVE:
            for place, entry in self._all():
                if entry in found:
                    found[entry].append(place)
        else:
            for entry in found:
                found[entry] = sorted(self._search(entry))
        return found

    def duplicates(self, paths: Collection[str]) -> dict[str, list[EntryPlace]]:
        """Ids that are an entry more than once among `paths`, with every place they are."""
        seen: dict[str, list[EntryPlace]] = {}
        for place, entry in self._all():
            if not place.named and place.path in paths:
                seen.setdefault(entry, []).append(place)
        return {entry: sorted(places) for entry, places in seen.items() if len(places) > 1}

    def _all(self) -> Iterator[tuple[EntryPlace, str]]:
        for path, summary in self.summaries.items():
            for row in summary.splitlines():
                kind, line, entry = row.split("\t")
                yield EntryPlace(path, int(line), kind == NAMED), entry

    def _search(self, entry: str) -> Iterator[EntryPlace]:
        needle = f"\t{entry}\n"
        for path, summary in self.summaries.items():
            at = summary.find(needle)
            while at != -1:
                start = summary.rfind("\n", 0, at) + 1
                kind, line = summary[start:at].split("\t")
                yield EntryPlace(path, int(line), kind == NAMED)
                at = summary.find(needle, at + 1)
