"""What a consolidation run does, as data: promotions, archivals, folds, supersessions, moves.

Paths inside a plan are relative to the memory dir; JSON and trailers show them
relative to the repository (`memory/decisions.md`), as git does.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from apm_git.dreaming.plan_shape import DEEP_SLEEP_PLAN
from apm_git.model.names import ARCHIVED_JOURNALS


@dataclasses.dataclass(frozen=True)
class Promotion:
    entry_id: str
    source: str  # journal
    target: str  # category file
    reason: str
    copies: tuple[str, ...] = ()  # other journals holding an identical copy, removed with it


@dataclasses.dataclass(frozen=True)
class Archival:
    entry_id: str
    source: str
    target: str  # archive/YYYY-MM.md
    score: int
    reason: str  # value, budget or superseded
    superseded_by: str | None = None


@dataclasses.dataclass(frozen=True)
class JournalMove:
    source: str
    target: str


@dataclasses.dataclass(frozen=True)
class Kept:
    """A candidate that stays where it is this run, and why (information only)."""

    entry_id: str
    source: str
    reason: str
    room: str | None = None  # the category file that had no room for it


@dataclasses.dataclass(frozen=True)
class ProvenMark:
    entry_id: str
    file: str


@dataclasses.dataclass(frozen=True)
class Fold:
    survivor: str
    file: str
    folded: tuple[tuple[str, str], ...]  # (entry id, file) of each duplicate folded in


@dataclasses.dataclass(frozen=True)
class Supersession:
    old: str
    old_file: str
    new: str
    new_file: str
    summary: str


@dataclasses.dataclass(frozen=True)
class OverBudget:
    """A file REM leaves over its budget, and what is left in it that REM may not move."""

    file: str
    lines: int
    budget: int
    prose: int  # lines outside records (never moved by consolidation)
    protected: int  # proven or conflicting entries
    fresh: int = 0  # entries promoted in the same run

    def why(self) -> str:
        if self.prose >= self.budget:
            return (f"its {self.prose} lines of prose alone pass the budget, and consolidation never moves prose "
                    "(split or trim it by hand, or raise its budget in apm.yaml)")
        parts = []
        if self.prose:
            parts.append(f"{self.prose} lines of prose that consolidation does not move")
        if self.protected:
            parts.append(f"{self.protected} proven or conflicting entr{'y' if self.protected == 1 else 'ies'}")
        if self.fresh:
            parts.append(f"{self.fresh} entr{'y' if self.fresh == 1 else 'ies'} promoted in this run")
        return "what is left is " + " and ".join(parts) if parts else "nothing is left to archive"


@dataclasses.dataclass
class DeepSleepPlan:
    day: dt.date
    promotions: list[Promotion] = dataclasses.field(default_factory=list)
    archivals: list[Archival] = dataclasses.field(default_factory=list)
    journal_moves: list[JournalMove] = dataclasses.field(default_factory=list)
    kept: list[Kept] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class RemPlan:
    day: dt.date
    live: int = 0
    proven: list[ProvenMark] = dataclasses.field(default_factory=list)
    folds: list[Fold] = dataclasses.field(default_factory=list)
    supersessions: list[Supersession] = dataclasses.field(default_factory=list)
    archivals: list[Archival] = dataclasses.field(default_factory=list)
    journal_moves: list[JournalMove] = dataclasses.field(default_factory=list)
    over_budget: list[OverBudget] = dataclasses.field(default_factory=list)


# --------------------------------------------------------------------------- JSON


def deep_sleep_from_json(data: Any, prefix: str, today: dt.date) -> DeepSleepPlan:
    """Read a (possibly hand-edited) plan; its shape only (plan_shape.DEEP_SLEEP_PLAN): `validate` checks
    it against the files."""
    read = DEEP_SLEEP_PLAN.read(data, prefix)
    plan = DeepSleepPlan(today)
    plan.promotions = [Promotion(item["id"], item["from"], item["to"], item["reason"], item["copies"])
                       for item in read["promote"]]
    plan.archivals = [Archival(item["id"], item["from"], item["to"], item["score"], item["reason"])
                      for item in read["archive"]]
    plan.journal_moves = [JournalMove(item["from"], item["to"]) for item in read["journals"]]
    return plan


# --------------------------------------------------------------------------- trailers


def deep_sleep_trailers(plan: DeepSleepPlan, prefix: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for p in plan.promotions:
        for source in (p.source, *p.copies):
            found.append(("Apm-Promote", f"{p.entry_id} {prefix}/{source} -> {prefix}/{p.target} ({p.reason})"))
    found += _archive_trailers(plan.archivals, prefix)
    found += _move_trailers(plan.journal_moves, prefix)
    found += [("Apm-Finding", finding) for finding in no_room_findings(plan, prefix)]
    return found


def no_room_findings(plan: DeepSleepPlan, prefix: str) -> list[str]:
    """One line per category file that had no room for items whose journal goes to the archive in this run (they
    go with it): which, and why.  Items that only wait (their journal is not due yet) are in the body's `Kept`."""
    moved = {move.source for move in plan.journal_moves}
    found = []
    for target in sorted({k.room for k in plan.kept if k.room and k.source in moved}):
        gone = [k for k in plan.kept if k.room == target and k.source in moved]
        more = f" and {len(gone) - NAMED} more" if len(gone) > NAMED else ""
        ids = ", ".join(k.entry_id for k in gone[:NAMED]) + more
        found.append(f"{gone[0].reason.split(';')[0]}; {ids} went to {prefix}/{ARCHIVED_JOURNALS}/ with "
                     f"{'its journal' if len(gone) == 1 else 'their journals'}")
    return found


NAMED = 5  # the entry ids a finding names


def rem_trailers(plan: RemPlan, prefix: str) -> list[tuple[str, str]]:
    found = [("Apm-Proven", f"{p.entry_id} {prefix}/{p.file}") for p in plan.proven]
    for fold in plan.folds:
        found += [
            ("Apm-Move", f"{entry} {prefix}/{source} -> {prefix}/{fold.file} (merged into {fold.survivor})")
            for entry, source in fold.folded
        ]
    found += [("Apm-Supersede", f"{s.old} -> {s.new}") for s in plan.supersessions]
    found += _archive_trailers(plan.archivals, prefix)
    found += _move_trailers(plan.journal_moves, prefix)
    return found


def _archive_trailers(archivals: list[Archival], prefix: str) -> list[tuple[str, str]]:
    return [
        ("Apm-Archive", f"{a.entry_id} {prefix}/{a.source} -> {prefix}/{a.target} (score {a.score})")
        for a in archivals
    ]


def _move_trailers(moves: list[JournalMove], prefix: str) -> list[tuple[str, str]]:
    return [("Apm-Move", f"{prefix}/{m.source} -> {prefix}/{m.target}") for m in moves]
