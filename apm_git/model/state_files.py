"""What makes `group_names.json` and `flush-state.json` usable: checks of their parsed JSON, no I/O.

apm_git/store/state.py reads and writes the files with these checks; the `apm-state-json` check
runs them on a commit's text.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any

from apm_git import clock, jsontext
from apm_git.model.groups import GROUP_NAME_RULE, is_group_name
from apm_git.model.limits import MAX_FILE_BYTES, megabytes
from apm_git.model.names import FLUSH_STATE, GROUP_NAMES


@dataclasses.dataclass(frozen=True)
class Part:
    """A top-level key of flush-state.json: the JSON type it holds and its keys that are timestamps.

    `per_group`: each of its other keys is a group's own object, with the same timestamps (`groups`).
    A key apm-git does not know is kept as it is, unread.
    """

    key: str
    kind: type[dict[str, Any]] | type[list[Any]]
    stamps: tuple[str, ...] = ()
    per_group: bool = False


# The shape of flush-state.json (the seed's keys, and `dreaming`); `pending_items` is a list of any items.
FLUSH_STATE_PARTS = (
    Part("groups", dict, ("last_flush_time",), per_group=True),
    Part("main_session", dict, ("last_flush_time",)),
    Part("pending_items", list),
    Part("dreaming", dict, ("last_deep_sleep", "last_rem")),
)


def group_names_problem(data: Any) -> str | None:
    """What is wrong with the parsed `group_names.json`, or None when it is usable."""
    if not isinstance(data, dict):
        return 'must be an object {"<room id>": "<group name>"}'
    for room, name in data.items():
        if not is_group_name(name):
            return f"room {room!r} maps to unsafe group name {name!r} ({GROUP_NAME_RULE})"
    return None


def flush_state_problem(data: Any) -> str | None:
    """What is wrong with the parsed `flush-state.json` (by FLUSH_STATE_PARTS), or None when it is usable."""
    if not isinstance(data, dict):
        return "must be an object with groups, main_session and pending_items"
    for part in FLUSH_STATE_PARTS:
        if part.key in data and not isinstance(data[part.key], part.kind):
            return f"{part.key!r} must be a JSON {'object' if part.kind is dict else 'array'}"
    for part in FLUSH_STATE_PARTS:
        if part.per_group:
            for key, value in data.get(part.key, {}).items():
                if key not in part.stamps and not isinstance(value, dict):
                    return f"{part.key}.{key} must be an object"
    for dotted, value in _timestamps(data):
        problem = clock.stamp_problem(value)
        if problem is not None:
            return f"{dotted!r} {problem}"
    return None


def _timestamps(data: dict[str, Any]) -> list[tuple[str, Any]]:
    """(dotted key, value) of every timestamp flush-state.json holds, by FLUSH_STATE_PARTS."""
    found = []
    for part in FLUSH_STATE_PARTS:
        node = data.get(part.key, {})
        found += [(f"{part.key}.{stamp}", node[stamp]) for stamp in part.stamps if stamp in node]
        if part.per_group:
            found += [(f"{part.key}.{group}.{stamp}", value[stamp]) for group, value in node.items()
                      if isinstance(value, dict) for stamp in part.stamps if stamp in value]
    return found


PROBLEMS = {GROUP_NAMES: group_names_problem, FLUSH_STATE: flush_state_problem}


def state_file_problem(rel: str, data: bytes | None, size: int) -> str | None:
    """What makes the bytes of a state file (`rel`: one of PROBLEMS) unusable, or None when apm-git can use
    them: over the read limit (`data` None: not read for its `size`), not UTF-8, not JSON (nesting past
    jsontext.MAX_DEPTH included), or not the file's shape.  Sync asks it of what a remote brings."""
    if data is None or size > MAX_FILE_BYTES:
        return f"is {megabytes(size)}, over the {megabytes(MAX_FILE_BYTES)} apm-git reads"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"is not valid UTF-8 (byte {error.start})"
    try:
        parsed = jsontext.loads(text)
    except json.JSONDecodeError as error:
        return f"is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
    return PROBLEMS[rel](parsed)
