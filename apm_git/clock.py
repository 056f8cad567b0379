"""The one clock: `APM_GIT_NOW` (ISO date or datetime) when set, else the system clock.

Tests and simulations move time through the environment, so every date apm-git
writes (records, state files, its own commits) follows the simulated clock.
"""
from __future__ import annotations

import datetime as dt
import os

from apm_git.errors import StateError

ENV_NOW = "APM_GIT_NOW"
# The years apm-git computes with: a date past these (9999-12-31 in a state file) would overflow
# the date arithmetic of "when is this due" (`rem.every_days` is at most a century).
EARLIEST_YEAR = 1970
LATEST_YEAR = 9000


def now() -> dt.datetime:
    """The current time, timezone-aware."""
    raw = os.environ.get(ENV_NOW, "").strip()
    if not raw:
        return dt.datetime.now().astimezone()
    try:
        if len(raw) == 10:
            parsed = dt.datetime.combine(dt.date.fromisoformat(raw), dt.time(12, 0))
        else:
            parsed = dt.datetime.fromisoformat(raw)
    except ValueError:
        raise StateError(
            f"{ENV_NOW}={raw!r} is not an ISO date or datetime "
            "(use e.g. 2026-04-06 or 2026-04-06T14:30:00)",
        ) from None
    if not EARLIEST_YEAR <= parsed.year <= LATEST_YEAR:
        raise StateError(f"{ENV_NOW}={raw!r} is outside the years {EARLIEST_YEAR}-{LATEST_YEAR}; use a real date")
    return parsed.astimezone()


def today() -> dt.date:
    return now().date()


def simulated() -> bool:
    return bool(os.environ.get(ENV_NOW, "").strip())


def git_date_env() -> dict[str, str]:
    """Environment that dates apm-git's commits by the simulated clock, when there is one."""
    if not simulated():
        return {}
    stamp = now().isoformat(timespec="seconds")
    return {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


def stamp(moment: dt.datetime | None = None) -> str:
    """The timestamp format of the state files: ISO 8601 to the second, with offset."""
    return (moment or now()).isoformat(timespec="seconds")


def parse_stamp(text: str) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(text)
        if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
            return None
        return moment.astimezone()
    except (TypeError, ValueError, OverflowError):
        return None


def stamp_problem(value: object) -> str | None:
    """Why `value` is not a timestamp of the state files (an ISO 8601 string, or null), or None."""
    if value is None:
        return None
    if not isinstance(value, str):
        return f"must be an ISO 8601 timestamp or null (got {type(value).__name__} {str(value)[:40]})"
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        return f"must be an ISO 8601 timestamp or null (got {value[:40]!r})"
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
        return f"is outside the years {EARLIEST_YEAR}-{LATEST_YEAR} (got {value[:40]!r})"
    return None
