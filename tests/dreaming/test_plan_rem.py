"""REM planned on texts: every rule of the survival merge (docs/design.md 6)."""
from __future__ import annotations

import datetime as dt

from apm_git.dreaming.plan import Fold, OverBudget, ProvenMark, Supersession, rem_trailers
from apm_git.dreaming.plan_rem import plan_rem
from apm_git.model.config import Config
from apm_git.model.records import Record, parse
from tests.records import memory_file, record

TODAY = dt.date(2026, 6, 1)
CONFIG = Config()
OLD = "2026-03-01"  # 92 days before TODAY: recency 8


def entries(text: str) -> dict[str, Record]:
    return {r.id: r for r in parse(text).entries}


def test_five_hits_mark_proven_and_raise_the_value() -> None:
    text = memory_file(
        record("2026-05-01", "Used a lot", hits=5, value="LOW"), record("2026-05-01", "Used less", hits=4),
    )
    outcome = plan_rem({"decisions.md": text}, None, TODAY, CONFIG)
    assert outcome.plan.proven == [ProvenMark("2026-05-01-used-a-lot", "decisions.md")]
    after = entries(outcome.writes["decisions.md"])
    assert after["2026-05-01-used-a-lot"].proven
    assert after["2026-05-01-used-a-lot"].lines[0] == "## [2026-05-01] [PROVEN] Used a lot\n"
    assert after["2026-05-01-used-a-lot"].field("Fitness") == (
        "last_referenced=2026-05-01, hit_count=5, decision_value=HIGH"
    )
    assert not after["2026-05-01-used-less"].proven


def test_low_value_long_unreferenced_entries_go_whole_to_the_month_archive() -> None:
    stale = record("2026-01-10", "Old server config", value="LOW", last=OLD, body="Ran on box-3")
    medium = record("2026-01-10", "Still medium", value="MEDIUM", last=OLD)
    text = memory_file(stale[:-1] + "Longer body kept.\n\n", medium,
                       *(record("2026-05-01", f"Live {n}") for n in range(3)))
    outcome = plan_rem({"decisions.md": text}, "# Archive 2026-06\n\nold entries\n", TODAY, CONFIG)
    assert [(a.entry_id, a.source, a.target, a.score, a.reason) for a in outcome.plan.archivals] == [
        ("2026-01-10-old-server-config", "decisions.md", "archive/2026-06.md", 8, "value"),
    ]
    assert "Old server config" not in outcome.writes["decisions.md"]
    archive = outcome.writes["archive/2026-06.md"]
    assert archive.startswith("# Archive 2026-06\n\nold entries\n\n## [2026-01-10] Old server config\n")
    moved = entries(archive)["2026-01-10-old-server-config"]
    assert moved.field("Body") == "Ran on box-3" and moved.extra_lines == ["Longer body kept."]
    assert moved.field("Archived") == (
        "2026-06-01 (fitness score: 8, last_referenced: 2026-03-01, from memory/decisions.md)"
    )


def test_an_over_budget_file_loses_its_lowest_scores_proven_last_and_never_conflicting() -> None:
    config = CONFIG._replace(budgets={**CONFIG.budgets, "people.md": 18})
    text = memory_file(
        record("2026-05-01", "Recent", last="2026-05-30"),  # 123
        record("2026-01-01", "Old high", value="HIGH", last=OLD),  # 58
        record("2026-01-01", "Old proven", value="HIGH", last="2025-01-01", hits=5, proven=True),  # 105
        record("2026-01-01", "Old medium", last=OLD),  # 33
        record("2026-01-01", "In conflict", last="2025-01-01", fields=(("Conflicts", "2026-05-01-recent — no"),)),
    )  # 2 + 4 x 5 + 6 = 28 lines
    outcome = plan_rem({"people.md": text}, None, TODAY, config)
    assert [(a.entry_id, a.reason, a.score) for a in outcome.plan.archivals] == [
        ("2026-01-01-old-high", "budget", 58), ("2026-01-01-old-medium", "budget", 33),
    ]
    assert parse(outcome.writes["people.md"]).line_count == 18
    squeezed = plan_rem({"people.md": text}, None, TODAY, CONFIG._replace(budgets={**CONFIG.budgets, "people.md": 5}))
    assert {a.entry_id for a in squeezed.plan.archivals} == {
        "2026-05-01-recent", "2026-01-01-old-high", "2026-01-01-old-medium", "2026-01-01-old-proven",
    }
    assert squeezed.plan.over_budget == [OverBudget("people.md", 8, 5, prose=2, protected=1)]  # in conflict
    assert squeezed.plan.over_budget[0].why() == (
        "what is left is 2 lines of prose that consolidation does not move and 1 proven or conflicting entry"
    )


