"""Deep sleep (docs/design.md 6), planned: which journal items to promote, where, and which journals to archive.

An item is promoted when it is
- `referenced`: its entry id is in the journals of two or more days, or it was used
  (`last_referenced`) on a day after its own;
- `high-value`: `decision_value=HIGH`;
- `lesson`: its kind is lesson;
- `decision`: its kind is decision and its value MEDIUM (a decision has ongoing value unless LOW);
- `recurring`: another entry with a similar title (apm_git.model.titles) is in a journal of
  another day at most `deep_sleep.look_back_days` away, or already in a category file.
`pending` and `anchor` items are never promoted: they stay until their journal is archived;
nor is an OpenClaw Light Sleep candidate of confidence below 0.8 (value LOW).
The first occurrence of an id (oldest journal, first in file) is the one promoted; identical
copies of it (same id and text) go with it; a copy with other text stays where it is.

A category file never ends over its line budget because of a promotion: when the promoted
records would pass it, the file's entries and the new records compete by score
(apm_git.dreaming.score); the lowest go first (an old entry to the archive, a new one stays
in its journal for now), never a proven entry or one in conflict.  A file that no archival
could bring within its budget (its prose alone, lines outside records that consolidation never
moves, or its prose and protected entries pass it) takes no promotion and loses nothing: it is
never made longer (issue 23: a 256-line prose people.md grew to 405).  A journal more than
`journals.archive_after_days` old that this run takes nothing from moves whole to
`archive/journals/`, on schedule, items kept out for room and all: the plan says so for each,
and the commit carries an `Apm-Finding` per file that had no room.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping

from apm_git.dreaming.edit import LinesAfterEdit, record_text
from apm_git.dreaming.items import JournalItem, collect_items
from apm_git.dreaming.plan import Archival, DeepSleepPlan, JournalMove, Kept, Promotion
from apm_git.dreaming.score import budget_order, protected, record_score
from apm_git.dreaming.titleindex import TitleIndex
from apm_git.model import dated, names
from apm_git.model.config import Config
from apm_git.model.fitness import VALUES, Fitness
from apm_git.model.records import Record, RecordFile, parse, set_field, split_lines
from apm_git.model.sections import LIGHT_SLEEP
from apm_git.model.titles import title_words

NEVER_PROMOTED = ("pending", "anchor")


@dataclasses.dataclass(frozen=True)
class Memory:
    """What deep sleep reads: live journals and category files, and the ids used elsewhere."""

    journals: Mapping[str, str]  # live journal name -> text
    categories: Mapping[str, str]  # category file -> text ("" when absent)
    taken: Mapping[str, str]  # entry id -> file, for every entry outside the live journals
    archived_journals: frozenset[str] = frozenset()  # names already in archive/journals/

    def items(self) -> dict[str, list[JournalItem]]:
        found = {}
        for name in sorted(self.journals):
            day = dated.journal_date(name)
            assert day is not None, name
            found[name] = collect_items(name, day, parse(self.journals[name]))
        return found


@dataclasses.dataclass(frozen=True)
class PromotionCandidate:
    item: JournalItem
    copies: tuple[JournalItem, ...]
    target: str
    reasons: tuple[str, ...]


def plan_deep_sleep(memory: Memory, today: dt.date, config: Config) -> DeepSleepPlan:
    plan = DeepSleepPlan(today)
    items = memory.items()
    candidates = _candidates(items, memory, config, plan.kept)
    for target in sorted({candidate.target for candidate in candidates}):
        group = [candidate for candidate in candidates if candidate.target == target]
        _fit(plan, group, target, memory.categories.get(target, ""), today, config)
    touched = {p.source for p in plan.promotions} | {copy for p in plan.promotions for copy in p.copies}
    plan.journal_moves = journal_moves(list(items), touched, memory.archived_journals, today, config)
    moving = {move.source: move.target for move in plan.journal_moves}
    plan.kept = [
        dataclasses.replace(k, reason=f"{k.reason}; it goes to the archive with its journal "
                                      f"({config.memory_dir}/{moving[k.source]})")
        if k.room and k.source in moving else k
        for k in plan.kept
    ]
    return plan


def journal_moves(
    journals: list[str], touched: set[str], archived: frozenset[str], today: dt.date, config: Config,
) -> list[JournalMove]:
    """Old journals this run takes nothing from (so the move is a 100% rename) go to archive/journals/, on
    schedule: an item kept out of a full file goes with its journal, and never keeps it live for good."""
    moves = []
    for name in sorted(journals):
        day = dated.journal_date(name)
        if day is None or (today - day).days <= config.journals.archive_after_days:
            continue
        if name in touched or name in archived:
            continue
        moves.append(JournalMove(name, f"{names.ARCHIVED_JOURNALS}/{name}"))
    return moves


def promoted_record(item: JournalItem, copies: tuple[JournalItem, ...], source: str) -> Record:
    """The record that lands in the category file: copies' fitness folded in, `Source:` set."""
    fitnesses = [item.fitness] + [copy.fitness for copy in copies]
    merged = Fitness(
        max(f.last_referenced for f in fitnesses),
        max(f.hit_count for f in fitnesses),
        min((f.decision_value for f in fitnesses), key=VALUES.index),
    )
    record = item.record
    if merged != item.fitness:
        record = set_field(record, "Fitness", merged.render())
    existing = record.field("Source")
    if existing != source:
        record = set_field(record, "Source", f"{existing}; {source}" if existing else source)
    return record


