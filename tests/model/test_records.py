from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apm_git.model import records
from apm_git.model.fitness import Fitness
from apm_git.model.records import Record, parse, render_record, set_field, set_heading, split_lines

GOOD = (
    "# Decisions\n"
    "\n"
    "## [2026-04-06] Redis cache strategy\n"
    "- Tags: decision, cache, redis\n"
    "- Fitness: last_referenced=2026-04-07, hit_count=3, decision_value=HIGH\n"
    "- Body: Use Redis for the session cache; Memcached lost keys on restart.\n"
    "- Source: memory/2026-04-05.md\n"
    "Longer body line kept verbatim.\n"
    "\n"
    "## [2026-04-07] [PROVEN] API version v2\n"
    "- Tags: decision, api\n"
    "- Fitness: last_referenced=2026-04-08, hit_count=7, decision_value=HIGH\n"
    "- Body: Version the API in the path.\n"
)


def test_parses_preamble_records_fields_and_proven() -> None:
    parsed = parse(GOOD)
    assert parsed.preamble.text == "# Decisions\n\n"
    first, second = parsed.records
    assert first.ok and second.ok
    assert first.id == "2026-04-06-redis-cache-strategy"
    assert first.tags == ["decision", "cache", "redis"]
    assert first.kind == "decision"
    assert first.fitness == Fitness(dt.date(2026, 4, 7), 3, "HIGH")
    assert first.field("Source") == "memory/2026-04-05.md"
    assert first.extra_lines == ["Longer body line kept verbatim."]
    assert first.line_no == 3
    assert second.proven and second.title == "API version v2"
    assert second.id == "2026-04-07-api-version-v2"
    assert parsed.render() == GOOD


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("## [2026-13-01] Bad date\n- Tags: a\n- Fitness: last_referenced=2026-01-01, hit_count=0, "
         "decision_value=LOW\n- Body: b\n", 1, "not a valid YYYY-MM-DD date"),
        ("## [2026-01-01] No body\n- Tags: a\n- Fitness: last_referenced=2026-01-01, hit_count=0, "
         "decision_value=LOW\n", 1, "missing field '- Body:'"),
        ("## [2026-01-01] Order\n- Fitness: last_referenced=2026-01-01, hit_count=0, decision_value=LOW\n"
         "- Tags: a\n- Body: b\n", 3, "out of order"),
        ("## [2026-01-01] Fitness\n- Tags: a\n- Fitness: hits=3\n- Body: b\n", 3, "Fitness must read"),
        ("## [2026-01-01] Value\n- Tags: a\n- Fitness: last_referenced=2026-01-01, hit_count=0, "
         "decision_value=HUGE\n- Body: b\n", 3, "decision_value='HUGE'"),
        ("## [2026-01-01]\n- Tags: a\n- Fitness: last_referenced=2026-01-01, hit_count=0, "
         "decision_value=LOW\n- Body: b\n", 1, "no title"),
        ("## [2026-01-01] Empty tags\n- Tags:\n- Fitness: last_referenced=2026-01-01, hit_count=0, "
         "decision_value=LOW\n- Body: b\n", 2, "Tags is empty"),
    ],
)
def test_malformed_records_are_kept_and_reported(text: str, line: int, message: str) -> None:
    source = "# T\n\n" + text
    parsed = parse(source)
    (record,) = parsed.records
    assert not record.ok
    assert any(problem.line == line + 2 and message in problem.message for problem in record.problems), record.problems
    assert parsed.entries == []
    assert parsed.render() == source


def test_crlf_bom_and_no_final_newline_round_trip() -> None:
    text = "\ufeff# T\r\n\r\n## [2026-01-01] A\r\n- Tags: x\r\n- Fitness: last_referenced=2026-01-01, " \
           "hit_count=1, decision_value=LOW\r\n- Body: b"
    parsed = parse(text)
    assert parsed.bom == "\ufeff"
    assert parsed.newline == "\r\n"
    (record,) = parsed.entries
    assert record.body == "b"
    assert parsed.render() == text


def test_heading_inside_code_fence_stays_in_the_record() -> None:
    text = GOOD + "```\n## [2026-01-01] not a record\n```\n"
    parsed = parse(text)
    assert len(parsed.records) == 2
    assert parsed.render() == text


def test_session_notes_are_blocks_not_records() -> None:
    text = "# Journal\n\n## 14:30 — Session Notes\n- **Decision:** use X — because Y\n"
    parsed = parse(text)
    assert parsed.records == []
    assert parsed.blocks[0].heading == "## 14:30 — Session Notes"


