"""The pure parts of recall: a section's passages, the date above them, the words as the index sees them, and
which sections are a template's untouched text (issue 25)."""
from __future__ import annotations

import pytest

from apm_git.model import text_dates as dates
from apm_git.model import text_sections as sections
from apm_git.search import boiler, passages, terms
from apm_git.store import templates

SESSION = """# Conversations, May 2023

## Session 4 — 8 May 2023

- Maya: How was your week?
- Tom: I sprained my ankle playing tennis yesterday,
  so I'm on crutches for a while.
- Maya: Oh no, that's rough.

| when | what |
|---|---|
| Monday | physio |
"""


def spans(text: str, name: str = "dialogs/2023-05.md") -> list[list[tuple[int, int, str]]]:
    return [[(p.line, p.last, p.text.split("\n")[0]) for p in passages.split(section)]
            for section in sections.split(text, name)]


def test_a_section_is_cut_into_list_items_paragraphs_and_table_rows() -> None:
    title, session = spans(SESSION)
    assert title == [(1, 1, "# Conversations, May 2023")]  # a heading alone is its own passage
    assert session == [(5, 5, "- Maya: How was your week?"),
                       (6, 7, "- Tom: I sprained my ankle playing tennis yesterday,"),  # with its continuation
                       (8, 8, "- Maya: Oh no, that's rough."),
                       (10, 10, "| when | what |"), (12, 12, "| Monday | physio |")]  # the rule row is no passage


def test_a_long_paragraph_is_cut_every_eight_lines_and_a_fence_stays_whole() -> None:
    text = "## Notes\n\n" + "\n".join(f"line {n}" for n in range(1, 20)) + "\n\n```\n# not a heading\nx = 1\n```\n"
    (notes,) = spans(text, "notes.md")
    assert [(first, last) for first, last, _ in notes] == [(3, 10), (11, 18), (19, 21), (23, 26)]


def test_a_record_is_one_passage_from_its_heading_without_its_counters() -> None:
    text = ("# Decisions\n\n## [2026-04-06] Redis cache strategy\n- Tags: decision, cache\n"
            "- Fitness: last_referenced=2026-04-07, hit_count=3, decision_value=HIGH\n"
            "- Body: Use Redis for the session cache.\n")
    record = sections.split(text, "decisions.md")[1]
    (passage,) = passages.split(record)
    assert (passage.line, passage.last) == (3, 6) and passage.text == record.text
    assert "Fitness" not in passage.content and "decision_value" not in passage.content
    assert "Body" not in passage.content and "Use Redis for the session cache." in passage.content
    assert passage.labels == "decision, cache"  # matched with the place, not as the body
    assert record.date == "2026-04-06"


@pytest.mark.parametrize(("text", "date"), [
    ("Session 4 — 8 May 2023", "2023-05-08"), ("[2026-04-06] Redis", "2026-04-06"), ("May 8, 2023", "2023-05-08"),
    ("Сессия 3 — 8 мая 2023", "2023-05-08"), ("3. März 2024", "2024-03-03"), ("2026/05/13 notes", "2026-05-13"),
    ("2026-13-40", None), ("12:30 — Session Notes", None), ("Mayday 2 2020", None),
])
def test_dates_in_headings(text: str, date: str | None) -> None:
    assert dates.find(text) == date


def test_the_nearest_date_above_a_section() -> None:
    journal = "# Journal\n\n## 14:30 — Session Notes\n\n- **Decision:** ship it\n"
    assert [s.date for s in sections.split(journal, "2026-05-13.md")] == ["2026-05-13", "2026-05-13"]  # the file's
    nested = "# Sprint 2026-02-01\n\n## Retro\n\n### What went well\n\nDeploys.\n"
    assert [s.date for s in sections.split(nested, "notes.md")] == ["2026-02-01"] * 3  # an enclosing heading's
    assert [s.date for s in sections.split("# Plain\n\ntext\n", "notes.md")] == [None]


@pytest.mark.parametrize(("left", "right"), [
    ("развёртывания", "развертывания"),  # ё is е
    ("Prüfungen", "prufungen"),  # accents folded
    ("made", "make"), ("felt", "feel"), ("met", "meeting"), ("children", "child"),  # irregular forms
    ("deploying", "deployed"), ("серверами", "серверов"), ("книгу", "книга"),  # Snowball
])
def test_forms_of_one_word_are_one_token(left: str, right: str) -> None:
    assert terms.tokens(left) == terms.tokens(right)


def test_words_are_whole_words() -> None:
    (ci,) = terms.query_terms("CI")
    assert not ci.holds(set(terms.tokens("decision_value=HIGH, discipline")))
    assert ci.holds(set(terms.tokens("the CI runner")))
    (sess,) = terms.query_terms("sess")  # three letters or more: also a word's start
    assert sess.holds(set(terms.tokens("sessions")))
    assert terms.tokens("运维与排障 redis缓存") == ["运维", "维与", "与排", "排障", "redi", "缓存"]


def test_question_words_are_not_searched_for() -> None:
    assert [term.word for term in terms.query_terms("What did Maya make in the pottery class?")] == [
        "maya", "make", "pottery", "class"]
    assert [term.word for term in terms.query_terms("На каком инструменте учится играть Аня?")] == [
        "инструменте", "учится", "играть", "аня"]


def test_untouched_templates_are_boilerplate_until_written_into() -> None:
    index = templates.render("group/index.md", group="alpha", rooms="room-a", date="2026-01-01")
    assert [boiler.untouched(s) for s in sections.split(index, "groups/alpha.md")] == [True, True, True]
    grown = index + "| redis, cache | project.md | P1 |\n"
    assert [boiler.untouched(s) for s in sections.split(grown, "groups/alpha.md")] == [True, True, False]
    for name in ("init/memory/decisions.md", "main/index.md", "main/attention.md"):
        text = templates.render(name, date="2026-01-01")
        assert all(boiler.untouched(s) for s in sections.split(text, name.rsplit("/", 1)[1]))
    written = templates.render("init/memory/decisions.md") + "\nWe chose Postgres.\n"
    assert not any(boiler.untouched(s) for s in sections.split(written, "decisions.md"))
