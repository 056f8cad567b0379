"""The MCP tools' arguments, declared once: the check refuses in one line what the schema refuses, and the
schema a client sees says the same bounds (in process; tests/agents/test_mcp.py runs them on a server)."""
from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from apm_git.agents import mcp_args, mcp_tools
from apm_git.errors import UsageError

# (tool, arguments, the start of the one-line refusal)
REFUSED = [
    ("load", {"budget": -5}, "budget must be from 1 to 1,000,000; -5 is out of range"),
    ("load", {"budget": 0}, "budget must be from 1 to 1,000,000; 0 is out of range"),
    ("load", {"budget": 1_000_001}, "budget must be from 1 to 1,000,000; 1,000,001 is out of range"),
    ("load", {"budget": True}, "budget must be a whole number, not a boolean"),
    ("load", {"budget": 2.5}, "budget must be a whole number, not a number"),
    ("load", {"intent": "x" * 2_001}, "intent is 2,001 characters long; the limit is 2,000"),
    ("load", {"session": "s" * 201}, "session is 201 characters long; the limit is 200"),
    ("load", {"room": ["a"]}, "room must be a string, not a list"),
    ("load", {"main": 1}, "main must be true or false, not a number"),
    ("load", {"intent": "\udc80"}, "intent is not valid Unicode text"),
    ("search", {}, "search needs query (a string: Words to look for)"),
    ("search", {"query": "q", "limit": 0}, "limit must be from 1 to 1,000; 0 is out of range"),
    ("search", {"query": {"a": 1}}, "query must be a string, not an object"),
    ("history", {"entry_id": "x" * 100_000}, "entry_id is 100,000 characters long; the limit is 200"),
    ("hit", {"entry_ids": "2026-01-01-a"}, "entry_ids must be a list of strings, not a string"),
    ("hit", {"entry_ids": ["2026-01-01-a"] * 1_001}, "entry_ids holds 1,001 items; give 1 to 1,000"),
    ("hit", {"entry_ids": ["x" * 201]}, "entry_ids[0] is 201 characters long; the limit is 200"),
    ("journal_add", {"text": "t", "kind": "rumour"}, "kind must be one of decision, lesson, context"),
    ("journal_add", {"text": "t", "kind": "lesson", "value": "huge"}, "value must be one of HIGH, MEDIUM, LOW"),
    ("journal_add", {"text": "t", "kind": "lesson", "tags": [1]}, "tags[0] must be a string, not a number"),
    ("status", {"verbose": True}, "status takes no argument 'verbose'; it takes: no arguments"),
    ("flush", {"trigger": None, "m" * 5_000: 1}, "flush takes no argument 'mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm…'"),
]

# (tool, arguments, what the body gets, whether the schema takes them as they are: it lists the words in
# their declared spelling, and has no null)
ACCEPTED = [
    ("load", {}, {"intent": None, "budget": None, "group": None, "room": None, "main": False, "session": None}, True),
    ("load", {"budget": 1_000_000, "main": True, "intent": None}, {"budget": 1_000_000, "main": True}, False),
    ("search", {"query": "redis"}, {"query": "redis", "limit": 10, "archive": False, "archive_only": False,
                                   "meaning": False},
     True),
    ("search", {"query": "redis", "limit": 20.0}, {"limit": 20}, True),  # JSON has one kind of number
    ("journal_add", {"text": "t", "kind": "LESSON", "value": "high"}, {"kind": "lesson", "value": "HIGH"}, False),
    ("journal_add", {"text": "t", "kind": "lesson", "tags": ["a", "b"]}, {"tags": ["a", "b"], "title": None}, True),
    ("flush", {"trigger": "Pre-Compact"}, {"trigger": "pre-compact", "message": None}, False),
    ("hit", {"entry_ids": ["2026-01-01-a", "2026-01-02-b"]}, {"entry_ids": ["2026-01-01-a", "2026-01-02-b"]}, True),
]


def _check(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    declared = mcp_tools.BY_NAME[tool]
    return mcp_args.check(declared.name, declared.params, arguments)


@pytest.mark.parametrize(("tool", "arguments", "says"), REFUSED, ids=[f"{case[0]}-{case[2][:30]}" for case in REFUSED])
def test_a_bad_argument_is_refused_in_one_line_without_its_value(tool: str, arguments: dict[str, Any],
                                                                  says: str) -> None:
    with pytest.raises(UsageError) as refused:
        _check(tool, arguments)
    message = str(refused.value)
    assert message.startswith(says)
    assert "\n" not in message and len(message) < 200


@pytest.mark.parametrize(("tool", "arguments", "expected", "_"), ACCEPTED, ids=[case[0] for case in ACCEPTED])
def test_good_arguments_come_out_in_the_declared_spelling_with_defaults(tool: str, arguments: dict[str, Any],
                                                                        expected: dict[str, Any], _: bool) -> None:
    checked = _check(tool, arguments)
    assert {name: checked[name] for name in expected} == expected
    assert set(checked) == {param.name for param in mcp_tools.BY_NAME[tool].params}


def test_the_schema_is_valid_and_holds_the_same_bounds() -> None:
    validators = {}
    for tool in mcp_tools.TOOLS:
        schema = mcp_args.schema(tool.params)
        jsonschema.Draft202012Validator.check_schema(schema)
        validators[tool.name] = jsonschema.Draft202012Validator(schema)
    for tool_name, arguments, says in REFUSED:
        if "Unicode" not in says:  # JSON Schema has no word for a lone surrogate
            assert list(validators[tool_name].iter_errors(arguments)), (tool_name, says)
    for tool_name, arguments, _, schema_too in ACCEPTED:
        if schema_too:
            assert not list(validators[tool_name].iter_errors(arguments)), (tool_name, arguments)
