"""The settings of `apm.yaml` (docs/design.md 2.2): their defaults and the dataclasses a parsed file
becomes.  Pure: reading and validating the file is `apm_git.store.config`."""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from apm_git.model.dated import JOURNAL_NAME
from apm_git.model.names import GROUPS, INDEX, MAIN_INDEX
from apm_git.model.pathglob import glob_match

CONFIG_FILE = "apm.yaml"
JOURNAL_KEY = "journal"
KINDS = ("decision", "lesson", "context", "person", "tool", "pending", "anchor")

DEFAULT_BUDGETS: dict[str, int] = {
    INDEX: 80,
    "decisions.md": 200,
    "lessons.md": 300,
    "project-context.md": 150,
    "people.md": 100,
    "tools-config.md": 100,
    JOURNAL_KEY: 100,
    f"{GROUPS}/*/attention.md": 100,
    f"{GROUPS}/*/project.md": 150,
    f"{GROUPS}/*/experience.md": 300,
    f"{GROUPS}/*/people.md": 100,
}
DEFAULT_ROUTING: dict[str, str] = {
    "decision": "decisions.md",
    "lesson": "lessons.md",
    "context": "project-context.md",
    "person": "people.md",
    "tool": "tools-config.md",
}
DEFAULT_APPEND_ONLY = (f"{GROUPS}/*.md", MAIN_INDEX)


@dataclasses.dataclass(frozen=True)
class DeepSleep:
    every_days: int = 3
    look_back_days: int = 3


@dataclasses.dataclass(frozen=True)
class Rem:
    every_days: int = 7
    proven_hits: int = 5
    archive_below: int = 60
    unreferenced_days: int = 60
    proven_floor: int = 30
    proven_unreferenced_days: int = 120
    proven_bonus: int = 30
    max_archive_share: float = 0.25
    guard_min_entries: int = 5


@dataclasses.dataclass(frozen=True)
class Journals:
    archive_after_days: int = 14


@dataclasses.dataclass(frozen=True)
class Flush:
    idle_minutes: int = 30


@dataclasses.dataclass(frozen=True)
class Load:
    max_core_files: int = 2
    max_p3_files: int = 1


@dataclasses.dataclass(frozen=True)
class Config:
    memory_dir: str = "memory"
    budgets: Mapping[str, int] = dataclasses.field(default_factory=lambda: dict(DEFAULT_BUDGETS))
    memory_budget: int = 4000
    encoding: str = "cl100k_base"
    append_only: tuple[str, ...] = DEFAULT_APPEND_ONLY
    deep_sleep: DeepSleep = DeepSleep()
    rem: Rem = Rem()
    journals: Journals = Journals()
    flush: Flush = Flush()
    load: Load = Load()
    routing: Mapping[str, str] = dataclasses.field(default_factory=lambda: dict(DEFAULT_ROUTING))

    def budget_for(self, rel: str) -> int | None:
        """The line budget of a file, by its path relative to the memory dir."""
        if rel in self.budgets:
            return self.budgets[rel]
        if JOURNAL_NAME.fullmatch(rel):
            return self.budgets.get(JOURNAL_KEY)
        for pattern, budget in self.budgets.items():
            if pattern != JOURNAL_KEY and glob_match(pattern, rel):
                return budget
        return None

    def is_append_only(self, rel: str) -> bool:
        return any(glob_match(pattern, rel) for pattern in self.append_only)
