"""Deep sleep planned on texts: each promotion criterion, the routing, budgets, journal moves."""
from __future__ import annotations

import datetime as dt

from apm_git.dreaming.execute import budget_problems, execute_deep_sleep, validate
from apm_git.dreaming.plan import Promotion, deep_sleep_trailers
from apm_git.dreaming.plan_deep_sleep import Memory, plan_deep_sleep
from apm_git.model.config import Config
from apm_git.model.records import parse
from tests.records import memory_file, record

TODAY = dt.date(2026, 4, 10)
CONFIG = Config()


def journal(*records: str) -> str:
    return memory_file(*records, title="Journal")


def memory_of(journals: dict[str, str], categories: dict[str, str] | None = None,
             taken: dict[str, str] | None = None) -> Memory:
    return Memory(journals, categories or {}, taken or {})


def promoted(memory: Memory) -> dict[str, tuple[str, str]]:
    plan = plan_deep_sleep(memory, TODAY, CONFIG)
    return {p.entry_id: (p.target, p.reason) for p in plan.promotions}


def test_each_criterion_promotes_and_routes_by_kind() -> None:
    memory = memory_of({
        "2026-04-08.md": journal(
            record("2026-04-08", "Use Redis for sessions", "decision", value="HIGH"),
            record("2026-04-08", "Token refresh race", "lesson"),
            record("2026-04-08", "Bob owns billing", "person", last="2026-04-09"),
            record("2026-04-08", "Staging runs on eu-west-1 nodes", "context"),
            record("2026-04-08", "Plain decision of the day", "decision"),
            record("2026-04-08", "Minor decision of the day", "decision", value="LOW"),
            record("2026-04-08", "Finish the migration", "pending", value="HIGH"),
            record("2026-04-08", "Config lives in /etc/app", "anchor", value="HIGH"),
        ),
        "2026-04-09.md": journal(record("2026-04-09", "Staging runs on the eu-west-1 nodes", "context")),
    })
    assert promoted(memory) == {
        "2026-04-08-use-redis-for-sessions": ("decisions.md", "high-value"),
        "2026-04-08-token-refresh-race": ("lessons.md", "lesson"),
        "2026-04-08-plain-decision-of-the-day": ("decisions.md", "decision"),  # MEDIUM: not LOW
        "2026-04-08-bob-owns-billing": ("people.md", "referenced"),  # used on a later day
        "2026-04-08-staging-runs-on-eu-west-1-nodes": ("project-context.md", "recurring"),
        "2026-04-09-staging-runs-on-the-eu-west-1-nodes": ("project-context.md", "recurring"),
    }


def test_same_id_on_two_days_is_promoted_once_with_its_identical_copy() -> None:
    entry = record("2026-04-08", "Pin the Helm chart", "tool")
    changed = record("2026-04-08", "Pin the Helm chart", "tool", body="a different conclusion")
    memory = memory_of({
        "2026-04-08.md": journal(entry),
        "2026-04-09.md": journal(entry.replace("last_referenced=2026-04-08", "last_referenced=2026-04-09")),
        "2026-04-10.md": journal(changed),
    })
    plan = plan_deep_sleep(memory, TODAY, CONFIG)
    assert plan.promotions == [
        Promotion("2026-04-08-pin-the-helm-chart", "2026-04-08.md", "tools-config.md", "referenced",
                  ("2026-04-09.md",)),
    ]
    assert [(k.source, k.reason) for k in plan.kept] == [
        ("2026-04-10.md", "same id as the entry in 2026-04-08.md with other text"),
    ]
    changes = execute_deep_sleep(plan, memory, CONFIG, {})
    assert "Pin the Helm chart" not in changes.writes["2026-04-08.md"]
    assert "Pin the Helm chart" not in changes.writes["2026-04-09.md"]
    assert "2026-04-10.md" not in changes.writes  # the copy with other text stays
    target = parse(changes.writes["tools-config.md"]).entries
    assert [r.field("Fitness") for r in target] == ["last_referenced=2026-04-09, hit_count=0, decision_value=MEDIUM"]
    assert target[0].field("Source") == "memory/2026-04-08.md"


def test_a_title_already_in_a_category_file_recurs() -> None:
    memory = memory_of(
        {"2026-04-09.md": journal(record("2026-04-09", "Use Redis for sessions", "decision", value="LOW"))},
        {"decisions.md": memory_file(record("2026-03-01", "Use Redis for the sessions", "decision"))},
    )
    assert promoted(memory) == {"2026-04-09-use-redis-for-sessions": ("decisions.md", "recurring")}


