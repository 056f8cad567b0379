"""Carry out a deep-sleep plan on the texts (pure), and check an edited plan before that.

The plan may come from `deep-sleep --plan` through an agent's hands, so every id, file and
target is checked against the memory as it is now; a plan with any problem is refused whole.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import TypeVar

from apm_git.dreaming.archive import add_to_archive, archived
from apm_git.dreaming.edit import append_records, keep_end, rewrite, without_lines
from apm_git.dreaming.items import JournalItem, collect_items
from apm_git.dreaming.plan import Archival, DeepSleepPlan, Promotion
from apm_git.dreaming.plan_deep_sleep import NEVER_PROMOTED, Memory, promoted_record
from apm_git.dreaming.score import fitness_of, protected, record_score
from apm_git.model import dated, names
from apm_git.model.config import Config
from apm_git.model.records import Block, Record, RecordFile, count_lines, newline_of, parse

_Action = TypeVar("_Action", Promotion, Archival)
ARCHIVE_MONTH = re.compile(rf"{names.ARCHIVE}/\d{{4}}-\d{{2}}\.md")


@dataclasses.dataclass
class Changes:
    """New texts by memory-relative path, and whole-file moves (source, target).

    `read` holds the text each written or moved file had when the run was planned ("" for a
    file that did not exist): a file that no longer has it was edited meanwhile, and the run
    must not overwrite that edit.
    """

    writes: dict[str, str] = dataclasses.field(default_factory=dict)
    moves: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    read: dict[str, str] = dataclasses.field(default_factory=dict)


def execute_deep_sleep(plan: DeepSleepPlan, memory: Memory, config: Config, archive_texts: dict[str, str | None],
                       ) -> Changes:
    changes = Changes()
    journals = {name: parse(text) for name, text in memory.journals.items()}
    drops: dict[str, dict[int, set[int] | None]] = {}  # journal -> block -> lines to drop (None: the block)
    additions: dict[str, list[Record]] = {}
    for promotion in plan.promotions:
        item, copies = _occurrences(promotion.entry_id, promotion.source, promotion.copies, journals)
        assert item is not None
        for occurrence in (item, *copies):
            _drop(drops.setdefault(occurrence.journal, {}), occurrence)
        source = names.repo_rel(config.memory_dir, promotion.source)
        additions.setdefault(promotion.target, []).append(promoted_record(item, tuple(copies), source))
    for name, blocks in drops.items():
        parsed = journals[name]
        replace: dict[int, Block | None] = {
            index: None if lines is None else without_lines(parsed.blocks[index], lines)
            for index, lines in blocks.items()
        }
        changes.writes[name] = keep_end(memory.journals[name], rewrite(parsed, replace))
    categories = {name: memory.categories.get(name, "") for name in set(additions) | {a.source for a in plan.archivals}}
    archive_additions = _take_archived(plan.archivals, categories, plan.day, config)
    for name, records in additions.items():
        text = categories[name]
        categories[name] = append_records(text, records, newline_of(text))
    changes.writes.update(categories)
    for target, texts in archive_additions.items():
        changes.writes[target] = add_to_archive(archive_texts.get(target), target, texts)
    changes.moves = [(move.source, move.target) for move in plan.journal_moves]
    before = {**archive_texts, **memory.categories, **memory.journals}
    changes.read = {name: before.get(name) or "" for name in [*changes.writes, *(move[0] for move in changes.moves)]}
    return changes


def _take_archived(
    archivals: list[Archival], categories: dict[str, str], today: dt.date, config: Config,
) -> dict[str, list[str]]:
    """Remove archived entries from their files (in `categories`); the records for each archive file."""
    found: dict[str, list[str]] = {}
    for source in sorted({a.source for a in archivals}):
        parsed = parse(categories[source])
        going = {a.entry_id: a for a in archivals if a.source == source}
        replace: dict[int, Block | None] = {}
        for index, block in enumerate(parsed.blocks):
            if isinstance(block, Record) and block.ok and block.id in going and index not in replace:
                archival = going.pop(block.id)
                replace[index] = None
                found.setdefault(archival.target, []).append(archived(
                    block, fitness_of(block), today, archival.score, names.repo_rel(config.memory_dir, source),
                    archival.superseded_by,
                ))
        categories[source] = rewrite(parsed, replace)
    return found


def _drop(blocks: dict[int, set[int] | None], item: JournalItem) -> None:
    if not item.place.lines:
        blocks[item.place.block] = None
        return
    current = blocks.setdefault(item.place.block, set())
    if current is not None:
        current.update(item.place.lines)


def _occurrences(
    entry_id: str, source: str, copies: tuple[str, ...], journals: dict[str, RecordFile],
) -> tuple[JournalItem | None, list[JournalItem]]:
    """The promoted item in `source`, and its identical copies there and in the `copies` journals."""
    def items_of(name: str) -> list[JournalItem]:
        day = dated.journal_date(name)
        if day is None or name not in journals:
            return []
        return [item for item in collect_items(name, day, journals[name]) if item.entry_id == entry_id]

    found = items_of(source)
    if not found:
        return None, []
    item = found[0]
    same = [other for other in found[1:] if other.content_key == item.content_key]
    for name in copies:
        same += [other for other in items_of(name) if other.content_key == item.content_key]
    return item, same


def validate(plan: DeepSleepPlan, memory: Memory, config: Config) -> list[str]:
    """Every reason to refuse the plan's ids, files and targets; empty when it can be carried out
    (then `budget_problems` checks what carrying it out does to the budgets)."""
    journals = {name: parse(text) for name, text in memory.journals.items()}
    problems = _promotion_problems(plan, memory, config, journals)
    problems += _archival_problems(plan, memory, config)
    problems += _move_problems(plan, memory, config, journals)
    return problems


def _promotion_problems(
    plan: DeepSleepPlan, memory: Memory, config: Config, journals: dict[str, RecordFile],
) -> list[str]:
    problems: list[str] = []
    prefix = config.memory_dir
    categories = set(config.routing.values())
    for p in _once_each(plan.promotions, "promoted", problems):
        where = f"promote {p.entry_id}"
        if p.source not in journals:
            problems.append(f"{where}: {prefix}/{p.source} is not a live journal")
            continue
        item, copies = _occurrences(p.entry_id, p.source, p.copies, journals)
        if item is None:
            problems.append(f"{where}: no such entry in {prefix}/{p.source}")
            continue
        if item.kind in NEVER_PROMOTED:
            problems.append(f"{where}: {item.kind} items are never promoted")
        if p.target not in categories:
            problems.append(f"{where}: target {prefix}/{p.target} is not a category file "
                            f"(one of {', '.join(sorted(categories))})")
        if p.entry_id in memory.taken:
            problems.append(f"{where}: the id is already used in {memory.taken[p.entry_id]}")
        found = {copy.journal for copy in copies}
        problems += [f"{where}: {prefix}/{name} holds no identical copy" for name in p.copies if name not in found]
    return problems


def _archival_problems(plan: DeepSleepPlan, memory: Memory, config: Config) -> list[str]:
    problems: list[str] = []
    prefix = config.memory_dir
    for a in _once_each(plan.archivals, "archived", problems):
        where = f"archive {a.entry_id}"
        if a.source not in set(config.routing.values()):
            problems.append(f"{where}: {prefix}/{a.source} is not a category file")
            continue
        if not ARCHIVE_MONTH.fullmatch(a.target):
            problems.append(f"{where}: target {prefix}/{a.target} is not {prefix}/archive/YYYY-MM.md")
        record = next((r for r in parse(memory.categories.get(a.source, "")).entries if r.id == a.entry_id), None)
        if record is None:
            problems.append(f"{where}: no such entry in {prefix}/{a.source}")
        elif protected(record):
            problems.append(f"{where}: proven entries and entries in conflict are never archived for room")
    return problems


def _move_problems(plan: DeepSleepPlan, memory: Memory, config: Config, journals: dict[str, RecordFile]) -> list[str]:
    problems = []
    prefix = config.memory_dir
    touched = {name for p in plan.promotions for name in (p.source, *p.copies)}
    for move in plan.journal_moves:
        where = f"move {prefix}/{move.source}"
        if move.source not in journals:
            problems.append(f"{where}: not a live journal")
        elif move.target != f"{names.ARCHIVED_JOURNALS}/{move.source}":
            problems.append(f"{where}: a journal moves only to {prefix}/{names.ARCHIVED_JOURNALS}/{move.source}")
        elif move.source in memory.archived_journals:
            problems.append(f"{where}: {prefix}/{move.target} already exists")
        elif move.source in touched:
            problems.append(f"{where}: entries are promoted from it in the same run; move it in the next one")
    return problems


def _once_each(actions: list[_Action], verb: str, problems: list[str]) -> list[_Action]:
    """The actions, each id once; a second action on an id is a problem."""
    seen: set[str] = set()
    for action in actions:
        if action.entry_id in seen:
            problems.append(f"{action.entry_id}: the id is {verb} twice")
        seen.add(action.entry_id)
    return actions


def rescored(plan: DeepSleepPlan, memory: Memory, config: Config) -> DeepSleepPlan:
    """The plan with each archival's score computed from its record (an edited plan's number is not trusted)."""
    records = {
        (name, record.id): record
        for name in {a.source for a in plan.archivals}
        for record in parse(memory.categories.get(name, "")).entries
    }
    plan.archivals = [
        dataclasses.replace(a, score=record_score(records[a.source, a.entry_id], plan.day, config.rem))
        for a in plan.archivals
    ]
    return plan


def budget_problems(plan: DeepSleepPlan, memory: Memory, config: Config, changes: Changes) -> list[str]:
    """The category files that the plan's promotions (carried out as `changes`) would leave over budget and
    longer than they were (a file over its budget already is never made longer, whatever makes it so)."""
    problems = []
    for name in sorted({p.target for p in plan.promotions}):
        budget = config.budget_for(name)
        before = count_lines(memory.categories.get(name, ""))
        after = count_lines(changes.writes[name])
        if budget is not None and after > budget and after > before:
            problems.append(
                f"promotions would put {config.memory_dir}/{name} over its budget ({after} > {budget} lines); "
                "add archive moves or drop promotions",
            )
    return problems
