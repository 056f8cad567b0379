"""Conservation across a merge of a tracked folder (apm_git/tracking/conserve.py)."""
from __future__ import annotations

from apm_git.tracking.conserve import lost_in_merge

BASE = {"MEMORY.md": "# M\n- a\n\n## Deploy\n- fridays\n"}


def test_a_section_one_side_changed_must_survive() -> None:
    ours = {"MEMORY.md": "# M\n- a\n\n## Deploy\n- fridays\n- and mondays\n"}
    theirs = {"MEMORY.md": "# M\n- a\n"}
    assert lost_in_merge(BASE, ours, theirs, {"MEMORY.md": theirs["MEMORY.md"]}) == ["MEMORY.md › ## Deploy"]
    assert lost_in_merge(BASE, ours, theirs, {"MEMORY.md": ours["MEMORY.md"]}) == []


def test_a_fact_one_side_added_must_survive() -> None:
    ours = {"MEMORY.md": "# M\n- a\n- b\n\n## Deploy\n- fridays\n"}
    theirs = {"MEMORY.md": "# M\n- a\n- c\n\n## Deploy\n- fridays\n"}
    merged = {"MEMORY.md": "# M\n- a\n- c\n\n## Deploy\n- fridays\n"}
    assert lost_in_merge(BASE, ours, theirs, merged) == ["MEMORY.md › # M: - b"]


def test_a_deletion_against_no_change_is_no_loss() -> None:
    theirs = {"MEMORY.md": "# M\n- a\n"}
    assert lost_in_merge(BASE, dict(BASE), theirs, dict(theirs)) == []
