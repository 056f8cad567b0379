"""One entry, three versions: the merged record (docs/merge.md, "Entries").

Fitness merges as counters (`hit_count` = base + both sides' increments, also when both sides
hold the same hit count, `last_referenced` the later, `decision_value` the side that changed it,
the higher when both did);
`[PROVEN]` stays once either side set it; `Tags`, `Merged` and `Conflicts` take the union, item by item
(`Conflicts` items are separated by `;`, the others by `,`), less a `Conflicts` item of the base that
one side removed (a conflict settled there);
the body (`Body` and the lines after the fields) comes from the side that changed it.  When
both changed the body differently the result is two records, linked by `Conflicts:`.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeVar

from apm_git.model.entries import named_ids
from apm_git.model.fitness import VALUES, Fitness
from apm_git.model.records import PROVEN, Record, eol_of, reparse, set_field, strip_eol

T = TypeVar("T")
UNION_FIELDS = ("Tags", "Merged", "Conflicts")
CONFLICT_NOTE = ("both sides of a merge changed this entry's body: settle it with "
                 "`apm-git resolve <this entry's id> --keep this|other|both` (nothing is lost)")
OTHER_TITLE = "(merge: other version)"


@dataclasses.dataclass(frozen=True)
class Hits:
    """Fitness changes of an entry that the other side folded into another (applied to that one)."""

    hits: int = 0
    last_referenced: str = ""

    def plus(self, other: Hits) -> Hits:
        return Hits(self.hits + other.hits, max(self.last_referenced, other.last_referenced))


@dataclasses.dataclass
class Merged:
    record: Record
    other: Record | None = None  # theirs's version when both changed the body: the caller names it


def lines_of(record: Record) -> tuple[str, ...]:
    """A record's lines without line ends or trailing blank lines: what "changed" compares."""
    lines = [strip_eol(line) for line in record.lines]
    while lines and not lines[-1].strip():
        lines.pop()
    return tuple(lines)


def same(one: Record | None, two: Record | None) -> bool:
    if one is None or two is None:
        return one is two
    return lines_of(one) == lines_of(two)


def _body(record: Record) -> tuple[str, tuple[str, ...]]:
    return record.body, tuple(record.extra_lines)


def _three_way(base: T | None, ours: T, theirs: T, both: Callable[[T, T], T]) -> T:
    if ours == theirs:
        return ours
    if base is not None and ours == base:
        return theirs
    if base is not None and theirs == base:
        return ours
    return both(ours, theirs)


def merge_fitness(base: Fitness | None, ours: Fitness, theirs: Fitness, extra: Hits = Hits()) -> Fitness:
    if base is None:
        hits = max(ours.hit_count, theirs.hit_count)
    else:
        hits = base.hit_count + (ours.hit_count - base.hit_count) + (theirs.hit_count - base.hit_count)
    last = max(ours.last_referenced, theirs.last_referenced)
    if extra.last_referenced and extra.last_referenced > last.isoformat():
        last = last.fromisoformat(extra.last_referenced)
    value = _three_way(base.decision_value if base else None, ours.decision_value, theirs.decision_value,
                       lambda one, two: min(one, two, key=VALUES.index))
    return Fitness(last, max(0, hits + extra.hits), value)


def with_hits(record: Record, extra: Hits) -> Record:
    """The record with hits of a folded entry added to its Fitness (as is when it has no readable Fitness)."""
    if extra == Hits():
        return record
    fitness = record.fitness
    if fitness is None:
        return record
    return set_field(record, "Fitness", merge_fitness(fitness, fitness, fitness, extra).render())


def hits_of(base: Record, changed: Record) -> Hits | None:
    """What `changed` did to `base` when it only hit it (Fitness changed, nothing else); None otherwise."""
    old, new = base.fitness, changed.fitness
    if old is None or new is None or not base.ok or not changed.ok:
        return None
    if [line for line in lines_of(base) if not line.startswith("- Fitness:")] != \
            [line for line in lines_of(changed) if not line.startswith("- Fitness:")]:
        return None
    return Hits(new.hit_count - old.hit_count, new.last_referenced.isoformat())


def merge_record(base: Record | None, ours: Record, theirs: Record, *, prefer_theirs: bool = False,
                 extra: Hits = Hits()) -> Merged:
    """The merged entry; `prefer_theirs`: a field other than the body that both sides changed differently
    (Source, Archived, Superseded-by, Supersedes) takes theirs's value (the side whose place the entry keeps)."""
    if (ours.text == theirs.text and not _hit_on_both(base, ours)) or (base is not None and base.text == theirs.text):
        return Merged(with_hits(ours, extra))
    if base is not None and base.text == ours.text:
        return Merged(with_hits(theirs, extra))
    if base is not None and not base.ok:
        base = None if not same(base, ours) and not same(base, theirs) else base
    if not ours.ok or not theirs.ok or (base is not None and not base.ok):
        return _merge_opaque(base, ours, theirs)
    old_body, our_body, their_body = (_body(base) if base else None), _body(ours), _body(theirs)
    clash = our_body != their_body and old_body not in (our_body, their_body)
    template = theirs if old_body is not None and our_body == old_body and their_body != old_body else ours
    record = _with_fields(template, base, ours, theirs, prefer_theirs)
    fitness = merge_fitness(base.fitness if base else None, _fit(ours), _fit(theirs), extra)
    record = set_field(record, "Fitness", fitness.render()) if record.fitness != fitness else record
    proven = _three_way(base.proven if base else None, ours.proven, theirs.proven, lambda one, two: one or two)
    if proven != record.proven:
        record = _heading(record, proven=proven)
    if not clash:
        return Merged(record)
    other = _with_fields(theirs, base, ours, theirs, prefer_theirs)
    other = set_field(other, "Fitness", fitness.render()) if other.fitness != fitness else other
    return Merged(record, _heading(other, proven=proven))


