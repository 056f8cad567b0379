"""locate.entry_block: one entry's lines, found the way the record parser finds records."""
from __future__ import annotations

import pytest

from apm_git.dreaming.locate import entry_block
from tests.records import record

FENCED = record("2026-04-06", "Deploy notes").rstrip("\n") + (
    "\n```sh\n## not a heading: a comment in the script\nmake deploy\n```\nMore body after the fence.\n\n"
)
QUOTING = record("2026-04-05", "Quoting another").rstrip("\n") + (
    "\n~~~\n## [2026-04-07] Next\n(an old copy, quoted)\n~~~\n\n"
)
NEXT = record("2026-04-07", "Next")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_fenced_heading_neither_ends_an_entry_nor_starts_one(newline: str) -> None:
    text = ("# Decisions\n\n" + QUOTING + FENCED + NEXT).replace("\n", newline)
    block = entry_block(text, "2026-04-06-deploy-notes")
    assert block == FENCED.rstrip().replace("\n", newline)
    assert block is not None and block.endswith("More body after the fence.")
    assert entry_block(text, "2026-04-07-next") == NEXT.rstrip().replace("\n", newline)


def test_without_fences_a_record_ends_at_the_next_heading() -> None:
    text = "# Decisions\n\n" + record("2026-04-06", "Plain") + "## Notes\nnot part of it\n"
    assert entry_block(text, "2026-04-06-plain") == record("2026-04-06", "Plain").rstrip()
    assert entry_block(text, "2026-04-06-missing") is None
