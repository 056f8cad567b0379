"""What a consolidation run does, as data: promotions, archivals, folds, supersessions, moves.

Paths inside a plan are relative to the memory dir; JSON and trailers show them
relative to the repository (`memory/decisions.md`), as git does.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from typing import Any

from apm_git.errors import PlanRefused
from apm_git.model.names import memory_rel, repo_rel

PLAN_VERSION = 1


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


def deep_sleep_json(plan: DeepSleepPlan, prefix: str) -> dict[str, Any]:
    at = functools.partial(repo_rel, prefix)
    return {
        "version": PLAN_VERSION,
        "stage": "deep-sleep",
        "date": plan.day.isoformat(),
        "promote": [
            {"id": p.entry_id, "from": at(p.source), "to": at(p.target), "reason": p.reason,
             "copies": [at(copy) for copy in p.copies]}
            for p in plan.promotions
        ],
        "archive": [
            {"id": a.entry_id, "from": at(a.source), "to": at(a.target), "reason": a.reason, "score": a.score}
            for a in plan.archivals
        ],
        "journals": [{"from": at(m.source), "to": at(m.target)} for m in plan.journal_moves],
        "kept": [{"id": k.entry_id, "from": at(k.source), "reason": k.reason} for k in plan.kept],
    }


def rem_json(plan: RemPlan, prefix: str) -> dict[str, Any]:
    at = functools.partial(repo_rel, prefix)
    return {
        "version": PLAN_VERSION,
        "stage": "rem",
        "date": plan.day.isoformat(),
        "live": plan.live,
        "proven": [{"id": p.entry_id, "file": at(p.file)} for p in plan.proven],
        "merge": [
            {"id": f.survivor, "file": at(f.file), "merged": [{"id": i, "from": at(src)} for i, src in f.folded]}
            for f in plan.folds
        ],
        "supersede": [
            {"old": s.old, "old_file": at(s.old_file), "new": s.new, "new_file": at(s.new_file), "summary": s.summary}
            for s in plan.supersessions
        ],
        "archive": [
            {"id": a.entry_id, "from": at(a.source), "to": at(a.target), "reason": a.reason, "score": a.score}
            for a in plan.archivals
        ],
        "journals": [{"from": at(m.source), "to": at(m.target)} for m in plan.journal_moves],
        "over_budget": [
            {"file": at(o.file), "lines": o.lines, "budget": o.budget, "prose": o.prose, "protected": o.protected,
             "fresh": o.fresh}
            for o in plan.over_budget
        ],
    }


def deep_sleep_from_json(data: Any, prefix: str, today: dt.date) -> DeepSleepPlan:
    """Read a (possibly hand-edited) plan; its structure only: `validate` checks it against the files."""
    if not isinstance(data, dict):
        raise PlanRefused("the plan must be a JSON object as printed by `apm-git deep-sleep --plan`")
    if data.get("version", PLAN_VERSION) != PLAN_VERSION:
        raise PlanRefused(
            f"the plan has version {data.get('version')!r}; this apm-git reads version {PLAN_VERSION} only: "
            "print a fresh plan with `apm-git deep-sleep --plan`",
        )
    if data.get("stage", "deep-sleep") != "deep-sleep":
        raise PlanRefused(f"the plan is for stage {data.get('stage')!r}, not deep-sleep")
    unknown = set(data) - {"version", "stage", "date", "promote", "archive", "journals", "kept"}
    if unknown:
        raise PlanRefused(f"unknown plan key(s) {', '.join(sorted(unknown))}; use promote, archive, journals")
    plan = DeepSleepPlan(today)
    for number, item in enumerate(_list(data, "promote")):
        where = f"promote[{number}]"
        copies = item.get("copies", [])
        if not isinstance(copies, list) or not all(isinstance(copy, str) for copy in copies):
            raise PlanRefused(f"{where}.copies must be a list of journal paths")
        plan.promotions.append(Promotion(
            _text(item, "id", where), _path(item, "from", where, prefix), _path(item, "to", where, prefix),
            _reason(item), tuple(_rel(copy, f"{where}.copies", prefix) for copy in copies),
        ))
    for number, item in enumerate(_list(data, "archive")):
        where = f"archive[{number}]"
        raw_score = item.get("score", 0)
        points = raw_score if isinstance(raw_score, int) and not isinstance(raw_score, bool) else 0
        plan.archivals.append(Archival(
            _text(item, "id", where), _path(item, "from", where, prefix), _path(item, "to", where, prefix),
            points, _reason(item),
        ))
    for number, item in enumerate(_list(data, "journals")):
        where = f"journals[{number}]"
        plan.journal_moves.append(JournalMove(_path(item, "from", where, prefix), _path(item, "to", where, prefix)))
    return plan


def _reason(item: dict[str, Any]) -> str:
    """The reason an edited plan gives for a move (kept as written, on one line), else `edited plan`."""
    reason = item.get("reason")
    return " ".join(reason.split()) if isinstance(reason, str) and reason.strip() else "edited plan"


def _list(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise PlanRefused(f"plan key {key!r} must be a list of objects")
    return value


def _text(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise PlanRefused(f"{where} needs {key!r} (a string)")
    return value


def _path(item: dict[str, Any], key: str, where: str, prefix: str) -> str:
    return _rel(_text(item, key, where), f"{where}.{key}", prefix)


def _rel(path: str, where: str, prefix: str) -> str:
    """A repo-relative path in the plan as a memory-relative one; anything outside is refused."""
    rel = memory_rel(prefix, path)
    parts = rel.split("/") if rel else []
    if rel is None or not parts or any(part in ("", ".", "..") for part in parts) or "\\" in rel:
        raise PlanRefused(f"{where} {path!r} is outside the memory dir; use a path under {prefix}/")
    return rel


# --------------------------------------------------------------------------- trailers


def deep_sleep_trailers(plan: DeepSleepPlan, prefix: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for p in plan.promotions:
        for source in (p.source, *p.copies):
            found.append(("Apm-Promote", f"{p.entry_id} {prefix}/{source} -> {prefix}/{p.target} ({p.reason})"))
    found += _archive_trailers(plan.archivals, prefix)
    found += _move_trailers(plan.journal_moves, prefix)
    return found


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
