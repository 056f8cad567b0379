"""Routing tables: the parser, the lint, intent matching, and the append-only edits."""
from __future__ import annotations

import pytest

from apm_git.model import routing
from apm_git.model.domains import domain_of
from apm_git.model.records import Problem
from apm_git.store import templates

TABLE = """\
# Group memory: backend

## Hard Rules

1. Read this first.

## Routing

| Trigger keywords | File | Priority |
|---|---|---|
| task, todo, blocker | attention.md | P0 |
| stack, deploy, api | project.md | P1 |
| decision, why, how did we | experience.md | P2 |
| who, owner | people.md | P3 |
| api, style | conventions/api.md | P2 | [DEPRECATED]

Text after the table.
"""


def test_rows_keywords_files_priorities_and_deprecated_rows() -> None:
    table = routing.parse_routing(TABLE)
    assert table.found and table.problems == ()
    assert [(r.file, r.priority, r.line) for r in table.routes] == [
        ("attention.md", "P0", 11), ("project.md", "P1", 12), ("experience.md", "P2", 13),
        ("people.md", "P3", 14), ("conventions/api.md", "P2", 15),
    ]
    assert table.routes[2].keywords == ("decision", "why", "how did we")
    assert table.routes[4].deprecated and [r.file for r in table.active] == [
        "attention.md", "project.md", "experience.md", "people.md"]


@pytest.mark.parametrize(("row", "message"), [
    ("| task | attention.md |", "has 2 cells"),
    ("| task | attention.md | P4 |", "priority 'P4' is not one of P0, P1, P2, P3"),
    ("| task | attention.md | high |", "priority 'high'"),
    ("|  | attention.md | P0 |", "no trigger keywords"),
    ("| task | ../beta/attention.md | P0 |", "inside the index's folder"),
    ("| task | /etc/passwd.md | P0 |", "inside the index's folder"),
    ("| task | ~/notes.md | P0 |", "inside the index's folder"),
    ("| task | attention.txt | P0 |", "must be a .md path"),
])
def test_malformed_rows_are_problems_with_their_line(row: str, message: str) -> None:
    text = TABLE.replace("| who, owner | people.md | P3 |", row)
    table = routing.parse_routing(text)
    assert len(table.problems) == 1
    assert table.problems[0].line == 14 and message in table.problems[0].message
    assert "people.md" not in [r.file for r in table.routes]


def test_a_deprecated_malformed_row_is_kept_quiet() -> None:
    text = TABLE.replace("| who, owner | people.md | P3 |", "| who | ../beta/x.md | P9 | [DEPRECATED]")
    assert routing.parse_routing(text).problems == ()


def test_header_and_separator_problems() -> None:
    text = "## Routing\n\n| Keywords | File |\n| a | attention.md | P0 |\n"
    problems = routing.parse_routing(text).problems
    assert [p.line for p in problems] == [3, 4]
    assert "header must be" in problems[0].message and "'|---|---|---|'" in problems[1].message
    bare = routing.parse_routing("# X\n\n## Routing\n\nno table here\n")
    assert bare.found and bare.problems[0].line == 3


def test_routing_problems_names_missing_files_but_not_deprecated_rows() -> None:
    existing = {"attention.md", "project.md", "experience.md"}
    problems = routing.routing_problems(TABLE, existing)
    assert problems == [Problem(14, "routing row names people.md, which does not exist; create the file or mark "
                                    "the row [DEPRECATED]")]
    assert routing.routing_problems(TABLE, existing | {"people.md"}) == []
    assert routing.routing_problems("# no table\n", existing)[0].line == 1


def test_the_shipped_index_templates_are_clean() -> None:
    group = templates.render("group/index.md", group="g", rooms="r", date="2026-04-06")
    main = templates.render("main/index.md", date="2026-04-06")
    assert routing.routing_problems(group, {"attention.md", "project.md", "experience.md", "people.md"}) == []
    assert routing.routing_problems(main, {"attention.md", "longterm.md", "daily-synced.md"}) == []
    assert "## Hard Rules" in group and "## Hard Rules" in main


@pytest.mark.parametrize(("intent", "file", "hits"), [
    ("what are my tasks for today", "attention.md", ("task",)),
    ("we are deploying the new APIs", "project.md", ("deploy", "api")),
    ("How did we end up with this?", "experience.md", ("how did we",)),
    ("who owns billing", "people.md", ("who", "owner")),  # owns ~ owner by their stem
    ("whole new world", "attention.md", ()),  # 'who' is short: no prefix match
    ("", "attention.md", ()),
])
def test_intent_matching(intent: str, file: str, hits: tuple[str, ...]) -> None:
    choice = routing.rank_routes(routing.parse_routing(TABLE), intent or None)[0]
    assert (choice.file, choice.hits) == (file, hits)


def test_ties_go_to_the_highest_priority_and_the_ranking_explains_itself() -> None:
    text = TABLE.replace("| decision, why, how did we |", "| decision, todo |")
    ranked = routing.rank_routes(routing.parse_routing(text), "todo")
    assert [c.file for c in ranked[:2]] == ["attention.md", "experience.md"]
    assert ranked[0].reason == "matched todo"
    assert ranked[2].reason == "no keyword of the intent matched: by priority"
    assert routing.rank_routes(routing.parse_routing(text), None)[0].reason == "no intent given: by priority"


def test_an_index_without_rows_routes_to_attention() -> None:
    choice = routing.rank_routes(routing.parse_routing("# empty\n"), "deploy")[0]
    assert choice.file == "attention.md" and choice.priority == "P0"


def test_append_row_adds_one_line_after_the_table_and_keeps_every_byte() -> None:
    text = "\ufeff" + TABLE.replace("\n", "\r\n")
    row = routing.render_row(["ops", "pager"], "ops.md", "P1")
    after = routing.append_row(text, row)
    assert after.replace(row + "\r\n", "", 1) == text
    assert after.index(row) > after.index("[DEPRECATED]") and after.index(row) < after.index("Text after")
    assert [r.file for r in routing.parse_routing(after).active][-1] == "ops.md"


def test_append_row_creates_the_table_when_missing() -> None:
    bare = routing.append_row("# Index\n", "| a | attention.md | P0 |")
    assert bare.startswith("# Index\n\n## Routing\n") and routing.parse_routing(bare).active[0].file == "attention.md"
    heading_only = routing.append_row("# Index\n\n## Routing\n\nSoon.\n", "| a | attention.md | P0 |")
    assert routing.parse_routing(heading_only).problems == ()
    assert heading_only.startswith("# Index\n\n## Routing\n") and heading_only.endswith("Soon.\n")


def test_deprecate_rows_only_adds_the_marker() -> None:
    text = TABLE.replace("\n", "\r\n")
    after = routing.deprecate_rows(text, [12])
    old, new = text.splitlines(keepends=True), after.splitlines(keepends=True)
    assert [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b] == [11]
    assert new[11] == old[11].replace(" |\r\n", " | [DEPRECATED]\r\n")
    assert "project.md" not in [r.file for r in routing.parse_routing(after).active]
    assert routing.deprecate_rows(after, [12]) == after


@pytest.mark.parametrize(("intent", "domain"), [
    ("refactor the billing module", "code"),
    ("debug the flaky login test", "debugging"),
    ("reply to the customer email", "user-facing"),
    ("set up the proxy for docker", "env/setup"),
    ("", None),
    ("hello there", None),
])
def test_dreaming_domains(intent: str, domain: str | None) -> None:
    choice = domain_of(intent)
    assert (choice.domain.name if choice else None) == domain
