"""What makes `group_names.json` and `flush-state.json` usable: checks of their parsed JSON, no I/O.

apm_git/store/state.py reads and writes the files with these checks; the `apm-state-json` check
runs them on a commit's text.
"""
from __future__ import annotations

from typing import Any

from apm_git import clock
from apm_git.model.groups import GROUP_NAME_RULE, is_group_name
from apm_git.model.names import FLUSH_STATE, GROUP_NAMES


def group_names_problem(data: Any) -> str | None:
    """What is wrong with the parsed `group_names.json`, or None when it is usable."""
    if not isinstance(data, dict):
        return 'must be an object {"<room id>": "<group name>"}'
    for room, name in data.items():
        if not is_group_name(name):
            return f"room {room!r} maps to unsafe group name {name!r} ({GROUP_NAME_RULE})"
    return None


def flush_state_problem(data: Any) -> str | None:
    """What is wrong with the parsed `flush-state.json`, or None when it is usable."""
    if not isinstance(data, dict):
        return "must be an object with groups, main_session and pending_items"
    for key, kind in (("groups", dict), ("main_session", dict), ("pending_items", list), ("dreaming", dict)):
        if key in data and not isinstance(data[key], kind):
            return f"{key!r} must be a JSON {'object' if kind is dict else 'array'}"
    for key, value in data.get("groups", {}).items():
        if key != "last_flush_time" and not isinstance(value, dict):
            return f"groups.{key} must be an object"
    for dotted, value in _timestamps(data):
        problem = clock.stamp_problem(value)
        if problem is not None:
            return f"{dotted!r} {problem}"
    return None


def _timestamps(data: dict[str, Any]) -> list[tuple[str, Any]]:
    """(dotted key, value) of every timestamp apm-git reads from flush-state.json."""
    found = []
    for section in ("groups", "main_session"):
        if "last_flush_time" in data.get(section, {}):
            found.append((f"{section}.last_flush_time", data[section]["last_flush_time"]))
    for group, value in data.get("groups", {}).items():
        if isinstance(value, dict) and "last_flush_time" in value:
            found.append((f"groups.{group}.last_flush_time", value["last_flush_time"]))
    for key in ("last_deep_sleep", "last_rem"):
        if key in data.get("dreaming", {}):
            found.append((f"dreaming.{key}", data["dreaming"][key]))
    return found


PROBLEMS = {GROUP_NAMES: group_names_problem, FLUSH_STATE: flush_state_problem}
