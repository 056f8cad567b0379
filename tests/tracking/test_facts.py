"""What changed in free-form memory, section by section and fact by fact (apm_git/tracking/facts.py)."""
from __future__ import annotations

from apm_git.tracking.facts import diff_folder

BEFORE = {
    "MEMORY.md": "# Memory\n\n- [Redis](redis.md) — cache notes\n- Use pnpm not npm\n- Deploy on Fridays\n\n"
                 "## Prefs\n- tabs over spaces\n- short commits\n\n## Old API\n- v1 is gone\n- v2 paths\n",
    "redis.md": "# Redis\n- TTL 300s\n- eviction allkeys-lru\n",
}
AFTER = {
    "MEMORY.md": "# Memory\n\n- [Redis](redis.md) — cache notes\n- Use pnpm, never npm\n- eviction allkeys-lru\n\n"
                 "## Preferences\n- tabs over spaces\n- short commits\n",
    "redis.md": "# Redis\n- TTL 300s\n",
}


def test_a_consolidation_is_named_fact_by_fact() -> None:
    found = diff_folder(BEFORE, AFTER)
    facts = {(fact.status, fact.text) for fact in found.facts}
    assert facts == {
        ("removed", "- Deploy on Fridays"),
        ("rewritten", "- Use pnpm, never npm"),
        ("moved", "- eviction allkeys-lru"),
        ("removed", "- v1 is gone"),
        ("removed", "- v2 paths"),
    }
    rewritten = next(fact for fact in found.facts if fact.status == "rewritten")
    assert rewritten.before == "- Use pnpm not npm" and rewritten.section == "# Memory"
    moved = next(fact for fact in found.facts if fact.status == "moved")
    assert (moved.file, moved.section, moved.source) == ("MEMORY.md", "# Memory", "redis.md › # Redis")
    assert moved.line == 5  # where it is now
    sections = {(section.status, section.file, section.heading, section.source) for section in found.sections}
    assert sections == {
        ("removed", "MEMORY.md", "## Old API", None),
        ("renamed", "MEMORY.md", "## Preferences", "## Prefs"),
        ("changed", "MEMORY.md", "# Memory", None),
        ("changed", "redis.md", "# Redis", None),
    }
    assert [fact.status for fact in found.facts] == sorted((fact.status for fact in found.facts),
                                                           key=["removed", "rewritten", "moved", "added"].index)


def test_a_section_moved_to_another_file_whole() -> None:
    before = {"a.md": "# A\n- x\n\n## Deploy\n- make deploy\n", "b.md": "# B\n- y\n"}
    after = {"a.md": "# A\n- x\n", "b.md": "# B\n- y\n\n## Deploy\n- make deploy\n"}
    found = diff_folder(before, after)
    assert [(section.status, section.file, section.source) for section in found.sections] == [
        ("moved", "b.md", "a.md")]
    assert found.facts == ()


def test_a_deleted_file_and_an_added_one() -> None:
    found = diff_folder({"gone.md": "# Gone\n- fact\n"}, {"new.md": "# New\n- other\n"})
    assert {(section.status, section.file) for section in found.sections} == {("removed", "gone.md"),
                                                                             ("added", "new.md")}
    assert [(fact.status, fact.text) for fact in found.facts] == [("removed", "- fact")]


def test_a_duplicate_fact_removed_once_is_one_removal() -> None:
    found = diff_folder({"m.md": "- same\n- same\n- other\n"}, {"m.md": "- same\n- other\n"})
    assert [(fact.status, fact.text) for fact in found.facts] == [("removed", "- same")]


def test_added_facts_in_a_kept_section() -> None:
    found = diff_folder({"m.md": "## Notes\n- a\n"}, {"m.md": "## Notes\n- a\n- brand new thing\n"})
    assert [(fact.status, fact.text) for fact in found.facts] == [("added", "- brand new thing")]


def test_unchanged_text_and_blank_lines_alone_are_no_change() -> None:
    assert diff_folder({"m.md": "## A\n- a\n"}, {"m.md": "## A\n- a\n\n\n"}).empty
