from __future__ import annotations

import pytest

from tests.checks.helpers import findings, record, snapshot

HOOK = "apm-record-format"
GOOD = "# Decisions\n\n" + record("2026-04-06", "Redis cache strategy")


def test_well_formed_files_pass() -> None:
    files = {"decisions.md": GOOD, "archive/2026-04.md": GOOD.replace("Redis", "Old")}
    assert findings(snapshot({}, files), HOOK) == []


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("## [2026-04-06] T\n- Tags: decision\n- Body: b\n", 1, "missing field '- Fitness:'"),
        ("## [2026-13-45] T\n- Tags: decision\n- Fitness: last_referenced=2026-04-06, hit_count=0, "
         "decision_value=LOW\n- Body: b\n", 1, "not a valid YYYY-MM-DD date"),
        ("## [2026-04-06] T\n- Tags: decision\n- Fitness: hit_count=x\n- Body: b\n", 3, "Fitness must read"),
        ("## [2026-04-06] T\n- Body: b\n- Tags: decision\n- Fitness: last_referenced=2026-04-06, hit_count=0, "
         "decision_value=LOW\n", 3, "out of order"),
        ("## 2026-04-06 Missing brackets\n- Tags: decision\n- Fitness: last_referenced=2026-04-06, hit_count=0, "
         "decision_value=LOW\n- Body: b\n", 1, "header must be '## [YYYY-MM-DD] Title'"),
        ("## [2026-04-06] Heading that tries to be a record\nfree text\n", 1, "missing field '- Tags:'"),
    ],
)
def test_malformed_records_are_reported_with_their_line(text: str, line: int, words: str) -> None:
    found = findings(snapshot({}, {"decisions.md": "# Decisions\n\n" + text}), HOOK)
    assert any(f.line == line + 2 and words in f.message for f in found), found


def test_journals_accept_session_notes_and_check_their_items() -> None:
    notes = "## 14:30 — Session Notes\n- **Decision:** use Redis — fast\n- **Pending:** deploy\nfree text\n"
    assert findings(snapshot({}, {"2026-04-06.md": "# Journal\n\n" + notes}), HOOK) == []
    bad = "## 25:61 — Session Notes\n- **Mood:** fine\n- **Context:**\n"
    found = findings(snapshot({}, {"2026-04-06.md": "# Journal\n\n" + bad}), HOOK)
    lines = [(f.line, f.message.split(" ")[0]) for f in found]
    assert lines == [(3, "25:61"), (4, "session-note"), (5, "session-note")]
    assert "Mood" in found[1].message and "empty" in found[2].message


ORDINARY = (
    "## Notes\nfree text\n\n"
    "## 2026-05-13 — Email checks use gog only\n- Use `gog` only.\n\n"
    "## [18:10] blog scraper fix\n### Cause\ntext\n\n"
    "## [[Links]]\n- a\n\n"
    "## 14:30 — Session Notes\n- **Decision:** x — y\n\n"
    "## 09:30 — Deploy\n- **Why:** not a session-note label\n"
)


@pytest.mark.parametrize("name", ["decisions.md", "2026-04-06.md", "archive/2026-04.md", "groups/g/experience.md"])
def test_ordinary_headings_are_never_findings(name: str) -> None:
    assert findings(snapshot({}, {name: "# Free-form memory\n\n" + ORDINARY}), HOOK) == []


def test_the_first_tag_of_a_journal_record_is_its_kind() -> None:
    text = "# Journal\n\n" + record("2026-04-06", "Thing", tags="cache, decision")
    (finding,) = findings(snapshot({}, {"2026-04-06.md": text}), HOOK)
    assert finding.line == 4 and "'cache'" in finding.message


def test_a_new_entry_id_that_exists_in_the_archive_is_a_finding() -> None:
    archived = "# Archive\n\n" + record("2026-04-06", "Redis cache strategy")
    snap = snapshot({"decisions.md": "# Decisions\n\n"}, {"decisions.md": GOOD},
                    unchanged={"archive/2026-04.md": archived})
    (finding,) = findings(snap, HOOK)
    assert finding.path == "memory/decisions.md" and finding.line == 3
    assert "2026-04-06-redis-cache-strategy is not unique" in finding.message
    assert "memory/archive/2026-04.md:3" in finding.message


def test_duplicates_inside_one_file_and_moves_between_files() -> None:
    twice = GOOD + record("2026-04-06", "Redis Cache Strategy!")
    first, second = findings(snapshot({}, {"decisions.md": twice}), HOOK)
    assert (first.line, second.line) == (3, 8)
    assert "also at memory/decisions.md:8" in first.message and "also at memory/decisions.md:3" in second.message
    moved = snapshot({"decisions.md": GOOD, "archive/2026-04.md": "# Archive\n"},
                     {"decisions.md": "# Decisions\n\n", "archive/2026-04.md": "# Archive\n\n" + GOOD[13:]})
    assert findings(moved, HOOK) == []


def test_an_old_duplicate_is_not_blamed_on_an_unrelated_edit() -> None:
    both = "# Lessons\n\n" + record("2026-01-01", "Same") + record("2026-01-01", "Same")
    snap = snapshot({"lessons.md": both}, {"lessons.md": both + "trailing note\n"})
    assert findings(snap, HOOK) == []


def test_invalid_utf8_is_reported() -> None:
    snap = snapshot({}, {"decisions.md": GOOD})
    snap.unreadable["memory/decisions.md"] = (3, "not valid UTF-8 (byte 40); re-save the file as UTF-8")
    (finding,) = findings(snap, HOOK)
    assert (finding.line, finding.message.split(" (")[0]) == (3, "not valid UTF-8")
