"""The memory-wide three-way merge: text in, text out (docs/merge.md).

Entries are tracked across files, not per file: on each side every record is found by its
entry id wherever it is, so an entry that one side moved (promoted from a journal, archived,
superseded) and the other side hit or edited ends where the move put it, with the edit
applied there.  Everything that is not a record merges per file: free-form sections by
heading, append-only indexes and journals as a union of lines, the JSON state files by key.
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence

from apm_git.jsontext import loads
from apm_git.merge import lines as line_merge
from apm_git.merge.records import OTHER_TITLE, Hits, Merged, hits_of, linked, merge_record, renamed, same, with_hits
from apm_git.merge.state import merge_json, render_json
from apm_git.model.config import DEFAULT_APPEND_ONLY
from apm_git.model.dated import JOURNAL_NAME
from apm_git.model.entries import NAMING_FIELDS, named_ids
from apm_git.model.entry_id import entry_id
from apm_git.model.index_md import generated
from apm_git.model.names import ARCHIVED_JOURNALS, INDEX, STATE_FILES, memory_rel
from apm_git.model.pathglob import glob_match
from apm_git.model.records import Record, RecordFile, newline_of, parse

BASE, OURS, THEIRS = 0, 1, 2
PREAMBLE = ""  # the key of a file's preamble among its sections


@dataclasses.dataclass(frozen=True)
class MergeConflict:
    """Something kept for a person to settle: where (repo-relative path), what, and the entry it concerns."""

    path: str
    what: str
    entry: str | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.entry + ': ' if self.entry else ''}{self.what}"


@dataclasses.dataclass
class MemoryMerge:
    files: dict[str, str | None]  # every path of any side: its merged text, None when deleted
    conflicts: list[MergeConflict] = dataclasses.field(default_factory=list)
    unmerged: list[str] = dataclasses.field(default_factory=list)  # free-form files holding both versions
    rebuild: list[str] = dataclasses.field(default_factory=list)  # derived files (INDEX.md) to build again

    @property
    def clean(self) -> bool:
        return not self.conflicts and not self.unmerged


@dataclasses.dataclass
class _TreeEntry:
    path: str
    record: Record
    id: str  # the record's entry id, computed once


@dataclasses.dataclass
class _Layout:
    """One side's version of a record file: its parts in order, each under a key."""

    bom: str
    newline: str
    order: list[str]  # PREAMBLE, "s\0<heading>\0<n>" for a free-form section, "r\0<entry key>" for a record
    texts: dict[str, str]

    @functools.cached_property
    def next_of(self) -> dict[str, str]:
        return dict(zip(self.order, self.order[1:], strict=False))


def merge_memory(
    base: Mapping[str, str], ours: Mapping[str, str], theirs: Mapping[str, str], *,
    memory_dir: str = "memory", append_only: Sequence[str] | None = None,
) -> MemoryMerge:
    """The merged tree of three versions of the memory (repository-relative path -> text).

    `append_only` (memory-relative globs): the repository's setting (its caller read apm.yaml), else the
    default of docs/design.md 2.2.
    """
    return _Merge([dict(base), dict(ours), dict(theirs)], memory_dir, append_only).run()


