"""Markdown table rows: the splitter the routing tables and INDEX.md share."""
from __future__ import annotations

import pytest

from apm_git.model import routing
from apm_git.model.tables import table_cells


@pytest.mark.parametrize(("row", "cells"), [
    ("| a | b | c |", ["a", "b", "c"]),
    ("a | b | c", ["a", "b", "c"]),
    ("  | a |  | c |  ", ["a", "", "c"]),
    ("| x \\| y | z |", ["x \\| y", "z"]),
    ("| a | b \\|", ["a", "b \\|"]),
])
def test_table_cells(row: str, cells: list[str]) -> None:
    assert table_cells(row) == cells


def test_an_escaped_pipe_in_a_routing_row_stays_in_its_cell() -> None:
    table = routing.parse_routing(
        "## Routing\n\n| Trigger keywords | File | Priority |\n|---|---|---|\n| ci\\|cd, deploy | project.md | P1 |\n",
    )
    assert table.problems == ()
    assert [(route.keywords, route.file) for route in table.routes] == [(("ci\\|cd", "deploy"), "project.md")]
