"""What happened to each entry, free-form section and file between two states: a pure function of
the two sides' texts, the `Apm-*` trailers of the commits between them, and the no-loss check's
verdict on the entries that left (docs/review.md).

The content decides what happened (an entry that left a journal for a category file was promoted,
one that entered the archive was archived, superseded when it gained `Superseded-by`); the
trailers add what the content does not say (a promotion's reasons, an archive's score, a forget's
reason, the survivor of a fold).  An entry that left with no record of where it went is a loss.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Final

from apm_git.dreaming.settle import conflict_ids
from apm_git.model import names
from apm_git.model import trailers as trailer_model
from apm_git.model.config import Config
from apm_git.model.entries import NAMING_FIELDS, EntryPlace, named_ids
from apm_git.model.records import OPTIONAL_FIELDS, Block, Record, RecordFile, count_lines, parse, strip_eol
from apm_git.model.snapshot import CATEGORY, EXPERIENCE, JOURNAL, file_kind
from apm_git.model.vocabulary import ENTRY_STATUSES, EntryStatus, FileStatus, SectionStatus
from apm_git.review.words import Piece, word_diff

# What happened to an entry (model/vocabulary.py EntryStatus, in the order a reviewer reads them: loss first).
LOSS: Final = "loss"
CONFLICT: Final = "conflict"  # gained a `Conflicts:` field: two versions wait for a person (`apm-git resolve`)
ADDED: Final = "added"
IMPORTED: Final = "imported"
EDITED: Final = "edited"
PROVEN: Final = "proven"
PROMOTED: Final = "promoted"
MOVED: Final = "moved"
ARCHIVED: Final = "archived"
SUPERSEDED: Final = "superseded"
MERGED: Final = "merged"
FORGOTTEN: Final = "forgotten"
REMOVED: Final = "removed"
PREAMBLE = ""  # the heading of the text before a file's first `## ` heading
FITNESS_KEYS = ("last_referenced", "hit_count", "decision_value")
# `Source: heading "## 2026-05-18 — Title"`, and after deep sleep `; memory/2026-05-18.md` (the journal)
_SOURCE_HEADING = re.compile(r'heading "(.*)"(?:; [^"]*)?')


@dataclasses.dataclass(frozen=True)
class FileChange:
    """One changed file (repository-relative paths) and its text on each side (None: absent or unreadable)."""

    status: FileStatus
    path: str  # where it is on the new side (where it was, when deleted)
    old_path: str | None  # where it was on the base side (None: added)
    before: str | None
    after: str | None
    whole_move: bool = False  # renamed byte for byte: its entries moved with it
    note: str = ""  # why a side could not be read


@dataclasses.dataclass(frozen=True)
class FieldChange:
    field: str  # tags, body, details, proven, last_referenced, hit_count, decision_value, or a record field, lower case
    before: str | None  # None: absent
    after: str | None
    words: tuple[Piece, ...] = ()  # body and details: the word diff


@dataclasses.dataclass(frozen=True)
class EntryChange:
    id: str
    title: str
    status: EntryStatus
    source: str | None  # the file it was in (None: added)
    target: str | None  # the file it is in (None: it left the memory files)
    line: int  # its line in `target`, else in `source`
    detail: str  # the reasons of a promotion, an archive's score, who absorbed or superseded it …
    changes: tuple[FieldChange, ...] = ()


@dataclasses.dataclass(frozen=True)
class SectionChange:
    file: str
    heading: str  # the `## ` line as written; PREAMBLE for the text before the first heading
    status: SectionStatus
    source: str | None  # the file it came from, when moved
    lines_before: int
    lines_after: int


@dataclasses.dataclass(frozen=True)
class ReviewedFile:
    path: str
    old_path: str | None
    status: FileStatus
    lines_before: int | None
    lines_after: int | None
    budget: int | None
    entries_moved: int  # entries carried along by a byte-for-byte rename
    note: str

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.lines_after is not None and self.lines_after > self.budget


@dataclasses.dataclass(frozen=True)
class Classified:
    entries: list[EntryChange]
    sections: list[SectionChange]
    files: list[ReviewedFile]


@dataclasses.dataclass
class TrailerFacts:
    """What the consolidation and forget trailers of a range say about entries."""

    promoted: dict[str, str] = dataclasses.field(default_factory=dict)  # id -> reasons
    promoted_from: dict[str, str] = dataclasses.field(default_factory=dict)  # id -> the journal it left
    archived: dict[str, str] = dataclasses.field(default_factory=dict)  # id -> "score N"
    superseded_by: dict[str, str] = dataclasses.field(default_factory=dict)  # old id -> new id
    merged_into: dict[str, str] = dataclasses.field(default_factory=dict)  # folded id -> survivor
    forgotten: dict[str, str] = dataclasses.field(default_factory=dict)  # id -> reason
    imported: set[str] = dataclasses.field(default_factory=set)


def trailer_facts(trailers: Iterable[tuple[str, str]]) -> TrailerFacts:
    """Read the values of the trailers of docs: `Apm-Promote: <id> <from> -> <to> (<reasons>)` and the like."""
    facts = TrailerFacts()
    for key, value in trailers:
        words = value.split()
        if not words:
            continue
        tail = value.rsplit("(", 1)[1].rstrip(")").strip() if value.endswith(")") and "(" in value else ""
        if key == "Apm-Promote":
            facts.promoted[words[0]] = tail
            if len(words) > 1:
                facts.promoted_from[words[0]] = words[1]
        elif key == "Apm-Archive":
            facts.archived[words[0]] = tail
        elif key == "Apm-Supersede" and len(words) >= 3:
            facts.superseded_by[words[0]] = words[2]
        elif key == "Apm-Move" and tail.startswith("merged into "):
            facts.merged_into[words[0]] = tail.removeprefix("merged into ").strip()
        elif key == trailer_model.FORGET:
            facts.forgotten[words[0]] = value.split(" — ", 1)[1].strip() if " — " in value else ""
        elif key == "Apm-Import":
            facts.imported.add(words[0])
    return facts


def classify(
    files: Sequence[FileChange],
    config: Config,
    facts: TrailerFacts,
    lost_of: Callable[[Collection[str]], Mapping[str, tuple[str, int]]],
    places: Callable[[Collection[str]], Mapping[str, Sequence[EntryPlace]]],
) -> Classified:
    """`lost_of(ids)`: id -> (path, line) at the base of each of `ids` that the no-loss check finds gone
    without a trace; `places(ids)`: where each of `ids` is on the new side (the entry elsewhere, or a
    `Merged`/`Supersedes` field naming it).  Both are asked once, and only about the ids that left the
    changed files with no `Merged`/`Supersedes` field there naming them and no `Apm-Forget`: the others
    are not lost by the no-loss rule, and what happened to them is known without a look at the rest."""
    kinds = _Kinds(config)
    parsed = [(change, _parse(change.before), _parse(change.after))
              for change in files if not change.whole_move and change.path.endswith(".md")]
    before = _entries((change.old_path, old) for change, old, _ in parsed if change.old_path and old)
    after = _entries((change.path, new) for change, _, new in parsed if new)
    naming = _naming(record for _, record in after.values())
    gone = [entry for entry in before if entry not in after]
    unexplained = [entry for entry in gone if entry not in naming and entry not in facts.forgotten]
    lost = lost_of(unexplained) if unexplained else {}
    found = places([entry for entry in unexplained if entry not in lost]) if len(lost) < len(unexplained) else {}
    both = (_both(entry, before[entry], after[entry], kinds, facts) for entry in before if entry in after)
    entries = [
        *(entry for entry in both if entry is not None),
        *(_gone(entry, *before[entry], facts, lost, found, naming) for entry in gone),
        *(_new(entry, *after[entry], facts) for entry in after if entry not in before),
    ]
    entries.sort(key=lambda entry: (ENTRY_STATUSES.index(entry.status), entry.target or entry.source or "",
                                    entry.id))
    recorded = {heading for _, record in after.values() if (heading := _source_heading(record))}
    sections = [section for section in _sections(parsed, kinds)
                if not (section.status == "removed" and section.heading in recorded)]
    summaries = [_file_summary(change, config, kinds) for change in files]
    return Classified(entries, sections, summaries)


class _Kinds:
    def __init__(self, config: Config) -> None:
        self.config = config

    def rel(self, path: str) -> str:
        return names.memory_rel(self.config.memory_dir, path) or path

    def kind(self, path: str) -> str | None:
        return file_kind(self.rel(path), self.config)

    def archived(self, path: str) -> bool:
        return self.rel(path).startswith(f"{names.ARCHIVE}/")

    def generated(self, path: str) -> bool:
        return self.rel(path) == names.INDEX


def _parse(text: str | None) -> RecordFile | None:
    return None if text is None else parse(text)


def _is_entry(block: Block) -> bool:
    return isinstance(block, Record) and bool(block.date and block.title)


def _entries(files: Iterable[tuple[str, RecordFile]]) -> dict[str, tuple[str, Record]]:
    """id -> (path, record), the first of each id (the no-loss check treats ids the same way)."""
    found: dict[str, tuple[str, Record]] = {}
    for path, parsed in files:
        for block in parsed.blocks:
            if isinstance(block, Record) and _is_entry(block):
                found.setdefault(block.id, (path, block))
    return found


def _naming(records: Iterable[Record]) -> dict[str, tuple[str, str]]:
    """id -> (field, id of the entry whose `Merged` or `Supersedes` names it) on the new side."""
    found: dict[str, tuple[str, str]] = {}
    for record in records:
        for field in record.fields:
            if field.name in NAMING_FIELDS:
                for entry in named_ids(field.name, field.value):
                    found.setdefault(entry, (field.name, record.id))
    return found


def _both(entry: str, old: tuple[str, Record], new: tuple[str, Record], kinds: _Kinds,
          facts: TrailerFacts) -> EntryChange | None:
    (source, was), (target, now) = old, new
    if source == target and was.text.rstrip() == now.text.rstrip():
        return None
    changes = field_changes(was, now)
    detail = ""
    status: EntryStatus
    gained = _conflict_ids(now) - _conflict_ids(was)
    if gained:
        status, detail = CONFLICT, _conflict_detail(gained)
    elif source != target and kinds.archived(target) and not kinds.archived(source):
        newer = facts.superseded_by.get(entry) or (now.field("Superseded-by") or "").split(" ")[0]
        if newer and was.field("Superseded-by") is None:
            status, detail = SUPERSEDED, f"by {newer}"
        else:
            status, detail = ARCHIVED, facts.archived.get(entry, "")
    elif source != target and kinds.kind(source) == JOURNAL and not kinds.archived(source) \
            and kinds.kind(target) in (CATEGORY, EXPERIENCE):
        status, detail = PROMOTED, facts.promoted.get(entry, "")
    elif source != target:
        status = MOVED
    elif now.proven and not was.proven:
        status = PROVEN
    else:
        status = EDITED
    return EntryChange(entry, now.title, status, source, target, now.line_no, detail, tuple(changes))


def _gone(entry: str, source: str, was: Record, facts: TrailerFacts, lost: Mapping[str, tuple[str, int]],
          places: Mapping[str, Sequence[EntryPlace]], naming: Mapping[str, tuple[str, str]]) -> EntryChange:
    def change(status: EntryStatus, detail: str, target: str | None = None) -> EntryChange:
        return EntryChange(entry, was.title, status, source, target, was.line_no, detail)

    if entry in lost:
        return change(LOSS, "no record of where it went")
    if entry in facts.forgotten:
        return change(FORGOTTEN, facts.forgotten[entry])
    field, owner = naming.get(entry, ("", ""))
    if entry in facts.merged_into or field == "Merged":
        return change(MERGED, f"into {facts.merged_into.get(entry) or owner}")
    if entry in facts.superseded_by or field == "Supersedes":
        return change(SUPERSEDED, f"by {facts.superseded_by.get(entry) or owner}")
    found = list(places.get(entry, ()))
    kept = next((place for place in found if not place.named), None)
    if kept is not None:
        return change(REMOVED, f"a copy stays at {kept.path}:{kept.line}", kept.path)
    named = next(iter(found), None)
    return change(REMOVED, f"named at {named.path}:{named.line}" if named else "")


def _new(entry: str, target: str, now: Record, facts: TrailerFacts) -> EntryChange:
    """An entry only on the new side: added, imported (an `Apm-Import`), or promoted from a free-form
    dated section of a journal (an `Apm-Promote`; the section's heading is in its `Source:`)."""
    if _conflict_ids(now):
        return EntryChange(entry, now.title, CONFLICT, None, target, now.line_no, _conflict_detail(_conflict_ids(now)))
    if entry in facts.imported:
        return EntryChange(entry, now.title, IMPORTED, None, target, now.line_no, "")
    if entry in facts.promoted and _source_heading(now):
        return EntryChange(entry, now.title, PROMOTED, facts.promoted_from.get(entry), target, now.line_no,
                           facts.promoted[entry])
    return EntryChange(entry, now.title, ADDED, None, target, now.line_no, "")


def _conflict_ids(record: Record) -> set[str]:
    return set(conflict_ids(record))


def _conflict_detail(ids: set[str]) -> str:
    return f"in conflict with {', '.join(sorted(ids))}"


def _source_heading(record: Record) -> str | None:
    """The free-form heading a record was made from: its `Source: heading "## …"` (apm-git import, deep sleep)."""
    match = _SOURCE_HEADING.fullmatch(record.field("Source") or "")
    return match[1] if match else None


def field_changes(was: Record, now: Record) -> list[FieldChange]:
    """What changed in an entry, field by field (the Fitness field value by value)."""
    changes = []
    if was.proven != now.proven:
        changes.append(FieldChange("proven", _yes(was.proven), _yes(now.proven)))
    if was.tags != now.tags:
        changes.append(FieldChange("tags", was.field("Tags"), now.field("Tags")))
    old_fitness, new_fitness = _pairs(was.field("Fitness")), _pairs(now.field("Fitness"))
    for key in [*FITNESS_KEYS, *sorted((old_fitness.keys() | new_fitness.keys()) - set(FITNESS_KEYS))]:
        if old_fitness.get(key) != new_fitness.get(key):
            changes.append(FieldChange(key, old_fitness.get(key), new_fitness.get(key)))
    if was.body != now.body:
        changes.append(FieldChange("body", was.field("Body"), now.field("Body"),
                                   tuple(word_diff(was.body, now.body))))
    for name in OPTIONAL_FIELDS:
        if was.field(name) != now.field(name):
            changes.append(FieldChange(name.lower(), was.field(name), now.field(name)))
    old_details, new_details = "\n".join(was.extra_lines), "\n".join(now.extra_lines)
    if old_details != new_details:
        changes.append(FieldChange("details", old_details or None, new_details or None,
                                   tuple(word_diff(old_details, new_details))))
    if not changes and _layout(was) != _layout(now):
        changes.append(FieldChange("layout", None, None))  # line ends, blank lines, a field's spacing
    return changes


def _layout(record: Record) -> str:
    return record.text.rstrip()


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _pairs(raw: str | None) -> dict[str, str]:
    """The `key=value` pairs of a Fitness field, read leniently (a malformed one still diffs)."""
    pairs: dict[str, str] = {}
    for part in (raw or "").split(","):
        key, equals, value = part.partition("=")
        if equals:
            pairs[key.strip()] = value.strip()
    return pairs


def _sections(parsed: Sequence[tuple[FileChange, RecordFile | None, RecordFile | None]],
              kinds: _Kinds) -> list[SectionChange]:
    """Free-form sections (headings that are no entry) added, removed or changed, by heading; one
    removed from a file and added to another with the same heading and text was moved."""
    found: list[SectionChange] = []
    removed: dict[tuple[str, str], int] = {}  # (heading, text) -> its place in `found`
    added: list[tuple[int, str]] = []
    for change, old, new in parsed:
        if kinds.generated(change.path):
            continue  # INDEX.md is rewritten whole by apm-git: its line count says enough
        was, now = _free_form(old), _free_form(new)
        for key in [*was, *(key for key in now if key not in was)]:
            before, after = was.get(key), now.get(key)
            if before is not None and after is not None:
                if before.rstrip() != after.rstrip():  # a blank line more before the next heading is no change
                    found.append(SectionChange(change.path, key[0], "changed", None,
                                               count_lines(before), count_lines(after)))
            elif key[0] == PREAMBLE:
                continue  # the title of a file added or deleted whole: the file list says so
            elif before is not None:
                removed.setdefault((key[0], before), len(found))
                found.append(SectionChange(change.old_path or change.path, key[0], "removed", None,
                                           count_lines(before), 0))
            elif after is not None:
                added.append((len(found), after))
                found.append(SectionChange(change.path, key[0], "added", None, 0, count_lines(after)))
    dropped = set()
    for place, text in added:
        section = found[place]
        origin = removed.pop((section.heading, text), None)
        if origin is not None and found[origin].file != section.file:
            found[place] = dataclasses.replace(section, status="moved", source=found[origin].file,
                                               lines_before=found[origin].lines_before)
            dropped.add(origin)
    return [section for place, section in enumerate(found) if place not in dropped]


def _free_form(parsed: RecordFile | None) -> dict[tuple[str, int], str]:
    """(heading, occurrence) -> text of each free-form section; the preamble when it holds anything."""
    if parsed is None:
        return {}
    found: dict[tuple[str, int], str] = {}
    if parsed.preamble.text.strip():
        found[(PREAMBLE, 0)] = parsed.preamble.text
    seen: dict[str, int] = {}
    for block in parsed.blocks:
        if _is_entry(block):
            continue
        heading = strip_eol(block.heading)
        seen[heading] = seen.get(heading, -1) + 1
        found[(heading, seen[heading])] = block.text
    return found


def _file_summary(change: FileChange, config: Config, kinds: _Kinds) -> ReviewedFile:
    budget = config.budget_for(kinds.rel(change.path)) if change.path.endswith(".md") else None
    moved = 0
    if change.whole_move and change.after is not None:
        moved = sum(1 for block in parse(change.after).blocks if _is_entry(block))
    return ReviewedFile(
        change.path, change.old_path if change.old_path != change.path else None, change.status,
        None if change.before is None else count_lines(change.before),
        None if change.after is None else count_lines(change.after),
        budget, moved, change.note,
    )
