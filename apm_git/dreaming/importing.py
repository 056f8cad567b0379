"""`apm-git import`, planned and carried out on texts: free-form dated sections and session notes become records.

What is imported, in place (the text stays in its file, where it was):
- in a journal, each dated section (`## 2026-04-01 — Title`) becomes the record deep sleep would
  read it as (apm_git.dreaming.items.dated_record: every line under the heading kept verbatim, the
  heading in `Source:`), and each labelled line of `## HH:MM — Session Notes` becomes a record placed
  right after its notes, the labelled line and its continuation lines kept verbatim as its longer body
  (the notes' heading and other lines stay);
- in a category file (decisions.md, …), each dated section becomes a record of the kind routed to
  that file.
Nothing else is touched: records, ordinary sections, Light Sleep blocks.  An item whose entry id is
already used (anywhere in the memory or earlier in the same import) is skipped, with the reason.
No line is dropped: each line of a file before the import is in it afterwards (a dated heading inside
the `Source:` field of its record).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any, Final

from apm_git.dreaming.edit import keep_end, rewrite
from apm_git.dreaming.items import NOTE_VALUE, collect_items, dated_record
from apm_git.dreaming.plan_shape import IMPORT_PLAN
from apm_git.errors import PlanRefused
from apm_git.model import dated
from apm_git.model.fitness import Fitness
from apm_git.model.limits import MAX_FILE_BYTES, megabytes
from apm_git.model.records import (
    Block,
    Record,
    RecordFile,
    count_lines,
    parse,
    render_record,
    reparse,
    split_lines,
    strip_eol,
)
from apm_git.model.sections import DATED, section_kind

STAGE: Final = "import"
BudgetFor = Callable[[str], int | None] | None  # a file's line budget by memory-relative path
FORMS = {DATED: "dated section", "note": "session note"}


@dataclasses.dataclass(frozen=True)
class ImportItem:
    entry_id: str
    file: str  # memory-relative
    line: int  # 1-based: the dated heading, or the session-note line
    form: str  # "dated" or "note"
    kind: str
    title: str


@dataclasses.dataclass(frozen=True)
class Skipped:
    file: str
    line: int
    reason: str


@dataclasses.dataclass
class ImportPlan:
    day: dt.date
    items: list[ImportItem] = dataclasses.field(default_factory=list)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class _Source:
    item: ImportItem
    block: int
    offsets: tuple[int, ...]  # () for a whole dated section
    record: Record


def plan_import(files: Mapping[str, str], routing: Mapping[str, str], taken: Mapping[str, str],
                today: dt.date, budget_for: BudgetFor = None) -> ImportPlan:
    """`files`: texts of the journals and category files by memory-relative path; `routing`: kind -> file;
    `taken`: entry id -> where it already is; `budget_for`: a file's line budget (None: none)."""
    plan = ImportPlan(today)
    sources = _sources(files, routing, taken, plan.skipped)
    fitting = _within_budgets(sources, files, budget_for, plan.skipped)
    by_file: dict[str, list[tuple[_Source, str]]] = {}
    for source in fitting:
        by_file.setdefault(source.item.file, []).append((source, source.item.kind))
    too_large = _too_large(files, by_file)
    for name, size in too_large.items():
        plan.skipped.append(Skipped(name, 1, _too_large_reason(size)))
    plan.items += [source.item for source in fitting if source.item.file not in too_large]
    return plan


def execute_import(plan: ImportPlan, files: Mapping[str, str], routing: Mapping[str, str],
                   taken: Mapping[str, str], budget_for: BudgetFor = None) -> dict[str, str]:
    """The new texts of the files the plan imports from; a plan that no longer matches them, or that would
    take a file past what `room` allows it, is refused."""
    found = {(s.item.file, s.item.entry_id): s for s in _sources(files, routing, taken, [])}
    chosen: dict[str, list[tuple[_Source, str]]] = {}
    problems = []
    for item in plan.items:
        source = found.get((item.file, item.entry_id))
        if source is None:
            problems.append(f"{item.entry_id}: no such section in {item.file} now")
        else:  # its kind is one of the kinds: import_from_json read it so
            chosen.setdefault(item.file, []).append((source, item.kind))
    if problems:
        raise PlanRefused("; ".join(problems) + "; nothing was changed — print a fresh plan with "
                          "`apm-git import --plan`")
    writes = {}
    for name, sources in chosen.items():
        writes[name] = _imported(files[name], sources)
        budget = budget_for(name) if budget_for else None
        limit = room(files[name], budget)
        if budget is not None and limit is not None and count_lines(writes[name]) > limit:
            problems.append(f"importing {len(sources)} section(s) into {name} would make it "
                            f"{count_lines(writes[name])} lines, past {_room_words(files[name], budget)}")
    if problems:
        raise PlanRefused("; ".join(problems) + "; nothing was changed — drop items from the plan, or print a "
                          "fresh one with `apm-git import --plan`")
    too_large = {name: size for name, text in writes.items() if (size := _size(text)) > MAX_FILE_BYTES}
    if too_large:
        name, size = next(iter(too_large.items()))
        raise PlanRefused(f"importing into {name} {_too_large_reason(size)}; nothing was changed")
    return writes