def _candidates(
    items: dict[str, list[JournalItem]], memory: Memory, config: Config, kept: list[Kept],
) -> list[PromotionCandidate]:
    everything = [item for name in sorted(items) for item in items[name]]
    by_id: dict[str, list[JournalItem]] = {}
    for item in everything:
        by_id.setdefault(item.entry_id, []).append(item)
    journal_titles: TitleIndex[tuple[dt.date, str]] = TitleIndex()
    for item in everything:
        journal_titles.add(title_words(item.title), (item.day, item.entry_id))
    category_titles: TitleIndex[str] = TitleIndex()
    for name, text in memory.categories.items():
        for record in parse(text).entries:
            category_titles.add(title_words(record.title), name)
    candidates = []
    for entry_id, group in by_id.items():
        item = group[0]
        if item.kind in NEVER_PROMOTED:
            continue
        if item.form == LIGHT_SLEEP and item.fitness.decision_value == "LOW":
            continue  # OpenClaw's own low-confidence candidates (most are chat lines) stay in the journal
        copies = tuple(other for other in group[1:] if other.content_key == item.content_key)
        kept += [
            Kept(entry_id, other.journal, f"same id as the entry in {item.journal} with other text")
            for other in group[1:] if other not in copies
        ]
        target = config.routing.get(item.kind)
        if target is None:
            kept.append(Kept(entry_id, item.journal, f"kind {item.kind!r} has no route in apm.yaml routing"))
            continue
        if entry_id in memory.taken:
            kept.append(Kept(entry_id, item.journal, f"the id is already used in {memory.taken[entry_id]}"))
            continue
        words = title_words(item.title)
        reasons = []
        # Used on a later day than its own: the journal's day, or the record's own date when it is later (a
        # dated section written ahead of its journal's name was not used by being dated so).
        own_day = max(item.day, item.record.day or item.day)
        if len({other.day for other in group}) > 1 or item.fitness.last_referenced > own_day:
            reasons.append("referenced")
        if item.fitness.decision_value == "HIGH":
            reasons.append("high-value")
        if item.kind == "lesson":
            reasons.append("lesson")
        if item.kind == "decision" and item.fitness.decision_value == "MEDIUM":
            reasons.append("decision")  # ongoing decision value: every decision but a LOW one (HIGH: high-value)
        window = config.deep_sleep.look_back_days
        others = ((day, other) for day, other in journal_titles.similar(words) if other != entry_id)
        if any(0 < abs((day - item.day).days) <= window for day, _ in others) or any(category_titles.similar(words)):
            reasons.append("recurring")
        if reasons:
            candidates.append(PromotionCandidate(item, copies, target, tuple(reasons)))
    return candidates