class _Merge:
    def __init__(self, sides: list[dict[str, str]], memory_dir: str, append_only: Sequence[str] | None) -> None:
        self.sides = sides
        self.memory_dir = memory_dir
        self.append_only = tuple(append_only) if append_only is not None else DEFAULT_APPEND_ONLY
        self.result = MemoryMerge({path: None for side in sides for path in side})
        self._parsed: dict[str, RecordFile] = {}

    def run(self) -> MemoryMerge:
        self._follow_renames(OURS, THEIRS)
        self._follow_renames(THEIRS, OURS)
        paths = sorted({path for side in self.sides for path in side})
        record_paths = [path for path in paths if self._kind(path) == "records"]
        for path in paths:
            kind = self._kind(path)
            if kind != "records":
                self._merge_file(path, kind)
        if record_paths:
            self._merge_records(record_paths)
        return self.result

    def _rel(self, path: str) -> str | None:
        return memory_rel(self.memory_dir, path)

    def _kind(self, path: str) -> str:
        rel = self._rel(path)
        if rel is None:
            return "text"
        if rel in STATE_FILES:
            return "json"
        if any(glob_match(pattern, rel) for pattern in self.append_only):
            return "append"
        if rel == INDEX and any(generated(side[path]) for side in self.sides if path in side):
            return "derived"
        return "records" if rel.endswith(".md") else "text"

    def _is_journal(self, path: str) -> bool:
        rel = self._rel(path) or ""
        return bool(JOURNAL_NAME.fullmatch(rel)) or rel.startswith(f"{ARCHIVED_JOURNALS}/")

    # -- whole-file moves ---------------------------------------------------------------------------

    def _follow_renames(self, side: int, other: int) -> None:
        """A record file that `side` moved whole (a journal archived with `git mv`): the other side's
        and the base's version are read at the new path, so what the other side added follows the move."""
        base, moved, stays = self.sides[BASE], self.sides[side], self.sides[other]
        for old in [path for path in base if path not in moved and self._kind(path) == "records"]:
            new = self._moved_to(old, base[old], moved)
            if new is None:
                continue
            if old in stays and new not in stays:
                stays[new] = stays.pop(old)
            elif old in stays or new not in stays:
                continue
            base[new] = base.pop(old)

    def _moved_to(self, old: str, text: str, side: dict[str, str]) -> str | None:
        name = old.rsplit("/", 1)[-1]
        for path in sorted(side):
            if path not in self.sides[BASE] and path != old and self._kind(path) == "records" \
                    and (side[path] == text or path.rsplit("/", 1)[-1] == name):
                return path
        return None

    # -- files merged on their own --------------------------------------------------------------------

    def _merge_file(self, path: str, kind: str) -> None:
        base, ours, theirs = (side.get(path) for side in self.sides)
        done, settled = _settled(base, ours, theirs)
        if done:
            self.result.files[path] = settled
            return
        assert ours is not None and theirs is not None
        if kind == "derived":
            self.result.files[path] = ours
            self.result.rebuild.append(path)
        elif kind == "json":
            self._merge_state(path, base, ours, theirs)
        else:
            comment = "yaml" if path.endswith((".yaml", ".yml")) else "hash" if path.endswith((".toml", ".sh", ".py")) \
                else "html"
            how = "union" if kind == "append" else "both"
            self.result.files[path] = self._lines(path, base or "", ours, theirs, how, comment)

    def _lines(self, path: str, base: str, ours: str, theirs: str, how: str, comment: str = "html",
               section: str = "") -> str:
        merged, clean = line_merge.merge_text(base, ours, theirs, how=how, newline=newline_of(ours), comment=comment)
        if not clean:
            where = f"section {section!r}" if section else "the same lines"
            self._unmerged(path, f"both sides changed {where}; both versions are kept, one after the other, "
                                 f"between apm-git merge notes")
        return merged

    def _unmerged(self, path: str, what: str) -> None:
        if path not in self.result.unmerged:
            self.result.unmerged.append(path)
        self.result.conflicts.append(MergeConflict(path, what))

    def _merge_state(self, path: str, base: str | None, ours: str, theirs: str) -> None:
        try:
            values = [loads(text) if text is not None else None for text in (base, ours, theirs)]
        except ValueError:
            self.result.files[path] = self._lines(path, base or "", ours, theirs, "both")
            if path not in self.result.unmerged:
                self._unmerged(path, "a side is not valid JSON, so it was merged line by line")
            return
        merged, clashes = merge_json(self._rel(path) or path, *values)
        self.result.files[path] = render_json(merged)
        self.result.conflicts += [MergeConflict(path, clash) for clash in clashes]

    # -- record files ---------------------------------------------------------------------------------

    def _merge_records(self, paths: list[str]) -> None:
        layouts: list[dict[str, _Layout]] = [{}, {}, {}]
        entries: list[dict[str, _TreeEntry]] = [{}, {}, {}]
        named: list[dict[str, str]] = [{}, {}, {}]  # id named in a Merged/Supersedes field -> key of the naming entry
        for side in (BASE, OURS, THEIRS):
            seen: dict[str, int] = {}
            for path in paths:
                if path in self.sides[side]:
                    layouts[side][path] = self._layout(self.sides[side][path], path, side, seen, entries, named)
        used = {entry.id for side in entries for entry in side.values()}
        placed: dict[str, tuple[str, Record, Record | None]] = {}  # key -> (path, record, conflicting version)
        extra: dict[str, Hits] = {}
        keys = sorted({key for side in entries for key in side})
        for key in keys:
            self._place(key, entries, named, placed, extra)
        for key in keys:
            if key not in placed:
                continue
            base, ours, theirs = (side.get(key) for side in entries)
            if ours is not None and theirs is not None:
                self._both(key, base, ours, theirs, placed, extra, used)
            elif key in extra:
                path, record, _ = placed[key]
                placed[key] = (path, with_hits(record, extra[key]), None)
        by_path: dict[str, list[str]] = {}
        for key, (where, _, _) in placed.items():
            by_path.setdefault(where, []).append(key)
        for path in paths:
            self.result.files[path] = self._assemble(path, layouts, placed, by_path.get(path, []))

    def _layout(self, text: str, path: str, side: int, seen: dict[str, int],
                entries: list[dict[str, _TreeEntry]], named: list[dict[str, str]]) -> _Layout:
        parsed = self._parsed.get(text)
        if parsed is None:  # most files are alike on two or three sides: each text is parsed once
            parsed = self._parsed[text] = parse(text)
        layout = _Layout(parsed.bom, parsed.newline, [PREAMBLE], {PREAMBLE: parsed.preamble.text})
        headings: dict[str, int] = {}
        for block in parsed.blocks:
            if isinstance(block, Record) and block.date and block.title:
                ident = _entry_id(block.date, block.title)
                count = seen[ident] = seen.get(ident, 0) + 1
                entry = ident if count == 1 else f"{ident}#{count}"
                entries[side][entry] = _TreeEntry(path, block, ident)
                key = f"r\0{entry}"
                for field in block.fields:
                    if field.name in NAMING_FIELDS:
                        for name in named_ids(field.name, field.value):
                            named[side].setdefault(name, entry)
            else:
                heading = block.heading
                headings[heading] = headings.get(heading, 0) + 1
                key = f"s\0{heading}\0{headings[heading]}"
            layout.order.append(key)
            layout.texts[key] = block.text
        return layout

    def _place(self, key: str, entries: list[dict[str, _TreeEntry]], named: list[dict[str, str]],
               placed: dict[str, tuple[str, Record, Record | None]], extra: dict[str, Hits]) -> None:
        base, ours, theirs = (side.get(key) for side in entries)
        if ours is not None and theirs is not None:
            placed[key] = (_place_of(base, ours, theirs), ours.record, None)  # the record is merged later
            return
        present, gone_from = (ours, THEIRS) if ours is not None else (theirs, OURS)
        if present is None:
            return  # deleted on both sides
        if base is None:
            placed[key] = (present.path, present.record, None)  # added on one side
            return
        if same(base.record, present.record) and base.path == present.path:
            return  # deleted (or folded) on the other side, left as it was on this one
        merger = named[gone_from].get(base.id)
        hits = hits_of(base.record, present.record) if merger is not None and present.path == base.path else None
        if merger is not None and hits is not None:
            # folded into `merger` on the other side, only hit on this one: the hits go to the merger
            extra[merger] = extra.get(merger, Hits()).plus(hits)
            return
        placed[key] = (present.path, present.record, None)  # deleted on one side, changed on the other: kept

    def _both(self, key: str, base: _TreeEntry | None, ours: _TreeEntry, theirs: _TreeEntry,
              placed: dict[str, tuple[str, Record, Record | None]], extra: dict[str, Hits], used: set[str]) -> None:
        path = placed[key][0]
        prefer_theirs = path == theirs.path and path != ours.path
        merged: Merged = merge_record(base.record if base else None, ours.record, theirs.record,
                                      prefer_theirs=prefer_theirs, extra=extra.get(key, Hits()))
        if merged.other is None:
            placed[key] = (path, merged.record, None)
            return
        record, other = merged.record, merged.other
        title, number = f"{other.title} {OTHER_TITLE}", 1
        while entry_id(other.date, title) in used:
            number += 1
            title = f"{other.title} {OTHER_TITLE[:-1]} {number})"
        other_id = entry_id(other.date, title)
        used.add(other_id)
        placed[key] = (path, linked(record, other_id), linked(renamed(other, title), record.id))
        self.result.conflicts.append(MergeConflict(
            path, f"both sides changed the body; both versions are kept, linked by Conflicts: ({other_id})",
            record.id,
        ))

    def _assemble(self, path: str, layouts: list[dict[str, _Layout]],
                  placed: dict[str, tuple[str, Record, Record | None]], here: list[str]) -> str | None:
        """The merged text of `path`; `here`: the keys of the entries that end in it."""
        versions = [layout.get(path) for layout in layouts]
        base, ours, theirs = versions
        unchanged = ours is not None and base is not None and self.sides[OURS][path] == self.sides[BASE][path]
        spine = (theirs if unchanged else ours) or theirs or base
        assert spine is not None
        order = list(spine.order)
        if ours is not None and theirs is not None:
            order = _insert_missing(order, (ours if spine is theirs else theirs).order)
        present = set(order)
        order += [f"r\0{key}" for key in here if f"r\0{key}" not in present]
        parts: list[tuple[str, str]] = []  # (key, text)
        for key in order:
            if key.startswith("r\0"):
                entry = key.removeprefix("r\0")
                if entry in placed and placed[entry][0] == path:
                    _, record, other = placed[entry]
                    parts.append((key, record.text))
                    if other is not None:
                        parts.append((f"c\0{entry}", other.text))
                continue
            texts = [version.texts.get(key) if version else None for version in versions]
            text = self._section(path, key, *texts)
            if text is not None:
                parts.append((key, text))
        newline = spine.newline
        rendered = self._join(parts, [version for version in (ours, theirs) if version], newline)
        if not rendered and (ours is None or theirs is None):
            return None  # deleted on one side, and nothing of the other's is left
        boms = [version.bom if version else None for version in versions]
        done, bom = _settled(*boms)
        return (bom if done and bom is not None else spine.bom) + rendered

    def _section(self, path: str, key: str, base: str | None, ours: str | None, theirs: str | None) -> str | None:
        done, settled = _settled(base, ours, theirs)
        if done:
            return settled
        assert ours is not None and theirs is not None
        how = "union" if self._is_journal(path) else "both"
        heading = "the preamble" if key == PREAMBLE else key.split("\0")[1]
        return self._lines(path, base or "", ours, theirs, how, section=heading)

    @staticmethod
    def _join(parts: list[tuple[str, str]], sources: list[_Layout], newline: str) -> str:
        """The parts in order; where two parts did not follow each other on a side, the first gets a line end
        and a blank line is put between them."""
        text = ""
        previous = None
        for key, part in parts:
            if not part:
                previous = key
                continue
            natural = previous is None or any(_follows(source, previous, key) for source in sources)
            if text and not text.endswith("\n"):
                text += newline
            if not natural and text.strip() and not text.endswith(("\n\n", "\n\r\n")):
                text += newline
            text += part
            previous = key
        return text


