"""When each consolidation stage is due: its last run (flush-state.json) plus its period, against today."""
from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from apm_git import clock
from apm_git.model.vocabulary import DueStage


@dataclasses.dataclass(frozen=True)
class Due:
    stage: DueStage
    last_run: str | None
    next_due: str  # ISO date
    due_now: bool


def due_dates(state: dict[str, Any], today: dt.date, every: dict[DueStage, int]) -> list[Due]:
    dreaming = state.get("dreaming", {})
    result = []
    for stage, days in every.items():
        last = dreaming.get(f"last_{stage.replace('-', '_')}") if isinstance(dreaming, dict) else None
        last_moment = clock.parse_stamp(last) if isinstance(last, str) else None
        try:
            next_due = last_moment.date() + dt.timedelta(days=days) if last_moment else today
        except OverflowError:  # unreachable through apm.yaml and flush-state.json, which are range-checked
            next_due = dt.date.max
        result.append(Due(stage, last if last_moment else None, next_due.isoformat(), next_due <= today))
    return result
