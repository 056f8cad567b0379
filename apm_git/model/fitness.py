"""The Fitness field and the survival score of docs/design.md 6."""
from __future__ import annotations

import datetime as dt
import re
from typing import NamedTuple

from apm_git.errors import FitnessError
from apm_git.model.vocabulary import DECISION_VALUES

VALUES = DECISION_VALUES  # decision_value, best first
VALUE_POINTS = {"HIGH": 50, "MEDIUM": 25, "LOW": 0}
# The value is stripped after the match: a lazy group before `\s*` backtracks quadratically on spaces.
_PAIR = re.compile(r"\s*([a-z_]+)\s*=(.*)", re.DOTALL)


# A NamedTuple, not a frozen dataclass: the pre-commit hook imports it on every commit (apm_git.model.slotted).
class Fitness(NamedTuple):
    """The `Fitness:` field of a record: when it was last used, how often, and how much it decided."""

    last_referenced: dt.date
    hit_count: int
    decision_value: str

    @classmethod
    def parse(cls, text: str) -> Fitness:
        pairs: dict[str, str] = {}
        for part in text.split(","):
            match = _PAIR.fullmatch(part)
            if not match:
                raise FitnessError(_usage(f"cannot read {part.strip()!r}"))
            pairs[match[1]] = match[2].strip()
        missing = [key for key in ("last_referenced", "hit_count", "decision_value") if key not in pairs]
        if missing:
            raise FitnessError(_usage(f"missing {', '.join(missing)}"))
        try:
            last = dt.date.fromisoformat(pairs["last_referenced"])
        except ValueError:
            raise FitnessError(_usage(f"last_referenced={pairs['last_referenced']!r} is not a date")) from None
        if not pairs["hit_count"].isdigit():
            raise FitnessError(_usage(f"hit_count={pairs['hit_count']!r} is not a whole number"))
        value = pairs["decision_value"]
        if value not in VALUES:
            raise FitnessError(_usage(f"decision_value={value!r} is not HIGH, MEDIUM or LOW"))
        return cls(last, int(pairs["hit_count"]), value)

    def render(self) -> str:
        return (
            f"last_referenced={self.last_referenced.isoformat()}, "
            f"hit_count={self.hit_count}, decision_value={self.decision_value}"
        )


def _usage(detail: str) -> str:
    return f"Fitness must read last_referenced=YYYY-MM-DD, hit_count=N, decision_value=HIGH|MEDIUM|LOW ({detail})"
