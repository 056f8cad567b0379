"""REM (docs/design.md 6), the survival merge, planned and rendered: a pure function of texts and a date.

In this order, over the live entries of the category files and of each group's
`experience.md` (never the journals):
1. fold duplicates (same title and same body, in the same memory: the category files
   together, or one group): the most complete entry survives with the hit counts summed,
   the latest `last_referenced`, the highest `decision_value`, and `Merged:` naming the
   folded ids (and the ids they had folded before);
2. mark `[PROVEN]` at `rem.proven_hits` hits, raising `decision_value` to HIGH;
3. supersede: of live entries with the same title and different bodies the newest stays,
   and of an explicit `Supersedes: <id>` the entry that names it; the older is archived with
   `Superseded-by:` and the newer gets `Supersedes: <id> — <one line of the old body>`;
4. archive for value (apm_git.dreaming.score.archive_for_value);
5. while a file is over its line budget, archive its lowest-scored entries (lowest score, then
   least recently referenced, then oldest); proven entries only when no other is left, the same
   way; never one in conflict; a file that its prose alone (the lines outside records, which
   consolidation never moves) puts over budget loses no entry for room, unless the run's own edits
   would make it longer than it was: then only as many as keep it from growing.
An entry with a `Conflicts:` field is never folded, superseded or archived, and an entry
promoted in the same run (`fresh`: deep sleep's promotions in one `dream`) is never archived.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Mapping

from apm_git.dreaming.archive import add_to_archive, archived
from apm_git.dreaming.edit import rewrite
from apm_git.dreaming.plan import Archival, Fold, OverBudget, ProvenMark, RemPlan, Supersession
from apm_git.dreaming.score import archive_for_value, budget_order, fitness_of, protected, record_score
from apm_git.model import dated, names
from apm_git.model.config import Config
from apm_git.model.entry_id import ENTRY_ID
from apm_git.model.fitness import VALUES, Fitness
from apm_git.model.records import Block, Record, RecordFile, parse, set_field, set_heading
from apm_git.model.titles import normalize_title

SUMMARY_CHARS = 100
_LEADING_ID = re.compile(rf"\s*({ENTRY_ID.pattern})")


@dataclasses.dataclass
class _Entry:
    file: str
    block: int
    record: Record
    order: int  # position in the scan, for stable ties
    gone: str | None = None  # why it leaves its file: merged, superseded, value or budget
    changed: bool = False
    fitness: Fitness = dataclasses.field(init=False)
    title_key: str = dataclasses.field(init=False)  # the normalized title

    def __post_init__(self) -> None:
        self.fitness = fitness_of(self.record)
        self.title_key = normalize_title(self.record.title)

    @property
    def memory(self) -> str:
        """Which memory the entry belongs to: the category files together, or one group."""
        return self.file.split("/")[1] if self.file.startswith(f"{names.GROUPS}/") else ""

    def update(self, record: Record, fitness: Fitness | None = None) -> None:
        """The record after an edit (`fitness`: its new fitness, when the edit changed it)."""
        self.record = record
        self.fitness = fitness or self.fitness
        self.changed = True


@dataclasses.dataclass
class RemOutcome:
    plan: RemPlan
    writes: dict[str, str]
    read: dict[str, str] = dataclasses.field(default_factory=dict)  # what each write replaces ("": nothing)


def plan_rem(
    files: Mapping[str, str], archive_text: str | None, today: dt.date, config: Config,
    fresh: frozenset[str] = frozenset(),
) -> RemOutcome:
    """`files` are the texts of the scored files by memory-relative path; `archive_text` the month's archive;
    `fresh` the ids promoted earlier in the same run (never archived by it)."""
    parsed, entries = _scan(files)
    plan = RemPlan(today, live=len(entries))
    superseded_by: dict[int, str] = {}
    _fold(entries, plan)
    _mark_proven(entries, plan, config)
    _supersede(entries, plan, superseded_by)
    for entry in entries:
        if entry.gone or entry.record.id in fresh:
            continue
        if archive_for_value(entry.record, today, config.rem, entry.fitness):
            entry.gone = "value"
    _enforce_budgets(entries, parsed, plan, today, config, fresh)
    return _outcome(files, parsed, entries, plan, superseded_by, archive_text, config)


def plan_budget(files: Mapping[str, str], archive_text: str | None, today: dt.date, config: Config) -> RemOutcome:
    """REM's budget step (5 above) alone, over `files` (memory-relative path -> text): what `apm-git sync`
    applies to the files its merge put over their budget, so that the merge commit meets every budget
    that both of its parents met (docs/sync.md).  The same order, the same protections, the same archive
    records and trailers as a REM run; nothing is folded, marked or superseded."""
    parsed, entries = _scan(files)
    plan = RemPlan(today, live=len(entries))
    _enforce_budgets(entries, parsed, plan, today, config, frozenset())
    return _outcome(files, parsed, entries, plan, {}, archive_text, config)


def _scan(files: Mapping[str, str]) -> tuple[dict[str, RecordFile], list[_Entry]]:
    """Each file parsed, and its well-formed records as entries, in file order."""
    parsed = {name: parse(text) for name, text in files.items()}
    entries = [
        _Entry(name, index, block, order)
        for order, (name, index, block) in enumerate(
            (name, index, block)
            for name, doc in parsed.items()
            for index, block in enumerate(doc.blocks)
            if isinstance(block, Record) and block.ok
        )
    ]
    return parsed, entries


def _outcome(
    files: Mapping[str, str], parsed: Mapping[str, RecordFile], entries: list[_Entry], plan: RemPlan,
    superseded_by: Mapping[int, str], archive_text: str | None, config: Config,
) -> RemOutcome:
    """The plan's archivals recorded, and the texts it writes: each changed file, and the month's archive."""
    today = plan.day
    target = dated.archive_file(today)
    archived_records = []
    for entry in entries:
        if entry.gone is None or entry.gone == "merged":
            continue
        points = record_score(entry.record, today, config.rem, entry.fitness)
        successor = superseded_by.get(entry.order)
        plan.archivals.append(Archival(entry.record.id, entry.file, target, points, entry.gone, successor))
        source = names.repo_rel(config.memory_dir, entry.file)
        archived_records.append(archived(entry.record, entry.fitness, today, points, source, successor))
    writes = _render(parsed, entries)
    if archived_records:
        writes[target] = add_to_archive(archive_text, target, archived_records)
    before = {**files, target: archive_text or ""}
    return RemOutcome(plan, writes, {name: before.get(name, "") for name in writes})


def _content(record: Record) -> str:
    return " ".join([*record.body.split(), *(word for line in record.extra_lines for word in line.split())])


def _fold(entries: list[_Entry], plan: RemPlan) -> None:
    groups: dict[tuple[str, str, str], list[_Entry]] = {}
    for entry in entries:
        if entry.record.field("Conflicts"):
            continue
        key = (entry.memory, entry.title_key, _content(entry.record))
        groups.setdefault(key, []).append(entry)
    for group in groups.values():
        if len(group) < 2:
            continue
        survivor = max(group, key=lambda e: (_completeness(e.record), e.record.proven, e.record.date, -e.order))
        folded = [entry for entry in group if entry is not survivor]
        fitnesses = [entry.fitness for entry in group]
        merged_fitness = Fitness(
            max(f.last_referenced for f in fitnesses),
            sum(f.hit_count for f in fitnesses),
            min((f.decision_value for f in fitnesses), key=VALUES.index),
        )
        merged_ids = _ids(survivor.record.field("Merged"))
        for entry in folded:
            merged_ids += [entry.record.id, *_ids(entry.record.field("Merged"))]
            entry.gone = "merged"
        record = set_field(survivor.record, "Fitness", merged_fitness.render())
        survivor.update(set_field(record, "Merged", ", ".join(dict.fromkeys(merged_ids))), merged_fitness)
        plan.folds.append(Fold(survivor.record.id, survivor.file, tuple((e.record.id, e.file) for e in folded)))


def _completeness(record: Record) -> int:
    return sum(1 for line in record.lines if line.strip())


def _ids(value: str | None) -> list[str]:
    return [match[0] for match in ENTRY_ID.finditer(value or "")]


def _mark_proven(entries: list[_Entry], plan: RemPlan, config: Config) -> None:
    for entry in entries:
        if entry.gone or entry.record.proven or entry.fitness.hit_count < config.rem.proven_hits:
            continue
        fitness = entry.fitness._replace(decision_value="HIGH")
        record = set_field(entry.record, "Fitness", fitness.render())
        entry.update(set_heading(record, proven=True), fitness)
        plan.proven.append(ProvenMark(entry.record.id, entry.file))


def _supersede(entries: list[_Entry], plan: RemPlan, superseded_by: dict[int, str]) -> None:
    live = [entry for entry in entries if not entry.gone]
    by_id: dict[str, _Entry] = {}
    for entry in live:
        by_id.setdefault(entry.record.id, entry)
    pairs: list[tuple[_Entry, _Entry]] = []  # (old, new)
    for entry in live:
        for old_id in _superseded_ids(entry.record.field("Supersedes")):
            old = by_id.get(old_id)
            if old is not None and old is not entry:
                pairs.append((old, entry))
    titles: dict[tuple[str, str], list[_Entry]] = {}
    for entry in live:
        titles.setdefault((entry.memory, entry.title_key), []).append(entry)
    for group in titles.values():
        if len(group) < 2:
            continue
        newest = max(group, key=lambda e: (e.record.date, e.fitness.last_referenced, e.order))
        pairs += [(entry, newest) for entry in group if entry is not newest]
    for old, new in pairs:
        if old.gone or new.gone or old.order in superseded_by or old.record.field("Conflicts"):
            continue
        summary = _summary(old.record)
        old.gone = "superseded"
        superseded_by[old.order] = new.record.id
        new.update(set_field(new.record, "Supersedes", _supersedes_value(new.record, old.record.id, summary)))
        plan.supersessions.append(Supersession(old.record.id, old.file, new.record.id, new.file, summary))


def _superseded_ids(value: str | None) -> list[str]:
    found = []
    for part in (value or "").split(";"):
        match = _LEADING_ID.match(part)
        if match:
            found.append(match[1])
    return found


def _supersedes_value(record: Record, old_id: str, summary: str) -> str:
    """The newer entry's `Supersedes`: its parts kept, the old id's given the summary."""
    parts = [part.strip() for part in (record.field("Supersedes") or "").split(";") if part.strip()]
    parts = [part for part in parts if _superseded_ids(part) != [old_id]]
    return "; ".join([*parts, f"{old_id} — {summary}"])


def _summary(record: Record) -> str:
    text = " ".join(record.body.split()).replace(";", ",")
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1].rstrip() + "…"


def _enforce_budgets(
    entries: list[_Entry], parsed: Mapping[str, RecordFile], plan: RemPlan, today: dt.date, config: Config,
    fresh: frozenset[str],
) -> None:
    for name, doc in parsed.items():
        budget = config.budget_for(name)
        if budget is None:
            continue
        mine = [entry for entry in entries if entry.file == name]
        lines = doc.line_count - sum(
            len(doc.blocks[e.block].lines) - (0 if e.gone else len(e.record.lines)) for e in mine
        )
        if lines <= budget:
            continue
        prose = doc.prose_lines
        # Prose alone over budget: archiving entries would not bring the file to it, so none goes for room,
        # unless this run's own edits (a `Supersedes:` or `Merged:` line) would make the file longer than it was.
        limit = budget if prose < budget else doc.line_count
        # Unprotected entries go first; when only proven ones are left, they go too (a budget can
        # always be met); an entry in conflict never goes: a person has to settle it first.
        for last_resort in (False, True):
            movable = [e for e in mine if not e.gone and not e.record.field("Conflicts")
                       and e.record.id not in fresh and protected(e.record) == last_resort]
            for entry in sorted(movable, key=lambda e: budget_order(e.record, today, config.rem, e.fitness)):
                if lines <= limit:
                    break
                entry.gone = "budget"
                lines -= len(entry.record.lines)
        if lines > budget:
            left = [e for e in mine if not e.gone]
            plan.over_budget.append(OverBudget(
                name, lines, budget, prose, sum(1 for e in left if protected(e.record)),
                sum(1 for e in left if e.record.id in fresh and not protected(e.record)),
            ))


def _render(parsed: Mapping[str, RecordFile], entries: list[_Entry]) -> dict[str, str]:
    replace: dict[str, dict[int, Block | None]] = {}
    for entry in entries:
        if entry.gone:
            replace.setdefault(entry.file, {})[entry.block] = None
        elif entry.changed:
            replace.setdefault(entry.file, {})[entry.block] = entry.record
    return {name: rewrite(parsed[name], blocks) for name, blocks in replace.items()}