PROSE = "# People\n\n## Alice\n" + "".join(f"- note {n} about Alice\n" for n in range(253))  # 256 lines


def test_prose_over_budget_never_archives_an_entry_for_room() -> None:
    person = record("2026-05-30", "Bob prefers email", "person", value="HIGH")
    text = PROSE + "\n" + person
    outcome = plan_rem({"people.md": text}, None, TODAY, CONFIG)  # people.md budget 100
    assert outcome.plan.archivals == [] and "people.md" not in outcome.writes
    (over,) = outcome.plan.over_budget
    assert (over.lines, over.budget, over.prose, over.protected) == (262, 100, 257, 0)
    assert over.why().startswith("its 257 lines of prose alone pass the budget, and consolidation never moves prose")


def test_prose_over_budget_is_never_made_longer_by_the_runs_own_edits() -> None:
    """Issue 23: a supersession adds a `Supersedes:` line to the newer entry; in a file its prose puts over budget
    (accepted so, in the baseline) that line must not make the file longer than it was."""
    newer = record("2026-05-30", "Bob prefers email", "person", value="HIGH", body="Email, never calls")
    stale = record("2026-05-01", "Alice likes tea", "person", value="LOW", last="2026-05-01")
    people = PROSE + "\n" + stale + newer
    older = memory_file(record("2026-04-01", "Bob prefers email", "person", body="Calls, never email"))
    outcome = plan_rem({"people.md": people, "decisions.md": older}, None, TODAY, CONFIG)
    assert [(s.old, s.new) for s in outcome.plan.supersessions] == [
        ("2026-04-01-bob-prefers-email", "2026-05-30-bob-prefers-email")]
    assert [(a.entry_id, a.reason) for a in outcome.plan.archivals] == [
        ("2026-05-01-alice-likes-tea", "budget"), ("2026-04-01-bob-prefers-email", "superseded")]
    after = outcome.writes["people.md"]
    assert parse(after).line_count <= parse(people).line_count
    assert "- Supersedes: 2026-04-01-bob-prefers-email — Calls, never email" in after


def test_an_entry_promoted_in_the_same_run_is_never_archived() -> None:
    config = CONFIG._replace(budgets={**CONFIG.budgets, "lessons.md": 8})
    old_low = record("2026-01-01", "Old low lesson", "lesson", last=OLD, value="LOW")  # archived for value
    squeezed = record("2026-05-30", "Squeezed", "lesson")  # archived for budget otherwise
    text = memory_file(old_low, squeezed, record("2026-05-31", "Kept", "lesson", value="HIGH"))
    assert {a.entry_id for a in plan_rem({"lessons.md": text}, None, TODAY, config).plan.archivals} == {
        "2026-01-01-old-low-lesson", "2026-05-30-squeezed",
    }
    fresh = frozenset({"2026-01-01-old-low-lesson", "2026-05-30-squeezed"})
    outcome = plan_rem({"lessons.md": text}, None, TODAY, config, fresh)
    assert [a.entry_id for a in outcome.plan.archivals] == ["2026-05-31-kept"]  # the one that may go
    assert outcome.plan.over_budget[0].fresh == 2


def test_a_file_of_proven_entries_meets_its_budget_lowest_score_then_oldest_first() -> None:
    config = CONFIG._replace(budgets={**CONFIG.budgets, "people.md": 12})
    text = memory_file(
        record("2026-05-01", "Fresh proven", hits=9, value="HIGH", last="2026-05-30", proven=True),
        record("2026-01-01", "Stale proven", hits=5, value="HIGH", last="2025-01-01", proven=True),
        record("2025-06-01", "Older stale proven", hits=5, value="HIGH", last="2025-01-01", proven=True),
        record("2026-02-01", "Newer stale proven", hits=5, value="HIGH", last="2025-01-01", proven=True),
    )  # 2 + 4 x 5 = 22 lines; each stale one scores 0 + 25 + 50 + 30 = 105, above every value rule
    outcome = plan_rem({"people.md": text}, None, TODAY, config)
    assert {(a.entry_id, a.reason) for a in outcome.plan.archivals} == {
        ("2025-06-01-older-stale-proven", "budget"), ("2026-01-01-stale-proven", "budget"),
    }  # of the three equal scores the two oldest go; the fresh one scores highest
    assert outcome.plan.over_budget == []
    assert parse(outcome.writes["people.md"]).line_count == 12


