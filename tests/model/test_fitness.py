from __future__ import annotations

import datetime as dt

import pytest

from apm_git.errors import FitnessError
from apm_git.model.fitness import Fitness


def test_parse_and_render_round_trip() -> None:
    text = "last_referenced=2026-04-07, hit_count=3, decision_value=HIGH"
    assert Fitness.parse(text) == Fitness(dt.date(2026, 4, 7), 3, "HIGH")
    assert Fitness.parse(text).render() == text


@pytest.mark.parametrize("text", ["", "last_referenced=2026-04-07, hit_count=3",
                                  "last_referenced=yesterday, hit_count=3, decision_value=HIGH",
                                  "last_referenced=2026-04-07, hit_count=-1, decision_value=HIGH",
                                  "last_referenced=2026-04-07, hit_count=3, decision_value=high"])
def test_rejects_malformed(text: str) -> None:
    with pytest.raises(FitnessError, match="Fitness must read"):
        Fitness.parse(text)
