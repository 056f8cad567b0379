"""`json.loads` that fails as invalid JSON, never with a RecursionError.

Python's JSON decoder recurses once per nesting level; a file nested 100,000 deep (state
files, a hook payload, a plan) would end in a RecursionError.  Such a file is reported as what
it is, invalid input, at the position where the nesting passed the limit.
"""
from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 100  # apm-git's own JSON is at most 4 deep; payloads and plans a few more


def loads(text: str) -> Any:
    """The parsed JSON; json.JSONDecodeError for invalid text and for nesting past MAX_DEPTH."""
    too_deep = _too_deep(text)
    if too_deep is not None:
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text, too_deep)
    return json.loads(text)


def _too_deep(text: str) -> int | None:
    """The position of the first bracket past MAX_DEPTH, or None; strings are skipped."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None  # the common case: too few brackets to nest that deep at all
    import re

    depth = 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        token = match[0]
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return None