def test_render_record_parses_back_well_formed() -> None:
    text = render_record(dt.date(2026, 4, 6), "Redis cache", ["decision", "cache"],
                         Fitness(dt.date(2026, 4, 6), 0, "MEDIUM"), "Use Redis.", newline="\r\n")
    (record,) = parse(text).records
    assert record.ok and record.id == "2026-04-06-redis-cache"
    assert text.endswith("\r\n\r\n")


def _only(text: str) -> Record:
    (record,) = parse(text).records
    return record


def test_set_field_changes_one_line_only() -> None:
    record = parse(GOOD).records[0]
    changed = set_field(record, "Fitness", "last_referenced=2026-05-01, hit_count=4, decision_value=HIGH")
    assert changed.fitness == Fitness(dt.date(2026, 5, 1), 4, "HIGH")
    assert [a for a, b in zip(record.lines, changed.lines, strict=True) if a != b] == [record.lines[2]]
    added = set_field(record, "Superseded-by", "2026-05-01-redis-v2")
    assert added.lines[5] == "- Superseded-by: 2026-05-01-redis-v2\n"
    assert added.extra_lines == record.extra_lines


def test_set_field_keeps_crlf_and_heading_toggles_proven() -> None:
    record = _only("## [2026-01-01] A\r\n- Tags: x\r\n- Fitness: last_referenced=2026-01-01, hit_count=1, "
                   "decision_value=LOW\r\n- Body: b")
    added = set_field(record, "Merged", "2025-01-01-a")
    assert added.text.endswith("- Body: b\r\n- Merged: 2025-01-01-a")
    proven = set_heading(added, proven=True)
    assert proven.lines[0] == "## [2026-01-01] [PROVEN] A\r\n" and proven.proven and proven.id == record.id


def test_split_lines_only_splits_on_newline() -> None:
    assert split_lines("a\r\nb\x0bc\u2028d\n") == ["a\r\n", "b\x0bc\u2028d\n"]


_alphabet = st.sampled_from(["## [2026-01-01] T\n", "- Tags: a\n", "- Body: b\n", "```\n", "\r\n", "\n", "\r",
                             "\ufeff", "- Fitness: last_referenced=2026-01-01, hit_count=2, decision_value=LOW\n",
                             "## ", "[PROVEN] ", "x", "é", "\u2028", "\x00", " "])


@pytest.mark.slow
@settings(max_examples=400)
@given(st.lists(_alphabet, max_size=40).map("".join))
def test_round_trip_structured(text: str) -> None:
    assert parse(text).render() == text


@settings(max_examples=400)
@given(st.text())
def test_round_trip_arbitrary(text: str) -> None:
    assert parse(text).render() == text


@pytest.mark.parametrize(("text", "newline"), [
    ("", "\n"), ("no end", "\n"), ("a\nb\r\n", "\n"), ("a\r\nb\n", "\r\n"), ("\ufeff\r\n", "\r\n"), ("\n", "\n"),
])
def test_newline_of_is_the_first_line_end(text: str, newline: str) -> None:
    assert records.newline_of(text) == newline
    assert records.parse(text).newline == newline


@pytest.mark.parametrize(("text", "ready"), [
    ("", ""), ("# T", "# T\n\n"), ("# T\n", "# T\n\n"), ("# T\n\n", "# T\n\n"), ("\n", "\n"),
])
def test_ready_to_append_ends_with_a_blank_line(text: str, ready: str) -> None:
    assert records.ready_to_append(text, "\n") == ready
    assert records.ready_to_append(text.replace("\n", "\r\n"), "\r\n") == ready.replace("\n", "\r\n")


@pytest.mark.parametrize(
    ("heading", "is_record"),
    [
        ("## [2026-04-06] Title", True),
        ("## [2026/04/06] Slashes", True),  # tries to be a record: reported, with its date problem
        ("## [2026-13-45] Bad date", True),
        ("## [18:10] blog scraper fix", False),
        ("## [[Links]]", False),
        ("## [确认/有异议] Workflow", False),
        ("## 2026-05-13 — Dated heading", False),
        ("## Notes", False),
    ],
)
def test_a_section_is_a_record_when_it_tries_to_be_one(heading: str, is_record: bool) -> None:
    text = f"# T\n\n{heading}\nfree text\n"
    (block,) = parse(text).blocks
    assert isinstance(block, Record) is is_record
    assert records.is_record_heading(heading) is is_record
    assert parse(text).render() == text


def test_record_fields_under_another_heading_make_a_malformed_record() -> None:
    text = ("## 2026-04-06 Redis\n- Tags: decision\n- Fitness: last_referenced=2026-04-06, hit_count=0, "
            "decision_value=LOW\n- Body: b\n")
    (record,) = parse(text).records
    assert not record.ok and record.title == "2026-04-06 Redis"
    assert [problem.message for problem in record.problems] == ["header must be '## [YYYY-MM-DD] Title'"]
    assert parse(text).entries == [] and parse(text).render() == text
