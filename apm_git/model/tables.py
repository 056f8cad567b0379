"""Markdown table rows, split the one way that the routing tables and INDEX.md share."""
from __future__ import annotations

import re

_PIPE = re.compile(r"(?<!\\)\|")  # a cell separator: a pipe that is not escaped as `\|`


def table_cells(row: str) -> list[str]:
    """The cells of a table row, outer pipes optional; an escaped pipe `\\|` stays inside its cell."""
    inner = row.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [cell.strip() for cell in _PIPE.split(inner)]