def test_routing_follows_the_config_and_unrouted_ids_or_taken_ids_stay() -> None:
    config = CONFIG._replace(routing={**CONFIG.routing, "lesson": "decisions.md"})
    memory = memory_of(
        {"2026-04-09.md": journal(
            record("2026-04-09", "Token refresh race", "lesson"),
            record("2026-04-09", "Odd kind", "misc", value="HIGH"),
            record("2026-04-09", "Known lesson", "lesson"),
        )},
        taken={"2026-04-09-known-lesson": "memory/archive/2026-04.md"},
    )
    plan = plan_deep_sleep(memory, TODAY, config)
    assert [(p.entry_id, p.target) for p in plan.promotions] == [("2026-04-09-token-refresh-race", "decisions.md")]
    assert [k.reason for k in plan.kept] == [
        "kind 'misc' has no route in apm.yaml routing",
        "the id is already used in memory/archive/2026-04.md",
    ]


def test_a_full_category_file_makes_room_by_score_or_keeps_the_newcomer() -> None:
    config = CONFIG._replace(budgets={**CONFIG.budgets, "lessons.md": 13})
    old = record("2026-01-01", "Old lesson", "lesson", last="2025-12-01", value="LOW")  # score 0
    proven = record("2025-01-01", "Proven lesson", "lesson", last="2025-01-01", hits=9, value="HIGH", proven=True)
    lessons = memory_file(old, proven, title="Lessons")  # 12 lines
    new = {"2026-04-09.md": journal(record("2026-04-09", "New lesson", "lesson"))}
    memory = memory_of(new, {"lessons.md": lessons})
    plan = plan_deep_sleep(memory, TODAY, config)
    assert [p.entry_id for p in plan.promotions] == ["2026-04-09-new-lesson"]
    assert [(a.entry_id, a.target, a.reason, a.score) for a in plan.archivals] == [
        ("2026-01-01-old-lesson", "archive/2026-04.md", "budget", 0),
    ]
    changes = execute_deep_sleep(plan, memory, config, {})
    assert parse(changes.writes["lessons.md"]).line_count <= 13
    archived = parse(changes.writes["archive/2026-04.md"]).entries
    assert archived[0].field("Archived") == (
        "2026-04-10 (fitness score: 0, last_referenced: 2025-12-01, from memory/lessons.md)"
    )
    # With only the proven entry left to compete, the newcomer waits in its journal.
    crowded = memory_of({"2026-04-09.md": journal(record("2026-04-09", "New lesson", "lesson"))},
                       {"lessons.md": memory_file(proven, title="Lessons")})
    tight = CONFIG._replace(budgets={**CONFIG.budgets, "lessons.md": 8})
    plan = plan_deep_sleep(crowded, TODAY, tight)
    assert plan.promotions == [] and plan.archivals == []
    assert [k.reason for k in plan.kept] == [
        "no room in memory/lessons.md: its 2 lines of prose and 1 proven or conflicting entry leave no room for a "
        "6-line record within its budget of 8 lines, and deep sleep archives neither (trim or split it, or raise its "
        "budget in apm.yaml)",
    ]


def test_old_journals_move_whole_unless_this_run_takes_from_them() -> None:
    memory = Memory(
        {
            "2026-03-20.md": journal(record("2026-03-20", "Finish it", "pending")),  # 21 days: moves
            "2026-03-25.md": journal(record("2026-03-25", "A lesson", "lesson")),  # 16 days, promoting
            "2026-03-27.md": journal(record("2026-03-27", "Anchor", "anchor")),  # 14 days: not yet
            "2026-03-21.md": journal(),
        },
        {}, {}, frozenset({"2026-03-21.md"}),  # already in archive/journals: left alone
    )
    plan = plan_deep_sleep(memory, TODAY, CONFIG)
    assert [(m.source, m.target) for m in plan.journal_moves] == [("2026-03-20.md", "archive/journals/2026-03-20.md")]
    assert [p.source for p in plan.promotions] == ["2026-03-25.md"]
    changes = execute_deep_sleep(plan, memory, CONFIG, {})
    assert changes.moves == [("2026-03-20.md", "archive/journals/2026-03-20.md")]
    assert "2026-03-20.md" not in changes.writes


