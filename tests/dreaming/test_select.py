"""Part of a consolidation, entry by entry (dreaming/select.py): a pure function of texts."""
from __future__ import annotations

from apm_git.dreaming.select import changed_ids, select
from tests.checks.helpers import record

A, B, C = record("2026-01-01", "A"), record("2026-01-02", "B"), record("2026-01-03", "C")
PROVEN_B = B.replace("## [2026-01-02] B", "## [2026-01-02] [PROVEN] B")
BEFORE = {"decisions.md": "# Decisions\n\n" + A + B + C, "archive/2026-06.md": ""}
AFTER = {"decisions.md": "# Decisions\n\n" + PROVEN_B, "archive/2026-06.md": "# Archive 2026-06\n\n" + A + C}


def test_every_change_chosen_is_the_run_itself() -> None:
    assert changed_ids(BEFORE, AFTER) == {"2026-01-01-a", "2026-01-02-b", "2026-01-03-c"}
    assert select(BEFORE, AFTER, {"2026-01-01-a", "2026-01-02-b", "2026-01-03-c"}) == AFTER


def test_an_entry_left_out_stays_where_it_was() -> None:
    writes = select(BEFORE, AFTER, {"2026-01-03-c", "2026-01-02-b"})
    assert writes == {"decisions.md": "# Decisions\n\n" + A + PROVEN_B,
                      "archive/2026-06.md": "# Archive 2026-06\n\n" + C}


def test_nothing_chosen_writes_nothing_and_creates_no_file() -> None:
    assert select(BEFORE, AFTER, set()) == {}
