"""`apm.yaml`: the defaults of DESIGN 2.2, overridden by the file, validated with line numbers.

Paths and globs in `apm.yaml` are relative to `memory_dir`; a pattern written with
the memory dir in front (`memory/groups/*.md`, as DESIGN writes it) means the same.
"""
from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from apm_git import __version__
from apm_git.errors import ConfigError
from apm_git.model.names import GROUPS, INDEX, MAIN_INDEX, memory_rel
from apm_git.model.pathglob import glob_match
from apm_git.model.vocabulary import ENTRY_KINDS
from apm_git.store import cache

CONFIG_FILE = "apm.yaml"
JOURNAL_KEY = "journal"
OFFLINE_ENCODINGS = ("cl100k_base",)
KINDS = ENTRY_KINDS  # the keys of `routing`

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
JOURNAL_NAME = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
MAX_CONFIG_BYTES = 256 * 1024  # apm.yaml holds a few settings
# Upper bounds, so that no value overflows the date arithmetic it feeds (a date is at most
# year 9999) or asks for more than a machine has; each is far past any sensible setting.
MAX_DAYS = 36_500  # a century
MAX_NUMBER = 1_000_000


# --------------------------------------------------------------------------- the rules a value keeps


def _shown(value: object) -> str:
    return repr(value) if isinstance(value, (int, float, str)) and len(repr(value)) <= 40 else "…"


@dataclasses.dataclass(frozen=True)
class Whole:
    """A whole number from `minimum` to `maximum`."""

    minimum: int = 0
    maximum: int = MAX_NUMBER

    def problem(self, value: object) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int) or not self.minimum <= value <= self.maximum:
            return f"must be a whole number from {self.minimum} to {self.maximum} (got {_shown(value)})"
        return None


@dataclasses.dataclass(frozen=True)
class Share:
    """A number from 0 to 1 (a share of something)."""

    def problem(self, value: object) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            return f"must be a number from 0 to 1 (got {_shown(value)})"
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


def setting(default: object, rule: Rule) -> Any:
    """A field of a settings class: its default and the rule a value in apm.yaml must keep."""
    return dataclasses.field(default=default, metadata={"rule": rule})


def rule_of(field: dataclasses.Field[Any]) -> Rule | None:
    rule = field.metadata.get("rule")
    return rule if isinstance(rule, (Whole, Share, OneOf)) else None


# --------------------------------------------------------------------------- the settings


@dataclasses.dataclass(frozen=True)
class DeepSleep:
    every_days: int = setting(3, EVERY_DAYS)
    look_back_days: int = setting(3, EVERY_DAYS)


@dataclasses.dataclass(frozen=True)
class Rem:
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
    archive_after_days: int = setting(14, DAYS)


@dataclasses.dataclass(frozen=True)
class Flush:
    idle_minutes: int = setting(30, Whole(1, 525_600))  # a year


@dataclasses.dataclass(frozen=True)
class Load:
    max_core_files: int = setting(2, Whole())
    max_p3_files: int = setting(1, Whole())


@dataclasses.dataclass(frozen=True)
class Config:
    """Every setting of apm.yaml.  A scalar setting declares its rule (`setting`), a section is a settings
    class of its own, and the four with a structure of their own (memory_dir, budgets, append_only,
    routing) are read by `_Reader`'s method of the same name; they are checked in this order."""

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


BUDGET = Whole(1)  # the rule of each line budget in `budgets`
_SECTIONS: dict[str, type[Any]] = {
    "deep_sleep": DeepSleep,
    "rem": Rem,
    "journals": Journals,
    "flush": Flush,
    "load": Load,
}