def test_validate_names_every_problem_of_an_edited_plan() -> None:
    memory = memory_of({"2026-04-09.md": journal(
        record("2026-04-09", "A lesson", "lesson"), record("2026-04-09", "Todo", "pending"),
    )}, {"decisions.md": memory_file(record("2026-01-01", "Proven", hits=9, proven=True))})
    plan = plan_deep_sleep(memory, TODAY, CONFIG)
    assert validate(plan, memory, CONFIG) == []
    plan.promotions += [
        Promotion("2026-04-09-nope", "2026-04-09.md", "lessons.md", "x"),
        Promotion("2026-04-09-todo", "2026-04-09.md", "lessons.md", "x"),
        Promotion("2026-04-09-a-lesson", "2026-04-09.md", "INDEX.md", "x"),
    ]
    assert validate(plan, memory, CONFIG) == [
        "2026-04-09-a-lesson: the id is promoted twice",
        "promote 2026-04-09-nope: no such entry in memory/2026-04-09.md",
        "promote 2026-04-09-todo: pending items are never promoted",
        "promote 2026-04-09-a-lesson: target memory/INDEX.md is not a category file (one of decisions.md, "
        "lessons.md, people.md, project-context.md, tools-config.md)",
    ]


def test_a_journal_keeps_its_end_when_its_last_entry_is_promoted() -> None:
    # As an agent writes it: one newline after the last line, none of the tests' blank separators.
    text = journal(record("2026-04-09", "Finish it", "pending"), record("2026-04-09", "A lesson", "lesson"))
    for ending in ("\n", "\r\n", ""):
        written = text.rstrip("\n") + ending if ending != "\r\n" else text.rstrip("\n").replace("\n", "\r\n") + "\r\n"
        memory = memory_of({"2026-04-09.md": written})
        changes = execute_deep_sleep(plan_deep_sleep(memory, TODAY, CONFIG), memory, CONFIG, {})
        left = changes.writes["2026-04-09.md"]
        newline = "\r\n" if ending == "\r\n" else "\n"
        assert left.endswith(f"decision_value=MEDIUM{newline}- Body: Finish it{ending}"), repr(left[-40:])


def test_a_file_over_budget_by_its_prose_is_never_made_longer() -> None:
    """Issue 23: a user's 256-line prose people.md (budget 100) grew to 405 lines from promotions."""
    prose = "# People\n\n## Alice\n" + "".join(f"- note {n}\n" for n in range(253))  # 256 lines, budget 100
    memory = memory_of({"2026-04-01.md": journal(record("2026-04-01", "Bob prefers email", "person", value="HIGH"))},
                       {"people.md": prose})
    plan = plan_deep_sleep(memory, TODAY, CONFIG)
    assert plan.promotions == [] and plan.archivals == [] and plan.journal_moves == []
    (kept,) = plan.kept
    assert (kept.entry_id, kept.room) == ("2026-04-01-bob-prefers-email", "people.md")
    assert kept.reason.startswith("no room in memory/people.md: its 256 lines of prose alone pass its budget of 100")
    assert "Apm-Finding" not in dict(deep_sleep_trailers(plan, "memory"))  # it waits: the body says why
    # An edited plan that promotes into it anyway is refused.
    plan.promotions = [Promotion("2026-04-01-bob-prefers-email", "2026-04-01.md", "people.md", "edited")]
    changes = execute_deep_sleep(plan, memory, CONFIG, {})
    assert budget_problems(plan, memory, CONFIG, changes) == [
        "promotions would put memory/people.md over its budget (263 > 100 lines); add archive moves or drop promotions",
    ]


def test_protected_entries_that_fill_a_file_keep_newcomers_out_and_nothing_is_archived_for_them() -> None:
    tight = CONFIG._replace(budgets={**CONFIG.budgets, "lessons.md": 12})
    proven = record("2025-01-01", "Proven lesson", "lesson", hits=9, value="HIGH", proven=True)
    old = record("2025-01-01", "Old lesson", "lesson", value="LOW")
    lessons = memory_file(proven, proven.replace("Proven lesson", "Proven too"), old, title="Lessons")  # 17 lines
    memory = memory_of({"2026-04-09.md": journal(record("2026-04-09", "New lesson", "lesson"))},
                       {"lessons.md": lessons})
    plan = plan_deep_sleep(memory, TODAY, tight)
    assert plan.promotions == [] and plan.archivals == []  # archiving the old one would not make room: it stays
    assert [k.reason.split(" (")[0] for k in plan.kept] == [
        "no room in memory/lessons.md: its 2 lines of prose and 2 proven or conflicting entries leave no room for a "
        "6-line record within its budget of 12 lines, and deep sleep archives neither",
    ]


