"""Group names: the one rule for a safe name (it becomes a file and a folder name under `groups/`)."""
from __future__ import annotations

import re

from apm_git.errors import UsageError

GROUP_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
# flush-state.json keeps the seed's `groups.last_flush_time` beside the per-group entries.
RESERVED_GROUP_NAMES = frozenset({"last_flush_time"})
GROUP_NAME_RULE = "use 1-64 of a-z 0-9 . _ - starting with a letter or digit, no '..', not 'last_flush_time'"


def is_group_name(name: object) -> bool:
    return (
        isinstance(name, str) and GROUP_NAME.fullmatch(name) is not None and ".." not in name
        and name not in RESERVED_GROUP_NAMES
    )


def check_group_name(name: str) -> str:
    if not is_group_name(name):
        raise UsageError(f"unsafe group name {name!r}: {GROUP_NAME_RULE}")
    return name
