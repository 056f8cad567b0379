"""`apm-git status`: budgets used, last flushes, pending items, and what is due."""
from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from apm_git import clock, git, names
from apm_git.commands.setup import missing
from apm_git.config import CONFIG_FILE
from apm_git.repo import MemoryRepo
from apm_git.state import load_flush_state, with_quiet_runs


@dataclasses.dataclass(frozen=True)
class FileBudget:
    file: str
    lines: int
    budget: int | None

    @property
    def over(self) -> bool:
        return self.budget is not None and self.lines > self.budget


@dataclasses.dataclass(frozen=True)
class Due:
    stage: str
    last_run: str | None
    next_due: str  # ISO date
    due_now: bool


@dataclasses.dataclass
class StatusResult:
    files: list[FileBudget]
    last_flush: dict[str, str | None]
    pending_items: list[Any]
    due: list[Due]
    uncommitted: list[str]
    not_set_up: list[str] = dataclasses.field(default_factory=list)  # what `apm-git setup` would add


def due_dates(state: dict[str, Any], today: dt.date, every: dict[str, int]) -> list[Due]:
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


def status(repo: MemoryRepo) -> StatusResult:
    files = []
    for rel in repo.markdown_files():
        if rel.startswith(f"{names.ARCHIVE}/"):
            continue
        budget = repo.config.budget_for(rel)
        # Counting lines needs no decoding, and goes in chunks: a damaged or huge file still shows.
        files.append(FileBudget(repo.repo_path(rel), repo.count_lines(rel), budget))
    state = with_quiet_runs(repo, load_flush_state(repo))
    last_flush: dict[str, str | None] = {"main": state["main_session"].get("last_flush_time")}
    for group, value in sorted(state["groups"].items()):
        if isinstance(value, dict):
            last_flush[f"group:{group}"] = value.get("last_flush_time")
    every = {"deep-sleep": repo.config.deep_sleep.every_days, "rem": repo.config.rem.every_days}
    changes = git.status(repo.root, [repo.memory_prefix, CONFIG_FILE])
    return StatusResult(
        files=files,
        last_flush=last_flush,
        pending_items=list(state["pending_items"]),
        due=due_dates(state, clock.today(), every),
        uncommitted=sorted(change.path for change in changes),
        not_set_up=missing(repo.root),
    )
