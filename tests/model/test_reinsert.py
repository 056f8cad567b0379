"""Putting lost records back where they stood, and taking forgotten ones out, byte for byte."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apm_git.model.records import parse
from apm_git.model.reinsert import drop_records, keep_records, record_ids


def rec(title: str, day: str = "2026-04-06", newline: str = "\n") -> str:
    lines = [f"## [{day}] {title}", "- Tags: decision",
             f"- Fitness: last_referenced={day}, hit_count=0, decision_value=MEDIUM", f"- Body: {title} body.", ""]
    return newline.join(lines) + newline


def rid(title: str) -> str:
    return f"2026-04-06-{title.lower()}"


HEAD = "# Decisions\n\n" + rec("Alpha") + rec("Beta") + rec("Gamma") + rec("Delta")


@pytest.mark.parametrize(("current", "lost", "expected"), [
    # a record dropped from the middle goes back between its neighbours
    ("# Decisions\n\n" + rec("Alpha") + rec("Gamma") + rec("Delta"), ["Beta"], HEAD),
    # the first one goes back right after the preamble
    ("# Decisions\n\n" + rec("Beta") + rec("Gamma") + rec("Delta"), ["Alpha"], HEAD),
    # the last one, after the last survivor; two in a row keep their order
    ("# Decisions\n\n" + rec("Alpha") + rec("Beta"), ["Gamma", "Delta"], HEAD),
    # everything gone: HEAD's records after the work tree's preamble
    ("# Decisions\n", ["Alpha", "Beta", "Gamma", "Delta"], HEAD),
    # a new record the agent added stays where it is; the lost one follows its HEAD neighbour
    ("# Decisions\n\n" + rec("Alpha") + rec("New") + rec("Gamma") + rec("Delta"), ["Beta"],
     "# Decisions\n\n" + rec("Alpha") + rec("Beta") + rec("New") + rec("Gamma") + rec("Delta")),
    # reordered survivors: the lost record follows the record that preceded it in HEAD
    ("# Decisions\n\n" + rec("Gamma") + rec("Alpha") + rec("Delta"), ["Beta"],
     "# Decisions\n\n" + rec("Gamma") + rec("Alpha") + rec("Beta") + rec("Delta")),
])
def test_lost_records_go_back_where_they_stood(current: str, lost: list[str], expected: str) -> None:
    assert keep_records(current, HEAD, {rid(title) for title in lost}) == expected


def test_only_the_named_ids_come_back() -> None:
    current = "# Decisions\n\n" + rec("Alpha")
    assert keep_records(current, HEAD, {rid("Gamma")}) == current + rec("Gamma")
    assert keep_records(current, HEAD, set()) == current


def test_line_ends_are_added_around_a_record_put_back_and_nothing_else_changes() -> None:
    head = "# D\n\n" + rec("Alpha") + rec("Beta").rstrip("\n")  # HEAD's last record has no final newline
    assert keep_records("# D\n\n" + rec("Beta").rstrip("\n"), head, {rid("Alpha")}) == head
    current = "# D\n\n" + rec("Alpha").rstrip("\n")  # the work tree's last line has no line end
    assert keep_records(current, head, {rid("Beta")}) == current + "\n\n" + rec("Beta").rstrip("\n") + "\n"


def test_crlf_and_a_byte_order_mark_are_kept() -> None:
    head = "\ufeff# D\r\n\r\n" + rec("Alpha", newline="\r\n") + rec("Beta", newline="\r\n")
    current = "\ufeff# D\r\n\r\n" + rec("Beta", newline="\r\n")
    assert keep_records(current, head, {rid("Alpha")}) == head


def test_drop_records_takes_out_exactly_those_records() -> None:
    assert drop_records(HEAD, {rid("Beta"), rid("Delta")}) == "# Decisions\n\n" + rec("Alpha") + rec("Gamma")
    assert drop_records(HEAD, {"2026-01-01-absent"}) == HEAD
    fenced = "# D\n\n```\n## [2026-04-06] Beta\n```\n\n" + rec("Beta")
    assert drop_records(fenced, {rid("Beta")}) == "# D\n\n```\n## [2026-04-06] Beta\n```\n\n"


TITLES = ["Alpha", "Beta", "Gamma", "Delta", "Eps", "Zeta"]


@settings(max_examples=60, deadline=None)
@given(st.permutations(TITLES), st.sets(st.sampled_from(TITLES)), st.lists(st.sampled_from(["New1", "New2"]),
                                                                             unique=True))
def test_whatever_was_dropped_comes_back_once_and_survivors_keep_their_order(
    order: list[str], dropped: set[str], added: list[str],
) -> None:
    head = "# D\n\n" + "".join(rec(title) for title in order)
    kept_titles = [title for title in order if title not in dropped] + added
    current = "# D\n\n" + "".join(rec(title) for title in kept_titles)
    result = keep_records(current, head, {rid(title) for title in dropped})
    ids = record_ids(parse(result))
    assert sorted(ids) == sorted(rid(title) for title in [*order, *added])
    survivors = [rid(title) for title in kept_titles]
    assert [entry for entry in ids if entry in survivors] == survivors
    assert drop_records(result, {rid(title) for title in dropped}) == current