def _hit_on_both(base: Record | None, both: Record) -> bool:
    """Whether two sides that hold the same version `both` each hit the entry: its Fitness is all that
    differs from the base's.  Each side counted its own hits (the same count on the same day gives the
    same text), so they add up.  Any other change made alike on both sides (the same fold, promotion or
    edit, by the same consolidation run on two machines) is one change, taken once."""
    if base is None or base.fitness == both.fitness:
        return False
    return hits_of(base, both) is not None


def _fit(record: Record) -> Fitness:
    fitness = record.fitness
    assert fitness is not None  # well-formed
    return fitness


def _merge_opaque(base: Record | None, ours: Record, theirs: Record) -> Merged:
    """A malformed version: whole records, line for line; both kept when both changed."""
    if same(ours, theirs) or (base is not None and same(base, theirs)):
        return Merged(ours)
    if base is not None and same(base, ours):
        return Merged(theirs)
    return Merged(ours, theirs)


def _field_values(record: Record) -> dict[str, str]:
    values: dict[str, str] = {}
    for field in record.fields:
        values.setdefault(field.name, field.value)
    return values


def _with_fields(template: Record, base: Record | None, ours: Record, theirs: Record, prefer_theirs: bool) -> Record:
    """`template` with every field but Body and Fitness merged."""
    old = _field_values(base) if base else {}
    mine, other = _field_values(ours), _field_values(theirs)
    record = template
    have = _field_values(template)
    for name in dict.fromkeys([*mine, *other, *old]):
        if name in ("Body", "Fitness"):
            continue
        value = _three_way(old.get(name), mine.get(name), other.get(name),
                           _union(name) if name in UNION_FIELDS else (lambda one, two: two if prefer_theirs else one))
        if name == "Merged" and mine.get(name) and other.get(name):
            value = _union(name)(mine[name], other[name])  # never drop a name either side recorded
        elif name == "Conflicts" and mine.get(name) and other.get(name):
            value = _conflicts(old.get(name), mine[name], other[name])
        if value == have.get(name):
            continue
        record = set_field(record, name, value) if value is not None else _without_field(record, name)
    return record


def _union(name: str) -> Callable[[str | None, str | None], str | None]:
    separator = "; " if name == "Conflicts" else ", "

    def both(one: str | None, two: str | None) -> str | None:
        if not one or not two:
            return one or two
        parts = _parts(name, one)
        seen = {_key(name, part) for part in parts}
        for part in _parts(name, two):
            if _key(name, part) not in seen:
                parts.append(part)
                seen.add(_key(name, part))
        return separator.join(parts)

    return both


def _parts(name: str, value: str | None) -> list[str]:
    """The items of a list field: `Conflicts` is split on `;` (its items hold commas), the others on `,`."""
    separator = ";" if name == "Conflicts" else ","
    return [part.strip() for part in (value or "").split(separator) if part.strip()]


def _conflicts(base: str | None, ours: str, theirs: str) -> str | None:
    """Both sides' `Conflicts` items, each once, less an item of the base that either side removed: a
    conflict settled on one side (`apm-git resolve`) stays settled when the other side only hit the entry."""
    removed = {_key("Conflicts", part) for part in _parts("Conflicts", base)} - (
        {_key("Conflicts", part) for part in _parts("Conflicts", ours)}
        & {_key("Conflicts", part) for part in _parts("Conflicts", theirs)})
    both = _parts("Conflicts", _union("Conflicts")(ours, theirs))
    kept = [part for part in both if _key("Conflicts", part) not in removed]
    return "; ".join(kept) or None


def _key(name: str, part: str) -> str:
    """What makes two parts of a union field the same: the id they name (Merged, Conflicts), or the tag."""
    if name == "Tags":
        return part.lower()
    ids = named_ids("Merged", part)
    return ids[0] if ids else part


def _without_field(record: Record, name: str) -> Record:
    lines = [line for offset, line in enumerate(record.lines)
             if not any(field.offset == offset and field.name == name for field in record.fields)]
    return reparse(lines, record.line_no)


def _heading(record: Record, *, proven: bool, title: str | None = None) -> Record:
    mark = f"{PROVEN} " if proven else ""
    lines = list(record.lines)
    lines[0] = f"## [{record.date}] {mark}{title or record.title}" + eol_of(lines[0])
    return reparse(lines, record.line_no)


def renamed(record: Record, title: str) -> Record:
    return _heading(record, proven=record.proven, title=title)


def linked(record: Record, other_id: str) -> Record:
    """The record with `Conflicts: <other id> — …` added to what it lists already."""
    value = f"{other_id} — {CONFLICT_NOTE}"
    existing = record.field("Conflicts")
    return set_field(record, "Conflicts", _union("Conflicts")(existing, value) or value)
