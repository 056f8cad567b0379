from __future__ import annotations

import datetime as dt

from apm_git.dreaming.edit import rewrite, without_lines
from apm_git.dreaming.items import collect_items
from apm_git.dreaming.locate import entry_block
from apm_git.model.records import parse
from tests.records import memory_file, record

DAY = dt.date(2026, 4, 5)
NOTES = (
    "## 14:30 — Session Notes\n"
    "- **Decision:** Keep Postgres 15 — the pgvector build needs it\n"
    "  (checked on staging)\n"
    "- **Discovery:** The cron job runs in UTC — not local time\n"
    "- **Pending:** Ask Bob about the deploy window\n"
    "- **Context:** Staging lives in eu-west-1\n"
    "- a plain line stays a plain line\n"
    "\n"
)


def test_both_journal_forms_become_items_with_kind_date_and_place() -> None:
    text = memory_file(record("2026-04-05", "Use Redis", "decision", value="HIGH"), NOTES, title="Journal")
    items = collect_items("2026-04-05.md", DAY, parse(text))
    assert [(item.form, item.kind, item.entry_id) for item in items] == [
        ("record", "decision", "2026-04-05-use-redis"),
        ("note", "decision", "2026-04-05-keep-postgres-15"),
        ("note", "lesson", "2026-04-05-the-cron-job-runs-in-utc"),
        ("note", "pending", "2026-04-05-ask-bob-about-the-deploy-window"),
        ("note", "context", "2026-04-05-staging-lives-in-eu-west-1"),
    ]
    postgres = items[1]
    assert postgres.record.ok and postgres.fitness.last_referenced == DAY
    assert postgres.record.body == "Keep Postgres 15 — the pgvector build needs it"
    assert postgres.record.extra_lines == ["  (checked on staging)"]
    assert postgres.place.lines == (1, 2)  # the item line and its continuation


def test_taking_note_items_out_keeps_the_rest_and_drops_an_emptied_block() -> None:
    parsed = parse(memory_file(NOTES, title="Journal"))
    items = collect_items("2026-04-05.md", DAY, parsed)
    block = parsed.blocks[0]
    fewer = without_lines(block, [line for item in items if item.kind != "pending" for line in item.place.lines])
    assert fewer is not None
    assert fewer.text == (
        "## 14:30 — Session Notes\n- **Pending:** Ask Bob about the deploy window\n"
        "- a plain line stays a plain line\n\n"
    )
    only_items = parse("## 09:00 — Session Notes\n- **Decision:** A — b\n\n")
    assert without_lines(only_items.blocks[0], [1]) is None
    assert rewrite(only_items, {0: None}) == ""


def test_entry_block_finds_records_and_note_items() -> None:
    text = memory_file(record("2026-04-05", "Use Redis", body="first"), NOTES, title="Journal")
    assert entry_block(text, "2026-04-05-use-redis") == (
        "## [2026-04-05] Use Redis\n- Tags: decision\n"
        "- Fitness: last_referenced=2026-04-05, hit_count=0, decision_value=MEDIUM\n- Body: first"
    )
    assert entry_block(text, "2026-04-05-the-cron-job-runs-in-utc", DAY) == (
        "- **Discovery:** The cron job runs in UTC — not local time"
    )
    assert entry_block(text, "2026-04-05-the-cron-job-runs-in-utc") is None  # notes only count in journals
    assert entry_block(text, "2026-04-05-use-memcached") is None


def test_dated_sections_and_light_sleep_candidates_are_items() -> None:
    from tests.model.test_sections import LIGHT

    dated = "## 2026-04-05 14:25 — Fixed the cron bug\n- The job ran in UTC.\n\n```\n## not a heading\n```\n\n"
    text = "# 2026-04-05\n\n" + dated + LIGHT
    items = collect_items("2026-04-05.md", DAY, parse(text))
    assert [(item.form, item.kind, item.entry_id, item.fitness.decision_value) for item in items] == [
        ("dated", "lesson", "2026-04-05-fixed-the-cron-bug", "MEDIUM"),
        ("light-sleep", "context", "2026-04-05-reflections-theme-assistant-kept-surfacing-across-909", "HIGH"),
        ("light-sleep", "context", "2026-04-05-assistant-heartbeat-ok", "LOW"),
    ]
    record = items[0].record
    assert record.ok and record.body == "The job ran in UTC."
    assert record.field("Source") == 'heading "## 2026-04-05 14:25 — Fixed the cron bug"'
    assert record.extra_lines == ["- The job ran in UTC.", "", "```", "## not a heading", "```"]
    assert items[0].place.lines == ()
    assert items[1].fitness.hit_count == 3 and items[1].place.lines == (2, 3, 4, 5, 6)
    assert entry_block(text, items[0].entry_id, DAY) == dated.rstrip()
    assert entry_block(text, items[2].entry_id, DAY) == "- Candidate: Assistant: HEARTBEAT_OK\n  - confidence: 0.00"
