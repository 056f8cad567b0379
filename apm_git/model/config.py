"""The settings of `apm.yaml` (docs/design.md 2.2): their defaults, their rules, and the classes a parsed
file becomes.  Pure: reading and validating the file is `apm_git.store.config`.

The classes are NamedTuples, not dataclasses: the hook of every commit imports this module, and
dataclasses would cost it a third of its start-up (docs/hook-entry.md, "Start-up").
"""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, NamedTuple, get_type_hints

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


class Whole(NamedTuple):
    """A whole number from `minimum` to `maximum`."""

    minimum: int = 0
    maximum: int = MAX_NUMBER

    def problem(self, value: object) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int) or not self.minimum <= value <= self.maximum:
            return f"must be a whole number from {self.minimum} to {self.maximum} (got {shown(value)})"
        return None


class Share(NamedTuple):
    """A number from 0 to 1 (a share of something)."""

    def problem(self, value: object) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            return f"must be a number from 0 to 1 (got {shown(value)})"
        return None


class OneOf(NamedTuple):
    """One of a few words."""

    words: tuple[str, ...]
    what: str  # the words, as the message names them

    def problem(self, value: object) -> str | None:
        return None if value in self.words else f"must be one of {self.what}: {', '.join(self.words)}"


class Switch(NamedTuple):
    """On or off: YAML's true or false."""

    def problem(self, value: object) -> str | None:
        return None if isinstance(value, bool) else f"must be true or false (got {shown(value)})"


Rule = Whole | Share | OneOf | Switch
DAYS = Whole(0, MAX_DAYS)
EVERY_DAYS = Whole(1, MAX_DAYS)
BUDGET = Whole(1)  # each line budget of `budgets`


def rules_of(kind: type[Any]) -> dict[str, Rule]:
    """The rule each scalar setting of a settings class declares (`name: Annotated[int, RULE] = default`);
    apm_git.store.config checks a value in apm.yaml by it, and its message comes from the rule."""
    hints = get_type_hints(kind, include_extras=True)
    return {name: rule for name in kind._fields for rule in getattr(hints[name], "__metadata__", ())
            if isinstance(rule, (Whole, Share, OneOf, Switch))}


# --------------------------------------------------------------------------- the settings


class DeepSleepSettings(NamedTuple):
    """`deep_sleep:` in apm.yaml: how often deep sleep runs and how many days of journals it reads."""

    every_days: Annotated[int, EVERY_DAYS] = 3
    look_back_days: Annotated[int, EVERY_DAYS] = 3


class RemSettings(NamedTuple):
    """`rem:` in apm.yaml: how often REM runs and the fitness rules it archives and marks by."""

    every_days: Annotated[int, EVERY_DAYS] = 7
    proven_hits: Annotated[int, Whole(1)] = 5
    archive_below: Annotated[int, Whole()] = 60
    unreferenced_days: Annotated[int, DAYS] = 60
    proven_floor: Annotated[int, Whole()] = 30
    proven_unreferenced_days: Annotated[int, DAYS] = 120
    proven_bonus: Annotated[int, Whole()] = 30
    max_archive_share: Annotated[float, Share()] = 0.25
    guard_min_entries: Annotated[int, Whole()] = 5


class Journals(NamedTuple):
    """`journals:` in apm.yaml: when a day's journal goes to the archive."""

    archive_after_days: Annotated[int, DAYS] = 14


class FlushSettings(NamedTuple):
    """`flush:` in apm.yaml: the idle time after which the timer flushes."""

    idle_minutes: Annotated[int, Whole(1, 525_600)] = 30  # a year


class Load(NamedTuple):
    """`load:` in apm.yaml: how many core and P3 files a load may open."""

    max_core_files: Annotated[int, Whole()] = 2
    max_p3_files: Annotated[int, Whole()] = 1


class Dreaming(NamedTuple):
    """`dreaming:` in apm.yaml: whether a consolidation commits at once or proposes (docs/proposals.md)."""

    propose: Annotated[bool, Switch()] = False


class Config(NamedTuple):
    """Every setting of apm.yaml.  A scalar setting declares its rule (`Annotated[int, RULE]`, read by
    `rules_of`), a section is a settings class of its own, and the four with a structure of their own
    (memory_dir, budgets, append_only, routing) are read by a method of the same name in
    apm_git.store.config; they are checked in this order."""

    memory_dir: str = "memory"
    budgets: Mapping[str, int] = MappingProxyType(DEFAULT_BUDGETS)
    memory_budget: Annotated[int, Whole(1, 10_000_000)] = 4000  # far past any context window
    encoding: Annotated[str, OneOf(OFFLINE_ENCODINGS, "the encodings shipped for offline use")] = "cl100k_base"
    append_only: tuple[str, ...] = DEFAULT_APPEND_ONLY
    deep_sleep: DeepSleepSettings = DeepSleepSettings()
    rem: RemSettings = RemSettings()
    journals: Journals = Journals()
    flush: FlushSettings = FlushSettings()
    load: Load = Load()
    dreaming: Dreaming = Dreaming()
    routing: Mapping[str, str] = MappingProxyType(DEFAULT_ROUTING)

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
