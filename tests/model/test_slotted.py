"""The mutable model classes keep what `@dataclass` gave them: equality by value, no hash, a readable repr."""
from __future__ import annotations

import pytest

from apm_git.model.index_md import IndexReading
from apm_git.model.records import Block, FieldLine, Problem, Record, RecordFile, parse

TEXT = ("# Lessons\n\n## [2026-01-05] Use Redis\n- Tags: lesson\n"
        "- Fitness: last_referenced=2026-01-05, hit_count=1, decision_value=LOW\n- Body: b\n\n## Notes\nfree\n")


def test_equal_by_value_within_one_class() -> None:
    assert parse(TEXT) == parse(TEXT) and parse(TEXT) is not parse(TEXT)
    assert parse(TEXT) != parse(TEXT + "more\n")
    assert Block(["## Notes\n"], 3) == Block(["## Notes\n"], 3) != Block(["## Notes\n"], 4)
    assert Record(["## [2026-01-05] A\n"], 1, date="2026-01-05") != Record(["## [2026-01-05] A\n"], 1)


def test_a_record_never_equals_a_block_of_the_same_lines() -> None:
    assert Record(["## x\n"], 1) != Block(["## x\n"], 1)
    assert Block(["## x\n"], 1) != Record(["## x\n"], 1)


def test_private_slots_take_no_part() -> None:
    first, second = IndexReading(), IndexReading()
    first.files["lessons.md"] = 5
    assert first != second
    second.files["lessons.md"] = 5
    assert first == second


def test_mutable_objects_are_not_hashable() -> None:
    for value in (Block([], 1), Record([], 1), parse(""), IndexReading()):
        with pytest.raises(TypeError):
            hash(value)


def test_repr_shows_every_public_slot_base_class_first() -> None:
    record = Record(["## [2026-01-05] A\n"], 7, date="2026-01-05", title="A",
                    fields=[FieldLine("Tags", "lesson", 1)], problems=[Problem(7, "bad")])
    assert repr(record) == (
        "Record(line_no=7, lines=['## [2026-01-05] A\\n'], date='2026-01-05', "
        "fields=[FieldLine(name='Tags', value='lesson', offset=1)], problems=[Problem(line=7, message='bad')], "
        "proven=False, title='A')"
    )
    empty = RecordFile("", Block([], 1), [])
    assert repr(empty) == "RecordFile(blocks=[], bom='', preamble=Block(line_no=1, lines=[]))"
