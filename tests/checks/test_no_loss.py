from __future__ import annotations

from tests.checks.helpers import findings, record, snapshot

HOOK = "apm-no-loss"
OLD = record("2026-01-15", "Old server config")
KEEP = record("2026-03-01", "Keep this")
DECISIONS = "# Decisions\n\n" + OLD + KEEP


def test_a_deleted_entry_is_a_finding_at_its_base_line() -> None:
    (finding,) = findings(snapshot({"decisions.md": DECISIONS}, {"decisions.md": "# Decisions\n\n" + KEEP}), HOOK)
    assert (finding.path, finding.line) == ("memory/decisions.md", 3)
    assert "2026-01-15-old-server-config" in finding.message and "archive/" in finding.message


def test_a_deleted_file_loses_its_entries() -> None:
    found = findings(snapshot({"decisions.md": DECISIONS}, {}), HOOK)
    assert [f.line for f in found] == [3, 8]


def test_moved_into_the_archive_in_the_same_change_is_fine() -> None:
    snap = snapshot({"decisions.md": DECISIONS},
                    {"decisions.md": "# Decisions\n\n" + KEEP, "archive/2026-04.md": "# Archive\n\n" + OLD})
    assert findings(snap, HOOK) == []


def test_found_elsewhere_in_the_tree_merged_or_superseded_is_fine() -> None:
    after = {"decisions.md": "# Decisions\n\n" + KEEP}
    elsewhere = {"lessons.md": "# L\n\n" + OLD}
    assert findings(snapshot({"decisions.md": DECISIONS}, after, unchanged=elsewhere), HOOK) == []
    fields = ("Merged: 2026-02-02-x, 2026-01-15-old-server-config", "Supersedes: 2026-01-15-old-server-config — was X")
    for field in fields:
        folded = "# Decisions\n\n" + record("2026-03-01", "Keep this", extra=f"- {field}\n")
        assert findings(snapshot({"decisions.md": DECISIONS}, {"decisions.md": folded}), HOOK) == [], field


def test_a_rename_of_the_title_without_supersedes_is_a_loss() -> None:
    renamed = DECISIONS.replace("Old server config", "Old server settings")
    (finding,) = findings(snapshot({"decisions.md": DECISIONS}, {"decisions.md": renamed}), HOOK)
    assert "2026-01-15-old-server-config" in finding.message


def test_entries_outside_record_files_are_not_held_to_it() -> None:
    assert findings(snapshot({"main/longterm.md": "# LT\n\n" + OLD}, {"main/longterm.md": "# LT\n"}), HOOK) == []
