"""The arguments of an MCP tool, declared once: the JSON schema a client sees and the check a call passes.

A tool's arguments come from a model, so they are checked here before any work starts: the JSON type
(a string is not a number, `true` is not a string), the bounds (no negative budget, no 100,000-character
id), the allowed words, and no argument the tool does not take.  Each refusal is one line that names the
argument and the rule, and never repeats the value: a 2 MB intent is not echoed back.  The SDK's own
pydantic validation would answer with several lines and the rejected value.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

from apm_git.errors import UsageError

Kind = Literal["string", "integer", "boolean", "strings"]
_WORDS: dict[Kind, str] = {"string": "a string", "integer": "a whole number", "boolean": "true or false",
                           "strings": "a list of strings"}


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    kind: Kind
    about: str
    required: bool = False
    default: Any = None
    max_chars: int | None = None  # a string, or each string of a list
    max_items: int | None = None
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()  # matched without regard to case; the declared spelling is passed on


def schema(params: tuple[Param, ...]) -> dict[str, Any]:
    """The tool's `inputSchema`: the same bounds the check holds, so a client can keep to them."""
    properties: dict[str, Any] = {}
    for param in params:
        prop: dict[str, Any] = {"type": "array" if param.kind == "strings" else param.kind,
                                "description": param.about}
        chars = {"maxLength": param.max_chars} if param.max_chars is not None else {}
        if param.kind == "strings":
            prop["items"] = {"type": "string", **chars}
            if param.max_items is not None:
                prop.update(minItems=1, maxItems=param.max_items)
        else:
            prop.update(chars)
        if param.low is not None:
            prop["minimum"] = param.low
        if param.high is not None:
            prop["maximum"] = param.high
        if param.choices:
            prop["enum"] = list(param.choices)
        if param.default is not None:
            prop["default"] = param.default
        properties[param.name] = prop
    required = [param.name for param in params if param.required]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def check(tool: str, params: tuple[Param, ...], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments as the tool's body takes them (defaults filled in), or a UsageError of one line.

    A null counts as an argument not given, as an optional parameter of the command line would be.
    """
    known = {param.name: param for param in params}
    unknown = sorted(name for name in arguments if name not in known)
    if unknown:
        takes = ", ".join(known) or "no arguments"
        raise UsageError(f"{tool} takes no argument {_shown(unknown[0])}; it takes: {takes}")
    checked: dict[str, Any] = {}
    for param in params:
        value = arguments.get(param.name)
        if value is None:
            if param.required:
                raise UsageError(f"{tool} needs {param.name} ({_WORDS[param.kind]}: {param.about.rstrip('.')})")
            checked[param.name] = param.default
        else:
            checked[param.name] = _value(param, value)
    return checked


def _value(param: Param, value: Any) -> Any:
    if param.kind == "strings":
        if not isinstance(value, list):
            raise UsageError(f"{param.name} must be {_WORDS['strings']}, not {_json_type(value)}")
        if param.max_items is not None and not 1 <= len(value) <= param.max_items:
            raise UsageError(f"{param.name} holds {len(value):,} items; give 1 to {param.max_items:,}")
        return [_text(param, item, f"{param.name}[{index}]") for index, item in enumerate(value)]
    if param.kind == "string":
        return _text(param, value, param.name)
    if param.kind == "boolean":
        if not isinstance(value, bool):
            raise UsageError(f"{param.name} must be true or false, not {_json_type(value)}")
        return value
    if isinstance(value, float) and value.is_integer():  # JSON has one kind of number: 20.0 is 20
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{param.name} must be a whole number, not {_json_type(value)}")
    low = param.low if param.low is not None else value
    high = param.high if param.high is not None else value
    if not low <= value <= high:
        raise UsageError(f"{param.name} must be from {low:,} to {high:,}; {_number(value)} is out of range")
    return value


def _text(param: Param, value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{name} must be a string, not {_json_type(value)}")
    if param.max_chars is not None and len(value) > param.max_chars:
        raise UsageError(f"{name} is {len(value):,} characters long; the limit is {param.max_chars:,}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{name} is not valid Unicode text (it holds a lone surrogate escape)") from None
    if param.choices:
        for word in param.choices:
            if word.casefold() == value.casefold():
                return word
        raise UsageError(f"{name} must be one of {', '.join(param.choices)}")
    return value


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _number(value: int) -> str:
    digits = len(str(abs(value)))
    return f"{value:,}" if digits <= 15 else f"a {digits}-digit number"


def _shown(name: str) -> str:
    return repr(name if len(name) <= 40 else name[:40] + "…")
