"""`flush-state.json` and `group_names.json`, merged key by key (docs/merge.md, "State files").

- `group_names.json`: the union of both sides' rooms; a room that both sides mapped to
  different groups keeps ours's mapping and is reported as a conflict for a person to settle.
- `flush-state.json`: objects merge key by key.  A flush record (an object of plain values,
  such as `main_session` or `groups.<group>`) that both sides changed is taken whole from
  the side whose `last_flush_time` is later; any other value both sides changed takes the
  later timestamp when both are timestamps, else ours.  Lists (`pending_items`) keep what
  neither side removed, ours's items first, then theirs's new ones, each once.
"""
from __future__ import annotations

import json
from typing import Any

from apm_git.clock import parse_stamp
from apm_git.model.names import GROUP_NAMES

_ABSENT: Any = object()


def merge_json(rel: str, base: Any, ours: Any, theirs: Any) -> tuple[Any, list[str]]:
    """The merged value and, for `group_names.json`, the rooms both sides mapped differently (one line each)."""
    conflicts: list[str] = []
    if rel.rsplit("/", 1)[-1] == GROUP_NAMES and isinstance(ours, dict) and isinstance(theirs, dict):
        old = base if isinstance(base, dict) else {}
        merged: dict[str, Any] = {}
        for room in dict.fromkeys([*ours, *theirs]):
            value = _pick(old.get(room, _ABSENT), ours.get(room, _ABSENT), theirs.get(room, _ABSENT))
            if value is _CLASH:
                conflicts.append(f"room {room!r} maps to {ours[room]!r} here and to {theirs[room]!r} on the "
                                 f"other side; ours is kept, settle it in {GROUP_NAMES}")
                value = ours[room]
            if value is not _ABSENT:
                merged[room] = value
        return merged, conflicts
    return _merge_value(base, ours, theirs), conflicts


_CLASH: Any = object()


def _pick(base: Any, ours: Any, theirs: Any) -> Any:
    if ours == theirs:
        return ours
    if base == ours and base is not _ABSENT:
        return theirs
    if base == theirs and base is not _ABSENT:
        return ours
    if ours is _ABSENT:  # deleted on one side, changed on the other: kept, changed
        return theirs
    if theirs is _ABSENT:
        return ours
    return _CLASH


def _merge_value(base: Any, ours: Any, theirs: Any) -> Any:
    picked = _pick(base, ours, theirs)
    if picked is not _CLASH:
        return picked
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if _is_flush_record(ours) and _is_flush_record(theirs):
            return theirs if _later(theirs.get("last_flush_time"), ours.get("last_flush_time")) else ours
        old = base if isinstance(base, dict) else {}
        merged = {}
        for key in dict.fromkeys([*ours, *theirs]):
            value = _merge_value(old.get(key, _ABSENT), ours.get(key, _ABSENT), theirs.get(key, _ABSENT))
            if value is not _ABSENT:
                merged[key] = value
        return merged
    if isinstance(ours, list) and isinstance(theirs, list):
        return _merge_list(base if isinstance(base, list) else [], ours, theirs)
    if isinstance(ours, str) and isinstance(theirs, str) and _later(theirs, ours):
        return theirs
    return ours


def _is_flush_record(value: dict[str, Any]) -> bool:
    return "last_flush_time" in value and not any(isinstance(item, (dict, list)) for item in value.values())


def _later(one: Any, two: Any) -> bool:
    """Whether `one` is a timestamp later than the timestamp `two` (False when either is none)."""
    if not isinstance(one, str) or not isinstance(two, str):
        return False
    first, second = parse_stamp(one), parse_stamp(two)
    if first is None or second is None:
        return False
    try:
        return first > second
    except TypeError:  # one with an offset, one without
        return one > two


def _merge_list(base: list[Any], ours: list[Any], theirs: list[Any]) -> list[Any]:
    def key(item: Any) -> str:
        return json.dumps(item, sort_keys=True, ensure_ascii=False)

    old = {key(item) for item in base}
    mine = {key(item) for item in ours}
    other = {key(item) for item in theirs}
    merged: list[Any] = []
    seen: set[str] = set()
    for item in ours:
        if key(item) not in seen and (key(item) in other or key(item) not in old):
            merged.append(item)
            seen.add(key(item))
    for item in theirs:
        if key(item) not in seen and key(item) not in mine and key(item) not in old:
            merged.append(item)
            seen.add(key(item))
    return merged


def render_json(value: Any) -> str:
    """As apm-git writes its state files."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
