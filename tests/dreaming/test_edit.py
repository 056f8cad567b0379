"""Consolidation's text edits: LinesAfterEdit counts exactly what the edit it stands for would produce."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from apm_git.dreaming.edit import LinesAfterEdit, append_records, rewrite
from apm_git.model.records import BOM, Record, count_lines, parse
from tests.records import record

PREAMBLES = ("", "# Decisions\n", "# Decisions\n\nNotes.\n", "\n", "  \n")
BLOCKS = (
    record("2026-04-01", "Plain"),
    record("2026-04-02", "No blank after").rstrip("\n") + "\n",
    record("2026-04-03", "Longer body") + "  more words\n\n\n",
    "## Notes\nnot a record\n",
    "## [2026-04-04] Broken record\n",
)


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, list[Record], list[tuple[str, int]], str]:
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    blocks = draw(st.lists(st.sampled_from(BLOCKS), max_size=6))
    text = draw(st.sampled_from(["", BOM])) + draw(st.sampled_from(PREAMBLES)) + "".join(blocks)
    if draw(st.booleans()):
        text = text.rstrip("\n")
    text = text.replace("\n", newline)
    added = [parse(record("2026-04-09", f"New {n}")).records[0] for n in range(draw(st.integers(0, 3)))]
    steps = [("remove", index) for index in range(len(blocks))] + [("take", index) for index in range(len(added))]
    return text, added, draw(st.permutations(steps)), newline


@settings(max_examples=300, deadline=None)
@given(edits())
def test_lines_after_edit_matches_the_edited_text(edit: tuple[str, list[Record], list[tuple[str, int]], str]) -> None:
    text, added, steps, newline = edit
    parsed = parse(text)
    lines = LinesAfterEdit(parsed, added, newline)
    removed: list[int] = []
    joining = list(range(len(added)))
    for step, index in [("start", -1), *steps]:
        if step == "remove":
            removed.append(index)
            lines.remove(index)
        elif step == "take":
            joining.remove(index)
            lines.take_back(index)
        edited = append_records(rewrite(parsed, dict.fromkeys(removed)), [added[i] for i in joining], newline)
        assert lines.count == count_lines(edited)
