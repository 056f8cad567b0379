"""`apm.yaml`: the defaults of docs/design.md 2.2, overridden by the file, validated with line numbers.

Paths and globs in `apm.yaml` are relative to `memory_dir`; a pattern written with
the memory dir in front (`memory/groups/*.md`, as docs/design.md 2.2 writes it) means the same.
"""
from __future__ import annotations

import contextlib
import functools
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from apm_git import __version__
from apm_git.errors import ConfigError
from apm_git.model.config import (
    BUDGET,
    CONFIG_FILE,
    DEFAULT_APPEND_ONLY,
    DEFAULT_BUDGETS,
    DEFAULT_ROUTING,
    KINDS,
    Config,
    DeepSleepSettings,
    Dreaming,
    FlushSettings,
    Journals,
    Load,
    RemSettings,
    Rule,
    Share,
    Whole,
    rules_of,
)
from apm_git.model.dated import JOURNAL_NAME
from apm_git.model.names import INDEX, memory_rel
from apm_git.model.pathglob import glob_match
from apm_git.store import cache

MAX_CONFIG_BYTES = 256 * 1024  # apm.yaml holds a few settings


_SECTIONS: dict[str, type[Any]] = {
    "deep_sleep": DeepSleepSettings,
    "rem": RemSettings,
    "journals": Journals,
    "flush": FlushSettings,
    "load": Load,
    "dreaming": Dreaming,
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
    return (__version__, *(name for kind in kinds for name in kind._fields))


def _read_cache(path: Path, data: bytes) -> Config | None:
    cached = cache.read(path)
    if not (isinstance(cached, tuple) and len(cached) == 3 and cached[:2] == (_cache_tag(), data)):
        return None
    plain: dict[str, Any] = cached[2]
    try:
        sections = {name: kind(**plain[name]) for name, kind in _SECTIONS.items()}
        return Config(**{**plain, **sections, "append_only": tuple(plain["append_only"]),  # read-only, as parsed
                         "budgets": MappingProxyType(plain["budgets"]), "routing": MappingProxyType(plain["routing"])})
    except (TypeError, KeyError):
        return None


def _write_cache(path: Path, data: bytes, config: Config) -> None:
    plain: dict[str, Any] = config._asdict()  # plain values only: marshal writes no class of ours
    plain.update({name: getattr(config, name)._asdict() for name in _SECTIONS})
    plain["budgets"], plain["routing"] = dict(config.budgets), dict(config.routing)
    cache.write(path, (_cache_tag(), data, plain))


@functools.lru_cache(maxsize=16)
def parse_config(text: str) -> Config:
    """The settings `text` holds.  Kept per text (ruamel.yaml's round trip costs about 15 ms for the file
    `init` writes): a process that reads the same apm.yaml again (a review over many commits, the MCP
    server, the tests' in-process commands) parses it once.  A Config is immutable, its mappings read-only."""
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
        rules = rules_of(Config)
        known = set(Config._fields)
        for key in self.data:
            if key not in known:
                raise self.fail(self.data, key, str(key), f"is not a setting (known: {', '.join(sorted(known))})")
        memory_dir = self.memory_dir(self.data.get("memory_dir", "memory"))
        result: dict[str, Any] = {"memory_dir": memory_dir}
        for name in Config._fields:  # in the order Config declares them
            rule = rules.get(name)
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

    def budgets(self, node: Any, memory_dir: str) -> Mapping[str, int]:
        if not isinstance(node, dict):
            raise self.fail(self.data, "budgets", "budgets", "must map file names to line budgets")
        budgets = dict(DEFAULT_BUDGETS)
        for key in node:
            pattern = _relative(str(key), memory_dir)
            if node[key] is None:
                budgets.pop(pattern, None)
                continue
            budgets[pattern] = self.checked(node, key, f"budgets.{key}", BUDGET)
        return MappingProxyType(budgets)

    def patterns(self, node: Any, memory_dir: str) -> tuple[str, ...]:
        if not isinstance(node, list) or not all(isinstance(item, str) for item in node):
            raise self.fail(self.data, "append_only", "append_only", "must be a list of path globs")
        return tuple(_relative(item, memory_dir) for item in node)

    def section(self, name: str, section: type[Any]) -> Any:
        node = self.data[name]
        if not isinstance(node, dict):
            raise self.fail(self.data, name, name, "must be a mapping")
        rules = rules_of(section)
        values: dict[str, Any] = {}
        for key in node:
            rule = rules.get(key)
            if rule is None:
                raise self.fail(node, key, f"{name}.{key}", f"is not a setting (known: {', '.join(rules)})")
            values[key] = self.checked(node, key, f"{name}.{key}", rule)
        return section(**values)

    def routing(self, node: Any, append_only: tuple[str, ...]) -> Mapping[str, str]:
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
        return MappingProxyType(routing)


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
