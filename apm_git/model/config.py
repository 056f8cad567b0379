"""The settings of `apm.yaml` (docs/design.md 2.2): their defaults and the dataclasses a parsed file
becomes.  Pure: reading and validating the file is `apm_git.store.config`."""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from apm_git.model.dated import JOURNAL_NAME
from apm_git.model.names import GROUPS, INDEX, MAIN_INDEX
from apm_git.model.pathglob import glob_match
from apm_git.model.vocabulary import ENTRY_KINDS

CONFIG_FILE = "apm.yaml"
JOURNAL_KEY = "journal"
KINDS = ENTRY_KINDS  # the keys of `routing`
OFFLINE_ENCODINGS = ("cl100k_base",)
# Upper bounds, so that no value overflows the date arithmetic it feeds (a date is at most
# year 9999) or asks for more than a machine has; each is far past any sensible setting.
MAX_DAYS = 36_500  # a century
MAX_NUMBER = 1_000_000

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


# --------------------------------------------------------------------------- the rules a value keeps


def shown(value: object) -> str:
    """A value as a message quotes it: short numbers and strings as written, anything else as `…`."""
    return repr(value) if isinstance(value, (int, float, str)) and len(repr(value)) <= 40 else "…"


@dataclasses.dataclass(frozen=True)
class Whole:
    """A whole number from `minimum` to `maximum`."""

    minimum: int = 0
    maximum: int = MAX_NUMBER

    def problem(self, value: object) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int) or not self.minimum <= value <= self.maximum:
            return f"must be a whole number from {self.minimum} to {self.maximum} (got {shown(value)})"
        return None


@dataclasses.dataclass(frozen=True)
class Share:
    """A number from 0 to 1 (a share of something)."""

    def problem(self, value: object) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            return f"must be a number from 0 to 1 (got {shown(value)})"
        return None


@dataclasses.dataclass(frozen=True)
class OneOf:
    """One of a few words."""

    words: tuple[str, ...]
    what: str  # the words, as the message names them

    def problem(self, value: object) -> str | None:
        return None if value in self.words else f"must be one of {self.what}: {', '.join(self.words)}"


Rule = Whole | Share | OneOf
DAYS = Whole(0, MAX_DAYS)
EVERY_DAYS = Whole(1, MAX_DAYS)
BUDGET = Whole(1)  # each line budget of `budgets`


def setting(default: object, rule: Rule) -> Any:
    """A field of a settings class: its default and the rule a value in apm.yaml must keep
    (apm_git.store.config checks it, and its message comes from the rule)."""
    return dataclasses.field(default=default, metadata={"rule": rule})


def rule_of(field: dataclasses.Field[Any]) -> Rule | None:
    rule = field.metadata.get("rule")
    return rule if isinstance(rule, (Whole, Share, OneOf)) else None


# --------------------------------------------------------------------------- the settings


@dataclasses.dataclass(frozen=True)
class DeepSleep:
    """`deep_sleep:` in apm.yaml: how often deep sleep runs and how many days of journals it reads."""

    every_days: int = setting(3, EVERY_DAYS)
    look_back_days: int = setting(3, EVERY_DAYS)


@dataclasses.dataclass(frozen=True)
class Rem:
    """`rem:` in apm.yaml: how often REM runs and the fitness rules it archives and marks by."""

    every_days: int = setting(7, EVERY_DAYS)
    proven_hits: int = setting(5, Whole(1))
    archive_below: int = setting(60, Whole())
    unreferenced_days: int = setting(60, DAYS)
    proven_floor: int = setting(30, Whole())
    proven_unreferenced_days: int = setting(120, DAYS)
    proven_bonus: int = setting(30, Whole())
    max_archive_share: float = setting(0.25, Share())
    guard_min_entries: int = setting(5, Whole())


@dataclasses.dataclass(frozen=True)
class Journals:
    """`journals:` in apm.yaml: when a day's journal goes to the archive."""

    archive_after_days: int = setting(14, DAYS)


@dataclasses.dataclass(frozen=True)
class Flush:
    """`flush:` in apm.yaml: the idle time after which the timer flushes."""

    idle_minutes: int = setting(30, Whole(1, 525_600))  # a year


@dataclasses.dataclass(frozen=True)
class Load:
    """`load:` in apm.yaml: how many core and P3 files a load may open."""

    max_core_files: int = setting(2, Whole())
    max_p3_files: int = setting(1, Whole())


@dataclasses.dataclass(frozen=True)
class Config:
    """Every setting of apm.yaml.  A scalar setting declares its rule (`setting`), a section is a settings
    class of its own, and the four with a structure of their own (memory_dir, budgets, append_only,
    routing) are read by a method of the same name in apm_git.store.config; they are checked in this order."""

    memory_dir: str = "memory"
    budgets: Mapping[str, int] = dataclasses.field(default_factory=lambda: dict(DEFAULT_BUDGETS))
    memory_budget: int = setting(4000, Whole(1, 10_000_000))  # far past any context window
    encoding: str = setting("cl100k_base", OneOf(OFFLINE_ENCODINGS, "the encodings shipped for offline use"))
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