def room(text: str, budget: int | None) -> int | None:
    """The most lines an import leaves a file with: its budget, or as many as it has when it is over its
    budget already (adopted so, and known to the baseline): import never makes such a file longer."""
    return None if budget is None else max(budget, count_lines(text))


def _room_words(text: str, budget: int) -> str:
    lines = count_lines(text)
    if lines > budget:
        return f"the {lines} lines it has (over its budget of {budget} already: import never makes it longer)"
    return f"its budget of {budget} lines"


def _imported(text: str, sources: list[tuple[_Source, str]]) -> str:
    parsed = parse(text)
    return keep_end(text, rewrite(parsed, _replacements(parsed, sources)))


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _too_large(files: Mapping[str, str], chosen: Mapping[str, list[tuple[_Source, str]]]) -> dict[str, int]:
    """The files the import would take past MAX_FILE_BYTES, which every command then skips unread, and their
    size after it.  A record is a few lines longer than the section it replaces (and its Body repeats the
    section's first line), so a file of thousands of short dated sections grows several times over."""
    found = {}
    for name, sources in chosen.items():
        # Each record stands in for (part of) its section, so the file grows by less than the records'
        # size (a margin for the kind in Tags and the blank line after each): rendered only past the limit.
        most = _size(files[name]) + sum(_size("".join(source.record.lines)) + 64 for source, _ in sources)
        if most > MAX_FILE_BYTES and (size := _size(_imported(files[name], sources))) > MAX_FILE_BYTES:
            found[name] = size
    return found


def _too_large_reason(size: int) -> str:
    return (f"would make it {megabytes(size)}, past the {megabytes(MAX_FILE_BYTES)} apm-git reads (search, load "
            "and the checks would skip it); split the file into smaller ones first (by month, say), then import")


def _within_budgets(sources: list[_Source], files: Mapping[str, str], budget_for: BudgetFor,
                    skipped: list[Skipped]) -> list[_Source]:
    """The sources that fit their file's `room`, in file order; the rest skipped, with the reason.  A block's
    growth is measured as each source joins it; the file's final count (its end kept) is checked at the end."""
    if budget_for is None:
        return sources
    fitting: list[_Source] = []
    for name in dict.fromkeys(source.item.file for source in sources):
        budget = budget_for(name)
        limit = room(files[name], budget)
        mine = [source for source in sources if source.item.file == name]
        if budget is None or limit is None:
            fitting += mine
            continue
        parsed = parse(files[name])
        lines = count_lines(files[name])
        blocks: dict[int, list[_Source]] = {}
        chosen = []
        for source in mine:
            now = blocks.get(source.block, [])
            growth = _growth(parsed, [*now, source]) - _growth(parsed, now)
            if lines + growth <= limit:
                lines += growth
                blocks[source.block] = [*now, source]
                chosen.append(source)
        while chosen and count_lines(_imported(files[name], [(s, s.item.kind) for s in chosen])) > limit:
            chosen.pop()  # the file's end, kept as it was, took a line more than the blocks said
        fitting += chosen
        # Once per file, not per source: a journal of 100,000 short sections was counted 100,000 times over.
        why = f"no room: its record would take the file past {_room_words(files[name], budget)}"
        taken = {id(source) for source in chosen}
        skipped += [Skipped(name, source.item.line, why) for source in mine if id(source) not in taken]
    return fitting


def _growth(parsed: RecordFile, sources: list[_Source]) -> int:
    """How many lines importing `sources` (all of one block) adds to the block."""
    if not sources:
        return 0
    index = sources[0].block
    block = _replacements(parsed, [(source, source.item.kind) for source in sources])[index]
    assert block is not None
    return len(block.lines) - len(parsed.blocks[index].lines)


