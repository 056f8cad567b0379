"""Read `apm.yaml` as plain, bounded YAML: no anchors or aliases, a bounded nesting depth, a bounded size.

An alias bomb (`&a [*b, *b, …]` nested a few levels) expands to billions of nodes in
whatever later walks or prints the value, and deep nesting exhausts Python's recursion;
both are refused here, before anything reads a value.  apm.yaml holds a few settings three
levels deep at most, so the bounds cost a real configuration nothing.
"""
from __future__ import annotations

import re
from typing import Any

from apm_git.errors import ConfigError

CONFIG_FILE = "apm.yaml"
MAX_BYTES = 256 * 1024  # characters; config.MAX_CONFIG_BYTES bounds the bytes read
MAX_DEPTH = 8  # nodes from the top mapping down; a setting is 3 deep (rem -> every_days -> 7)
# What a flow collection's nesting is counted over: brackets outside quotes and comments.
_FLOW_TOKEN = re.compile(r"""'(?:[^']|'')*'|"(?:[^"\\]|\\.)*"|#[^\n]*|[\[\]{}]""")


def load_yaml(text: str) -> Any:
    """The parsed document (ruamel.yaml's round-trip types, so each key keeps its line)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    if len(text) > MAX_BYTES:
        raise ConfigError(f"{CONFIG_FILE} is over {MAX_BYTES // 1024} KB; it holds a few settings: fix the file")
    _check_flow_depth(text)
    yaml = YAML(typ="rt")
    yaml.Composer = _composer_class()
    yaml.max_depth = MAX_DEPTH
    try:
        return yaml.load(text)
    except _Refused as refused:
        raise ConfigError(str(refused)) from None
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or "not valid YAML"
        if type(error).__name__ == "MaxDepthExceededError":
            problem = f"nested deeper than {MAX_DEPTH} levels (a setting is at most 3 deep)"
        raise ConfigError(f"{CONFIG_FILE}{where}: {problem}; fix the file") from None


def _check_flow_depth(text: str) -> None:
    """Refuse `[[[[…` or `{a: {a: …` nested past MAX_DEPTH before the scanner sees it (its cost
    grows with the square of the depth)."""
    depth = 0
    for match in _FLOW_TOKEN.finditer(text):
        token = match[0]
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, match.start()) + 1
                raise ConfigError(f"{CONFIG_FILE}:{line}: nested deeper than {MAX_DEPTH} levels (a setting is "
                                  "at most 3 deep); fix the file")
        elif token in "]}":
            depth = max(0, depth - 1)


class _Refused(Exception):
    pass


def _composer_class() -> type[Any]:
    """A composer that refuses anchors and aliases, naming the setting they sit under."""
    from ruamel.yaml.composer import Composer
    from ruamel.yaml.events import AliasEvent
    from ruamel.yaml.nodes import ScalarNode

    class StrictComposer(Composer):
        keys: list[str]

        def compose_node(self, parent: Any, index: Any) -> Any:
            keys = self.__dict__.setdefault("keys", [])
            event = self.parser.peek_event()
            key = str(index.value) if isinstance(index, ScalarNode) else None
            if isinstance(event, AliasEvent) or getattr(event, "anchor", None) is not None:
                where = ".".join([*keys, key] if key else keys) or "the document"
                raise _Refused(
                    f"{CONFIG_FILE}:{event.start_mark.line + 1}: {where} uses a YAML anchor or alias "
                    "(&name, *name, <<: *name); apm.yaml does not allow them: write the value out, then "
                    "fix the file",
                )
            if key is not None:
                keys.append(key)
            try:
                return super().compose_node(parent, index)
            finally:
                if key is not None:
                    keys.pop()

    return StrictComposer
