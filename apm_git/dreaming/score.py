"""The survival score of docs/design.md 6 and the archival rules that read it.

score = recency + usage + value (+ the proven bonus), 0-230 with the defaults:
recency `max(0, 100 - days since last_referenced)` (a future date counts as today),
usage `min(50, 5 x hit_count)`, value HIGH 50 / MEDIUM 25 / LOW 0, `rem.proven_bonus` for `[PROVEN]`.
"""
from __future__ import annotations

import datetime as dt

from apm_git.model.config import RemSettings
from apm_git.model.fitness import VALUE_POINTS, Fitness
from apm_git.model.records import Record

RECENCY_DAYS = 100
HIT_POINTS = 5
MAX_USAGE = 50


def days_unreferenced(fitness: Fitness, today: dt.date) -> int:
    return max(0, (today - fitness.last_referenced).days)


def score(fitness: Fitness, proven: bool, today: dt.date, rem: RemSettings) -> int:
    recency = max(0, RECENCY_DAYS - days_unreferenced(fitness, today))
    usage = min(MAX_USAGE, HIT_POINTS * fitness.hit_count)
    bonus = rem.proven_bonus if proven else 0
    return recency + usage + VALUE_POINTS[fitness.decision_value] + bonus


def fitness_of(record: Record, known: Fitness | None = None) -> Fitness:
    """The record's fitness (`known` when the caller has it parsed already)."""
    fitness = known or record.fitness
    assert fitness is not None  # only well-formed records are scored
    return fitness


def record_score(record: Record, today: dt.date, rem: RemSettings, fitness: Fitness | None = None) -> int:
    return score(fitness_of(record, fitness), record.proven, today, rem)


def protected(record: Record) -> bool:
    """Proven entries and entries in conflict: deep sleep never archives them; REM archives a proven
    entry for value only under `rem.proven_floor`, for budget only when nothing else is left."""
    return record.proven or bool(record.field("Conflicts"))


def archive_for_value(record: Record, today: dt.date, rem: RemSettings, fitness: Fitness | None = None) -> bool:
    """The value rule: low score, long unreferenced, LOW value, not proven, not in conflict.

    A proven entry goes only below `proven_floor` and after `proven_unreferenced_days`.
    """
    fitness = fitness_of(record, fitness)
    if record.field("Conflicts"):
        return False
    points = score(fitness, record.proven, today, rem)
    idle = days_unreferenced(fitness, today)
    if record.proven:
        return points < rem.proven_floor and idle >= rem.proven_unreferenced_days
    return points < rem.archive_below and idle >= rem.unreferenced_days and fitness.decision_value == "LOW"


def budget_order(
    record: Record, today: dt.date, rem: RemSettings, fitness: Fitness | None = None,
) -> tuple[int, str, str, str]:
    """The order in which budget enforcement archives: lowest score, then least recently used, oldest."""
    fitness = fitness_of(record, fitness)
    return (score(fitness, record.proven, today, rem), fitness.last_referenced.isoformat(), record.date, record.id)