def test_duplicates_fold_into_the_most_complete_entry() -> None:
    text = memory_file(
        record("2026-04-01", "Use Redis", hits=2, last="2026-05-01", body="Use Redis for sessions."),
        record("2026-04-20", "Use redis", hits=3, last="2026-04-25", value="HIGH", body="Use Redis  for sessions.",
               fields=(("Source", "memory/2026-04-20.md"), ("Merged", "2026-04-02-use-redis-cache"))),
        record("2026-04-22", "Use Redis", hits=1, body="Something else entirely"),
    )
    outcome = plan_rem({"decisions.md": text}, None, TODAY, CONFIG)
    folded = (("2026-04-01-use-redis", "decisions.md"),)
    assert outcome.plan.folds == [Fold("2026-04-20-use-redis", "decisions.md", folded)]
    # The same title with another body is a contradiction: the newest supersedes the survivor.
    assert outcome.plan.supersessions == [Supersession(
        "2026-04-20-use-redis", "decisions.md", "2026-04-22-use-redis", "decisions.md", "Use Redis for sessions.",
    )]
    survivor = entries(outcome.writes["archive/2026-06.md"])["2026-04-20-use-redis"]
    assert survivor.field("Fitness") == "last_referenced=2026-05-01, hit_count=5, decision_value=HIGH"
    assert survivor.field("Merged") == "2026-04-02-use-redis-cache, 2026-04-01-use-redis"
    assert survivor.proven  # 5 summed hits
    assert survivor.field("Superseded-by") == "2026-04-22-use-redis"
    assert list(entries(outcome.writes["decisions.md"])) == ["2026-04-22-use-redis"]


def test_supersession_by_title_and_by_explicit_field() -> None:
    text = memory_file(
        record("2026-05-01", "API versioning", body="Version in the header; clients send Accept."),
        record("2026-05-20", "API versioning", body="Version in the path."),
        record("2026-05-02", "Old deploy flow", body="Deploy by hand from a laptop"),
        record("2026-05-25", "New deploy flow", body="Deploy from CI",
               fields=(("Supersedes", "2026-05-02-old-deploy-flow"),)),
    )
    outcome = plan_rem({"decisions.md": text}, None, TODAY, CONFIG)
    assert [(s.old, s.new, s.summary) for s in outcome.plan.supersessions] == [
        ("2026-05-02-old-deploy-flow", "2026-05-25-new-deploy-flow", "Deploy by hand from a laptop"),
        ("2026-05-01-api-versioning", "2026-05-20-api-versioning", "Version in the header, clients send Accept."),
    ]
    after = entries(outcome.writes["decisions.md"])
    assert set(after) == {"2026-05-20-api-versioning", "2026-05-25-new-deploy-flow"}
    assert after["2026-05-25-new-deploy-flow"].field("Supersedes") == (
        "2026-05-02-old-deploy-flow — Deploy by hand from a laptop"
    )
    assert after["2026-05-20-api-versioning"].field("Supersedes") == (
        "2026-05-01-api-versioning — Version in the header, clients send Accept."
    )
    archived = entries(outcome.writes["archive/2026-06.md"])
    assert archived["2026-05-01-api-versioning"].field("Superseded-by") == "2026-05-20-api-versioning"
    assert {a.reason for a in outcome.plan.archivals} == {"superseded"}


def test_conflicting_entries_are_never_folded_superseded_or_archived() -> None:
    conflict = (("Conflicts", "2026-05-20-cache-ttl — Bob says 60 s"),)
    text = memory_file(
        record("2026-01-01", "Cache TTL", body="300 s", value="LOW", last="2025-01-01", fields=conflict),
        record("2026-05-20", "Cache TTL", body="60 s"),
    )
    outcome = plan_rem({"decisions.md": text}, None, TODAY, CONFIG)
    assert rem_trailers(outcome.plan, "memory") == [] and outcome.writes == {}


def test_each_group_is_its_own_memory() -> None:
    decisions = memory_file(record("2026-05-01", "Release on Fridays", body="yes"))
    experience = memory_file(record("2026-05-02", "Release on Fridays", body="never"))
    outcome = plan_rem({"decisions.md": decisions, "groups/team-a/experience.md": experience}, None, TODAY, CONFIG)
    assert rem_trailers(outcome.plan, "memory") == [] and outcome.writes == {}
    twice = memory_file(record("2026-05-02", "Release on Fridays", body="never"),
                        record("2026-05-03", "Release on Fridays", body="never"))
    outcome = plan_rem({"decisions.md": decisions, "groups/team-a/experience.md": twice}, None, TODAY, CONFIG)
    assert [f.file for f in outcome.plan.folds] == ["groups/team-a/experience.md"]
    assert "decisions.md" not in outcome.writes