def _fit(
    plan: DeepSleepPlan, group: list[PromotionCandidate], target: str, text: str, today: dt.date, config: Config,
) -> None:
    """Promote `group` into `target`, making room by score when the file would pass its budget.

    A promotion never leaves the file over its budget: when archiving every entry that may go (neither
    proven nor in conflict) would still not bring the file within it — its prose alone passes it, or what
    is left is protected — nothing is promoted into it and nothing archived; the candidates wait in their
    journals, which go to the archive on schedule (`journal_moves`) with them."""
    parsed = parse(text)
    records = [promoted_record(c.item, c.copies, names.repo_rel(config.memory_dir, c.item.journal)) for c in group]
    chosen = dict.fromkeys(range(len(group)))
    removed: list[int] = []
    budget = config.budget_for(target)
    lines = LinesAfterEdit(parsed, records, parsed.newline)
    where = f"{config.memory_dir}/{target}"
    if budget is not None and lines.count > budget:
        movable = [index for index, block in enumerate(parsed.blocks)
                   if isinstance(block, Record) and block.ok and not protected(block)]
        full = _no_room(parsed, movable, min(records, key=lambda record: len(record.lines)), budget)
        if full is not None:
            plan.kept += [Kept(c.item.entry_id, c.item.journal, f"no room in {where}: {full}", room=target)
                          for c in group]
            return
        pool: list[tuple[tuple[int, str, str, str], int, int]] = [
            (budget_order(_record(parsed, index), today, config.rem), 0, index) for index in movable
        ]
        pool += [(budget_order(record, today, config.rem), 1, index) for index, record in enumerate(records)]
        for _, is_new, index in sorted(pool):
            if lines.count <= budget:
                break
            if is_new:
                del chosen[index]
                lines.take_back(index)
                candidate = group[index]
                plan.kept.append(Kept(candidate.item.entry_id, candidate.item.journal,
                                      f"no room in {where} (budget {budget} lines)",
                                      room=target))
            else:
                removed.append(index)
                lines.remove(index)
        if not chosen:
            removed = []  # no newcomer fits after all: nothing is archived for it
    for index in chosen:
        candidate = group[index]
        plan.promotions.append(Promotion(
            candidate.item.entry_id, candidate.item.journal, target, ", ".join(candidate.reasons),
            tuple(dict.fromkeys(copy.journal for copy in candidate.copies if copy.journal != candidate.item.journal)),
        ))
    for index in removed:
        record = _record(parsed, index)
        plan.archivals.append(Archival(
            record.id, target, dated.archive_file(today), record_score(record, today, config.rem), "budget",
        ))


def _no_room(parsed: RecordFile, movable: list[int], smallest: Record, budget: int) -> str | None:
    """Why not even the `smallest` newcomer fits a file with every movable entry archived, or None when it does."""
    floor = LinesAfterEdit(parsed, [smallest], parsed.newline)
    for index in movable:
        floor.remove(index)
    if floor.count <= budget:
        return None
    fix = "trim or split it, or raise its budget in apm.yaml"
    prose = parsed.prose_lines
    if prose >= budget:
        return (f"its {prose} lines of prose alone pass its budget of {budget} lines, and consolidation never "
                f"moves prose ({fix})")
    kept = len(parsed.entries) - len(movable)
    what = f"its {prose} lines of prose" + (f" and {kept} proven or conflicting entr{'y' if kept == 1 else 'ies'}"
                                            if kept else "")
    size = len(split_lines(record_text(smallest)))
    return (f"{what} leave no room for a {size}-line record within its budget of {budget} lines"
            + (", and deep sleep archives neither" if kept else "") + f" ({fix})")


def _record(parsed: RecordFile, index: int) -> Record:
    block = parsed.blocks[index]
    assert isinstance(block, Record)
    return block