@functools.lru_cache(maxsize=65536)
def _entry_id(date: str, title: str) -> str:
    """Entry ids, each computed once: most records are alike on two or three sides."""
    return entry_id(date, title)


def _follows(layout: _Layout, first: str, second: str) -> bool:
    return layout.next_of.get(first) == second


def _insert_missing(order: list[str], other: list[str]) -> list[str]:
    """`order` with the keys of `other` it lacks, each after the key that precedes it in `other`."""
    known = set(other)
    if known <= set(order):
        return list(order)
    after: dict[str, list[str]] = {}  # key of `order` -> keys of `other` that go right after it
    have = set(order)
    anchor = PREAMBLE
    for key in other:
        if key not in have:
            after.setdefault(anchor, []).append(key)
            have.add(key)
        anchor = key

    def chain(key: str) -> list[str]:
        """`key` and what goes after it, the keys anchored on inserted keys included: depth first, with a
        stack of its own (a side that added thousands of records in a row anchors each on the one before)."""
        keys: list[str] = []
        stack = [key]
        while stack:
            current = stack.pop()
            keys.append(current)
            stack.extend(reversed(after.pop(current, [])))
        return keys

    result: list[str] = []
    pending: list[str] = []  # keys to insert once what only `order` added at that spot is past
    for key in order:
        if pending and key in known:
            result += pending
            pending = []
        result.append(key)
        for follower in after.pop(key, []):
            pending += chain(follower)
    return result + pending


def _place_of(base: _TreeEntry | None, ours: _TreeEntry, theirs: _TreeEntry) -> str:
    """Where an entry on both sides ends: where the side that moved it put it (ours when both did)."""
    if ours.path == theirs.path:
        return ours.path
    if base is not None and ours.path == base.path:
        return theirs.path
    return ours.path


def _settled(base: str | None, ours: str | None, theirs: str | None) -> tuple[bool, str | None]:
    """(True, merged text) when no line merge is needed: one side changed, or both alike; a deletion
    against a change keeps the change.  (False, None) otherwise."""
    if ours == theirs or base == theirs:
        return True, ours
    if base == ours:
        return True, theirs
    if ours is None or theirs is None:
        return True, ours if theirs is None else theirs
    return False, None

