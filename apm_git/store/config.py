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


_AT_LEAST_ONE = frozenset({"every_days", "look_back_days", "proven_hits", "idle_minutes"})
# Upper bounds, so that no value overflows the date arithmetic it feeds (a date is at most
# year 9999) or asks for more than a machine has; each is far past any sensible setting.
MAX_DAYS = 36_500  # a century
_DAY_SETTINGS = frozenset({"every_days", "look_back_days", "archive_after_days", "unreferenced_days",
                           "proven_unreferenced_days"})
_MAXIMUM = {"idle_minutes": 525_600, "memory_budget": 10_000_000}  # a year; far past any context window
MAX_NUMBER = 1_000_000
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
        values: dict[str, Any] = {}
        known = {field.name for field in dataclasses.fields(Config)}
        for key, value in self.data.items():
            if key not in known:
                raise self.fail(self.data, key, str(key), f"is not a setting (known: {', '.join(sorted(known))})")
            values[key] = value
        memory_dir = self.memory_dir(values.get("memory_dir", "memory"))
        result: dict[str, Any] = {"memory_dir": memory_dir}
        if "budgets" in values:
            result["budgets"] = self.budgets(values["budgets"], memory_dir)
        if "memory_budget" in values:
            result["memory_budget"] = self.integer(self.data, "memory_budget", "memory_budget", minimum=1)
        if "encoding" in values:
            encoding = values["encoding"]
            if encoding not in OFFLINE_ENCODINGS:
                raise self.fail(
                    self.data, "encoding", "encoding",
                    f"must be one of the encodings shipped for offline use: {', '.join(OFFLINE_ENCODINGS)}",
                )
            result["encoding"] = encoding
        if "append_only" in values:
            result["append_only"] = self.patterns(values["append_only"], memory_dir)
        for name, section in _SECTIONS.items():
            if name in values:
                result[name] = self.section(name, section)
        if "routing" in values:
            result["routing"] = self.routing(values["routing"], result.get("append_only", DEFAULT_APPEND_ONLY))
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

    def integer(self, node: Any, key: str, dotted: str, *, minimum: int = 0) -> int:
        value = node[key]
        maximum = MAX_DAYS if key in _DAY_SETTINGS else _MAXIMUM.get(key, MAX_NUMBER)
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
            shown = repr(value) if isinstance(value, (int, float, str)) and len(repr(value)) <= 40 else "…"
            raise self.fail(node, key, dotted, f"must be a whole number from {minimum} to {maximum} (got {shown})")
        return int(value)

    def budgets(self, node: Any, memory_dir: str) -> dict[str, int]:
        if not isinstance(node, dict):
            raise self.fail(self.data, "budgets", "budgets", "must map file names to line budgets")
        budgets = dict(DEFAULT_BUDGETS)
        for key in node:
            pattern = _relative(str(key), memory_dir)
            if node[key] is None:
                budgets.pop(pattern, None)
                continue
            budgets[pattern] = self.integer(node, key, f"budgets.{key}", minimum=1)
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
            if key not in fields:
                raise self.fail(node, key, f"{name}.{key}", f"is not a setting (known: {', '.join(fields)})")
            if fields[key].type in ("float", float):
                value = node[key]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                    shown = repr(value) if isinstance(value, (int, float, str)) and len(repr(value)) <= 40 else "…"
                    raise self.fail(node, key, f"{name}.{key}", f"must be a number from 0 to 1 (got {shown})")
                values[key] = float(value)
            else:
                minimum = 1 if key in _AT_LEAST_ONE else 0
                values[key] = self.integer(node, key, f"{name}.{key}", minimum=minimum)
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
