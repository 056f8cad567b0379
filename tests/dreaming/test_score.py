from __future__ import annotations

import datetime as dt

import pytest

from apm_git.dreaming.score import archive_for_value, score
from apm_git.model.config import RemSettings
from apm_git.model.fitness import Fitness
from apm_git.model.records import parse
from tests.records import record

TODAY = dt.date(2026, 6, 1)


@pytest.mark.parametrize(("days", "hits", "value", "proven", "expected"), [
    (0, 0, "LOW", False, 100),
    (0, 10, "HIGH", True, 230),  # the maximum
    (0, 20, "HIGH", False, 200),  # usage is capped at 50
    (100, 0, "LOW", False, 0),
    (250, 1, "MEDIUM", False, 30),
    (40, 3, "MEDIUM", False, 100),
    (-5, 0, "LOW", False, 100),  # a future date counts as today
])
def test_score(days: int, hits: int, value: str, proven: bool, expected: int) -> None:
    fitness = Fitness(TODAY - dt.timedelta(days=days), hits, value)
    assert score(fitness, proven, TODAY, RemSettings()) == expected


def _entry(days: int, hits: int, value: str, *, proven: bool = False, conflict: bool = False) -> bool:
    last = (TODAY - dt.timedelta(days=days)).isoformat()
    fields = (("Conflicts", "2026-01-01-other — says the opposite"),) if conflict else ()
    text = record("2026-01-01", "Entry", last=last, hits=hits, value=value, proven=proven, fields=fields)
    return archive_for_value(parse(text).entries[0], TODAY, RemSettings())


def test_value_archival_needs_all_four_conditions() -> None:
    assert _entry(61, 0, "LOW")  # score 39, 61 days, LOW
    assert not _entry(59, 0, "LOW")  # referenced too recently (score 41 < 60 though)
    assert not _entry(61, 0, "MEDIUM")  # not LOW
    assert not _entry(45, 0, "LOW")  # score 55 < 60 but only 45 days
    assert not _entry(61, 5, "LOW")  # score 64
    assert not _entry(200, 0, "LOW", conflict=True)  # in conflict: never


def test_proven_entries_need_the_stricter_rule() -> None:
    assert not _entry(200, 0, "LOW", proven=True)  # score 30: not below the floor
    rem = RemSettings(proven_bonus=0)
    text = record("2026-01-01", "Entry", last="2026-01-01", hits=0, value="LOW", proven=True)
    assert archive_for_value(parse(text).entries[0], TODAY, rem)  # 151 days, score 0 < 30
    recent = record("2026-01-01", "Entry", last="2026-03-01", hits=0, value="LOW", proven=True)
    assert not archive_for_value(parse(recent).entries[0], TODAY, rem)  # 92 days < 120