def test_a_journal_with_an_item_kept_out_for_room_still_moves_on_schedule() -> None:
    tight = CONFIG._replace(budgets={**CONFIG.budgets, "lessons.md": 8})
    strong = record("2025-01-01", "Strong lesson", "lesson", hits=9, value="HIGH", last=TODAY.isoformat())  # 195
    memory = memory_of({"2026-03-01.md": journal(record("2026-03-01", "New lesson", "lesson")),  # scores 85
                        "2026-04-08.md": journal(record("2026-04-08", "Newer lesson", "lesson"))},  # 123
                       {"lessons.md": memory_file(strong, title="Lessons")})
    plan = plan_deep_sleep(memory, TODAY, tight)
    assert [(m.source, m.target) for m in plan.journal_moves] == [("2026-03-01.md", "archive/journals/2026-03-01.md")]
    assert [(k.source, k.reason) for k in plan.kept] == [
        ("2026-03-01.md", "no room in memory/lessons.md (budget 8 lines); it goes to the archive with its journal "
                          "(memory/archive/journals/2026-03-01.md)"),
        ("2026-04-08.md", "no room in memory/lessons.md (budget 8 lines)"),  # not due yet: it waits
    ]
    assert ("Apm-Finding", "no room in memory/lessons.md (budget 8 lines); 2026-03-01-new-lesson went to "
                           "memory/archive/journals/ with its journal") in deep_sleep_trailers(plan, "memory")


def test_a_dated_section_written_ahead_of_its_journal_is_not_referenced() -> None:
    """Issue 23: `## 2026-04-09 — …` in 2026-04-06.md read as used on a later day than its own."""
    text = "# 2026-04-06\n\n## 2026-04-09 — Planned the rollout for Thursday\n- nobody used this yet\n"
    memory = memory_of({"2026-04-06.md": text})
    plan = plan_deep_sleep(memory, TODAY, CONFIG)
    assert plan.promotions == []
    # The same section in a later journal too: referenced on two days.
    memory = memory_of({"2026-04-06.md": text, "2026-04-08.md": text.replace("# 2026-04-06", "# 2026-04-08")})
    assert [p.reason for p in plan_deep_sleep(memory, TODAY, CONFIG).promotions] == ["referenced"]


def test_dated_sections_and_confident_light_sleep_candidates_are_promoted() -> None:
    from tests.model.test_sections import LIGHT

    text = ("# 2026-04-08\n\n## 2026-04-08 — Fixed the cron bug\n- The job ran in UTC.\n\n"
            "## 2026-04-08 Evening notes\n- nothing special\n\n" + LIGHT)
    memory = memory_of({"2026-04-08.md": text})
    plan = plan_deep_sleep(memory, TODAY, CONFIG)
    assert [(p.entry_id, p.target, p.reason) for p in plan.promotions] == [
        ("2026-04-08-fixed-the-cron-bug", "lessons.md", "lesson"),
        ("2026-04-08-reflections-theme-assistant-kept-surfacing-across-909", "project-context.md", "high-value"),
    ]
    changes = execute_deep_sleep(plan, memory, CONFIG, {})
    left = changes.writes["2026-04-08.md"]
    assert "cron bug" not in left and "## 2026-04-08 Evening notes\n- nothing special\n" in left
    assert "- Candidate: Assistant: HEARTBEAT_OK\n  - confidence: 0.00\n" in left  # LOW: stays
    assert "<!-- openclaw:dreaming:light:start -->" in left and "Reflections" not in left
    (reflection,) = parse(changes.writes["project-context.md"]).entries
    assert reflection.extra_lines[0].startswith("- Candidate: Reflections: Theme:")  # every line kept verbatim
    assert reflection.extra_lines[1:] == [line for line in LIGHT.splitlines() if line.startswith("  - ")][:4]
    lesson = parse(changes.writes["lessons.md"]).entries[0]
    assert lesson.extra_lines == ["- The job ran in UTC."] and lesson.title == "Fixed the cron bug"
    assert lesson.field("Source") == 'heading "## 2026-04-08 — Fixed the cron bug"; memory/2026-04-08.md'