def load_config(root: Path, cache_path: Path | None = None) -> Config:
    """`apm.yaml` of the repository at `root`.

    With `cache_path`, a parsed copy is kept there (marshal), keyed by the file's bytes, so
    a process that only needs the settings skips importing and running ruamel.yaml.
    """
    path = root / CONFIG_FILE
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)  # a larger file is refused, not read whole
    except FileNotFoundError:
        raise ConfigError(f"{path} is missing; run `apm-git init` to create it") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{CONFIG_FILE} is over {MAX_CONFIG_BYTES // 1024} KB; it holds a few settings: fix the file")
    if cache_path is not None:
        cached = _read_cache(cache_path, data)
        if cached is not None:
            return cached
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{CONFIG_FILE} is not valid UTF-8 (byte {error.start}); fix the file") from None
    config = parse_config(text)
    if cache_path is not None:
        _write_cache(cache_path, data, config)
    return config


def _cache_tag() -> tuple[str, ...]:
    kinds: list[type[Any]] = [Config, *_SECTIONS.values()]
    return (__version__, *(field.name for kind in kinds for field in dataclasses.fields(kind)))


def _read_cache(path: Path, data: bytes) -> Config | None:
    cached = cache.read(path)
    if not (isinstance(cached, tuple) and len(cached) == 3 and cached[:2] == (_cache_tag(), data)):
        return None
    plain: dict[str, Any] = cached[2]
    try:
        sections = {name: kind(**plain[name]) for name, kind in _SECTIONS.items()}
        return Config(**{**plain, **sections, "append_only": tuple(plain["append_only"])})
    except (TypeError, KeyError):
        return None


def _write_cache(path: Path, data: bytes, config: Config) -> None:
    plain = dataclasses.asdict(config)
    plain["budgets"], plain["routing"] = dict(config.budgets), dict(config.routing)
    cache.write(path, (_cache_tag(), data, plain))


def parse_config(text: str) -> Config:
    from apm_git.store.config_yaml import load_yaml

    data = load_yaml(text)
    if data is None:
        return Config()
    if not isinstance(data, dict):
        raise ConfigError(f"{CONFIG_FILE}:1: the top level must be a mapping of settings")
    return _Reader(data).config()


class _Reader:
    def __init__(self, data: Any) -> None:
        self.data = data

    def fail(self, node: Any, key: str, dotted: str, message: str) -> ConfigError:
        line = 1
        with contextlib.suppress(AttributeError, KeyError, TypeError):
            line = node.lc.key(key)[0] + 1
        return ConfigError(f"{CONFIG_FILE}:{line}: {dotted} {message}; fix the file")

    def config(self) -> Config:
        fields = dataclasses.fields(Config)
        known = {field.name for field in fields}
        for key in self.data:
            if key not in known:
                raise self.fail(self.data, key, str(key), f"is not a setting (known: {', '.join(sorted(known))})")
        memory_dir = self.memory_dir(self.data.get("memory_dir", "memory"))
        result: dict[str, Any] = {"memory_dir": memory_dir}
        for field in fields:
            name, rule = field.name, rule_of(field)
            if name not in self.data or name == "memory_dir":
                continue
            if rule is not None:
                result[name] = self.checked(self.data, name, name, rule)
            elif name in _SECTIONS:
                result[name] = self.section(name, _SECTIONS[name])
            elif name == "budgets":
                result[name] = self.budgets(self.data[name], memory_dir)
            elif name == "append_only":
                result[name] = self.patterns(self.data[name], memory_dir)
            else:
                assert name == "routing", name
                result[name] = self.routing(self.data[name], result.get("append_only", DEFAULT_APPEND_ONLY))
        return Config(**result)

    def memory_dir(self, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(self.data, "memory_dir", "memory_dir", "must be a folder name")
        clean = value.strip().strip("/")
        parts = clean.split("/")
        if clean.startswith("/") or any(part in ("", ".", "..") for part in parts) or value.startswith("/"):
            raise self.fail(self.data, "memory_dir", "memory_dir", "must be a relative folder inside the repository")
        if any(part.casefold() == ".git" for part in parts):
            raise self.fail(self.data, "memory_dir", "memory_dir",
                            "must not be inside .git (git never tracks files there): name a folder of the work tree")
        return clean

    def checked(self, node: Any, key: str, dotted: str, rule: Rule) -> Any:
        """`node[key]`, which must keep `rule` (a whole number comes back an int, a share a float)."""
        value = node[key]
        problem = rule.problem(value)
        if problem is not None:
            raise self.fail(node, key, dotted, problem)
        return float(value) if isinstance(rule, Share) else int(value) if isinstance(rule, Whole) else value

    def budgets(self, node: Any, memory_dir: str) -> dict[str, int]:
        if not isinstance(node, dict):
            raise self.fail(self.data, "budgets", "budgets", "must map file names to line budgets")
        budgets = dict(DEFAULT_BUDGETS)
        for key in node:
            pattern = _relative(str(key), memory_dir)
            if node[key] is None:
                budgets.pop(pattern, None)
                continue
            budgets[pattern] = self.checked(node, key, f"budgets.{key}", BUDGET)
        return budgets

    def patterns(self, node: Any, memory_dir: str) -> tuple[str, ...]:
        if not isinstance(node, list) or not all(isinstance(item, str) for item in node):
            raise self.fail(self.data, "append_only", "append_only", "must be a list of path globs")
        return tuple(_relative(item, memory_dir) for item in node)

    def section(self, name: str, section: type[Any]) -> Any:
        node = self.data[name]
        if not isinstance(node, dict):
            raise self.fail(self.data, name, name, "must be a mapping")
        fields = {field.name: field for field in dataclasses.fields(section)}
        values: dict[str, Any] = {}
        for key in node:
            rule = rule_of(fields[key]) if key in fields else None
            if rule is None:
                raise self.fail(node, key, f"{name}.{key}", f"is not a setting (known: {', '.join(fields)})")
            values[key] = self.checked(node, key, f"{name}.{key}", rule)
        return section(**values)

    def routing(self, node: Any, append_only: tuple[str, ...]) -> dict[str, str]:
        if not isinstance(node, dict):
            raise self.fail(self.data, "routing", "routing", "must map kinds to category files")
        routing = dict(DEFAULT_ROUTING)
        for key in node:
            value = node[key]
            if key not in KINDS:
                raise self.fail(node, key, f"routing.{key}", f"is not a kind (kinds: {', '.join(KINDS)})")
            if not isinstance(value, str) or not value.endswith(".md") or "/" in value or value.startswith("."):
                raise self.fail(node, key, f"routing.{key}", "must name a .md file at the top of the memory dir")
            machine = _machine_written(value, append_only)
            if machine:
                raise self.fail(node, key, f"routing.{key}",
                                f"names {value}, {machine}: entries routed there would be lost; name a category file")
            routing[key] = value
        return routing


def _machine_written(name: str, append_only: tuple[str, ...]) -> str | None:
    """Why a top-level file of the memory dir cannot take routed entries, or None when it can.

    (Files under archive/, groups/ and main/ and the JSON state files are already out: a route
    names a .md file at the top of the memory dir.)"""
    if name.casefold() == INDEX.casefold():
        return "which apm-git rebuilds whole at every flush"
    if JOURNAL_NAME.fullmatch(name):
        return "a daily journal, which deep sleep empties into the category files and archives"
    if any(glob_match(pattern, name) for pattern in append_only):
        return "an append-only file (append_only), which no consolidation may rewrite"
    return None


def _relative(pattern: str, memory_dir: str) -> str:
    rel = memory_rel(memory_dir, pattern)
    return pattern if rel is None else rel