def _replacements(parsed: RecordFile, sources: list[tuple[_Source, str]]) -> dict[int, Block | None]:
    newline = parsed.newline
    by_block: dict[int, list[tuple[_Source, str]]] = {}
    for source, kind in sources:
        by_block.setdefault(source.block, []).append((source, kind))
    replace: dict[int, Block | None] = {}
    for index, group in by_block.items():
        block = parsed.blocks[index]
        records = [_with_kind(source.record, kind, newline) for source, kind in group]
        if not group[0][0].offsets:  # a dated section: the record stands in its place
            lines = split_lines(records[0])
        else:  # session notes: the rest of the notes, then a record per item
            taken = {offset for source, _ in group for offset in source.offsets}
            kept = [line for offset, line in enumerate(block.lines) if offset not in taken]
            if kept and not kept[-1].endswith("\n"):
                kept[-1] += newline
            if kept and strip_eol(kept[-1]).strip():
                kept.append(newline)
            lines = kept + split_lines("".join(records))
        replace[index] = Block(lines, block.line_no)
    return replace


def _with_kind(record: Record, kind: str, newline: str) -> str:
    lines = [strip_eol(line) for line in record.lines]
    tags = next(field for field in record.fields if field.name == "Tags")
    lines[tags.offset] = f"- Tags: {kind}"
    while lines and not lines[-1].strip():
        lines.pop()
    return newline.join(lines) + newline + newline


def _sources(files: Mapping[str, str], routing: Mapping[str, str], taken: Mapping[str, str],
             skipped: list[Skipped]) -> list[_Source]:
    kind_of_file: dict[str, str] = {}
    for kind, name in routing.items():
        kind_of_file.setdefault(name, kind)
    seen: dict[str, str] = {}
    found = []
    for name in sorted(files):
        parsed = parse(files[name])
        day = dated.journal_date(name)
        if day is not None:
            candidates = _journal_sources(name, day, parsed)
        elif name in kind_of_file:
            candidates = _category_sources(name, parsed, kind_of_file[name])
        else:
            continue
        for source in candidates:
            item = source.item
            where = taken.get(item.entry_id) or seen.get(item.entry_id)
            if where is not None:
                skipped.append(Skipped(name, item.line, f"entry id {item.entry_id} is already used in {where}"))
                continue
            seen[item.entry_id] = f"{name}:{item.line}"
            found.append(source)
    return found


def _journal_sources(name: str, day: dt.date, parsed: RecordFile) -> list[_Source]:
    found = []
    newline = parsed.newline
    for item in collect_items(name, day, parsed):
        block = parsed.blocks[item.place.block]
        if item.form == DATED:
            record = dated_record(block, newline=newline)
            assert record is not None
            found.append(_Source(ImportItem(item.entry_id, name, block.line_no, DATED, item.kind, item.title),
                                 item.place.block, (), record))
        elif item.form == "note":
            original = [strip_eol(block.lines[offset]) for offset in item.place.lines]
            rendered = render_record(day, item.title, [item.kind], Fitness(day, 0, NOTE_VALUE), item.record.body,
                                     extra_lines=original, newline=newline)
            line = block.line_no + item.place.lines[0]
            found.append(_Source(ImportItem(item.entry_id, name, line, "note", item.kind, item.title),
                                 item.place.block, item.place.lines, reparse(split_lines(rendered))))
    return found


def _category_sources(name: str, parsed: RecordFile, kind: str) -> list[_Source]:
    found = []
    for index, block in enumerate(parsed.blocks):
        if section_kind(block) != DATED:
            continue
        record = dated_record(block, kind, parsed.newline)
        if record is not None:
            found.append(_Source(ImportItem(record.id, name, block.line_no, DATED, kind, record.title),
                                 index, (), record))
    return found


# --------------------------------------------------------------------------- JSON and trailers


def import_from_json(data: Any, prefix: str, today: dt.date) -> ImportPlan:
    """A (possibly edited: items dropped, kinds changed) plan as printed by `import --plan`; its shape only
    (plan_shape.IMPORT_PLAN): `execute_import` checks it against the files."""
    plan = ImportPlan(today)
    for item in IMPORT_PLAN.read(data, prefix)["import"]:
        plan.items.append(ImportItem(item["id"], item["file"], item["line"], item["form"], item["kind"], item["title"]))
    return plan


def import_trailers(plan: ImportPlan, prefix: str) -> list[tuple[str, str]]:
    return [
        ("Apm-Import", f"{i.entry_id} {prefix}/{i.file}:{i.line} ({FORMS.get(i.form, i.form)}, {i.kind})")
        for i in plan.items
    ]
