"""One test per merge rule of docs/merge.md: a base, two sides, the merged tree (pure, in memory)."""
from __future__ import annotations

import datetime as dt
import json

from apm_git.merge.conserve import lost_entries
from apm_git.merge.tree import merge_memory
from apm_git.model import index_md
from apm_git.model.records import parse

DEC = "memory/decisions.md"
LES = "memory/lessons.md"
JOURNAL = "memory/2026-04-01.md"
ARCHIVE = "memory/archive/2026-05.md"


def rec(title: str, *, day: str = "2026-04-06", hits: int = 1, last: str = "2026-04-07", value: str = "MEDIUM",
        body: str = "The body.", tags: str = "decision", proven: bool = False, fields: str = "",
        more: str = "") -> str:
    mark = "[PROVEN] " if proven else ""
    return (f"## [{day}] {mark}{title}\n- Tags: {tags}\n"
            f"- Fitness: last_referenced={last}, hit_count={hits}, decision_value={value}\n"
            f"- Body: {body}\n{fields}{more}\n")


def file(*records: str, title: str = "# Decisions") -> str:
    return f"{title}\n\n" + "".join(records)


def entries(text: str | None) -> dict[str, str]:
    assert text is not None
    return {record.id: record.text for record in parse(text).records}


def check(base: dict[str, str], ours: dict[str, str], theirs: dict[str, str]) -> dict[str, str | None]:
    """Merge, then hold the promises every merge keeps: nothing lost, ids unique, no conflict markers."""
    result = merge_memory(base, ours, theirs)
    merged = result.files
    assert lost_entries(base, ours, theirs, merged) == []
    ids = [record.id for text in merged.values() if text is not None and text.count("## [")
           for record in parse(text).records]
    assert len(ids) == len(set(ids)), ids
    assert not any("<<<<<<<" in text or ">>>>>>>" in text for text in merged.values() if text)
    return merged


def test_unchanged_sides_give_the_other_side_byte_for_byte() -> None:
    base = {DEC: file(rec("A"), rec("B"))}
    ours = {DEC: "\ufeff" + file(rec("A", hits=2), rec("B")).replace("\n", "\r\n")}
    assert merge_memory(base, ours, base).files == ours
    assert merge_memory(base, base, ours).files == ours
    assert merge_memory(ours, ours, ours).files == ours


def test_added_on_either_side_is_kept() -> None:
    base = {DEC: file(rec("A"))}
    ours = {DEC: file(rec("A"), rec("Ours new"))}
    theirs = {DEC: file(rec("A"), rec("Theirs new")), LES: file(rec("A lesson", tags="lesson"), title="# Lessons")}
    merged = check(base, ours, theirs)
    assert list(entries(merged[DEC])) == ["2026-04-06-a", "2026-04-06-ours-new", "2026-04-06-theirs-new"]
    assert merged[LES] == theirs[LES]


def test_fitness_merges_as_counters() -> None:
    base = {DEC: file(rec("A", hits=3, last="2026-04-07"))}
    ours = {DEC: file(rec("A", hits=4, last="2026-04-10"))}
    theirs = {DEC: file(rec("A", hits=6, last="2026-04-09", value="HIGH"))}
    merged = check(base, ours, theirs)
    assert "last_referenced=2026-04-10, hit_count=7, decision_value=HIGH" in merged[DEC]  # type: ignore[operator]


def test_decision_value_changed_on_both_sides_takes_the_higher() -> None:
    base = {DEC: file(rec("A", value="MEDIUM"))}
    merged = check(base, {DEC: file(rec("A", value="LOW"))}, {DEC: file(rec("A", value="HIGH"))})
    assert "decision_value=HIGH" in merged[DEC]  # type: ignore[operator]


def test_body_changed_on_one_side_takes_that_side_with_the_others_hit() -> None:
    base = {DEC: file(rec("A", body="Old."))}
    ours = {DEC: file(rec("A", body="New.", more="A longer body line.\n"))}
    theirs = {DEC: file(rec("A", body="Old.", hits=2))}
    merged = check(base, ours, theirs)
    assert merged[DEC] == file(rec("A", body="New.", hits=2, more="A longer body line.\n"))


def conflicts_of(text: str | None) -> str | None:
    record = parse(text or "").records[0]
    return record.field("Conflicts")


def test_conflicts_items_split_on_semicolons_each_kept_once() -> None:
    """`Conflicts` is a list of `<id> — <what>` items separated by `; ` (a what may hold commas): the union is
    item by item, keyed by the id an item names, not the whole value as one item."""
    x, y, z = ("2026-04-01-x — one, as said", "2026-04-02-y — two", "2026-04-03-z — three")
    base = {DEC: file(rec("A", fields=f"- Conflicts: {x}\n"))}
    ours = {DEC: file(rec("A", fields=f"- Conflicts: {x}; {y}\n"))}
    theirs = {DEC: file(rec("A", hits=2, fields=f"- Conflicts: {x}; {z}\n"))}
    assert conflicts_of(check(base, ours, theirs)[DEC]) == f"{x}; {y}; {z}"
    base = {DEC: file(rec("A"))}  # no base value: each side's items, the same id once (ours's wording)
    ours = {DEC: file(rec("A", fields=f"- Conflicts: {y}; {x}\n"))}
    theirs = {DEC: file(rec("A", fields="- Conflicts: 2026-04-02-y — deux; 2026-04-03-z — three\n"))}
    assert conflicts_of(check(base, ours, theirs)[DEC]) == f"{y}; {x}; {z}"


def test_a_conflict_settled_on_one_side_stays_settled_when_the_other_only_hit_it() -> None:
    """`apm-git resolve` removes one item of `Conflicts`; a hit on the other clone must not bring it back,
    whether the item was the only one or one of several."""
    x, y = "2026-04-01-x — one", "2026-04-02-y — two"
    base = {DEC: file(rec("A", fields=f"- Conflicts: {x}; {y}\n"))}
    hit = {DEC: file(rec("A", hits=3, fields=f"- Conflicts: {x}; {y}\n"))}
    settled_y = {DEC: file(rec("A", fields=f"- Conflicts: {x}\n"))}
    settled_both = {DEC: file(rec("A"))}
    for ours, theirs in ((hit, settled_y), (settled_y, hit)):
        merged = check(base, ours, theirs)[DEC]
        assert conflicts_of(merged) == x and "hit_count=3" in (merged or "")
    for ours, theirs in ((hit, settled_both), (settled_both, hit)):
        assert conflicts_of(check(base, ours, theirs)[DEC]) is None
    added = {DEC: file(rec("A", hits=3, fields=f"- Conflicts: {x}; {y}; 2026-04-03-z — three\n"))}
    assert conflicts_of(check(base, added, settled_y)[DEC]) == f"{x}; 2026-04-03-z — three"


def test_body_changed_differently_keeps_both_versions_linked_by_conflicts() -> None:
    base = {DEC: file(rec("A", body="Old."), rec("B"))}
    ours = {DEC: file(rec("A", body="Ours."), rec("B"))}
    theirs = {DEC: file(rec("A", body="Theirs.", hits=2), rec("B"))}
    result = merge_memory(base, ours, theirs)
    found = entries(result.files[DEC])
    assert list(found) == ["2026-04-06-a", "2026-04-06-a-merge-other-version", "2026-04-06-b"]
    assert "Body: Ours." in found["2026-04-06-a"] and "Body: Theirs." in found["2026-04-06-a-merge-other-version"]
    assert "- Conflicts: 2026-04-06-a-merge-other-version — " in found["2026-04-06-a"]
    assert "- Conflicts: 2026-04-06-a — " in found["2026-04-06-a-merge-other-version"]
    assert all("hit_count=2" in text for text in found.values() if "-a" in text[:30])
    assert [(c.entry, c.path) for c in result.conflicts] == [("2026-04-06-a", DEC)]
    assert all(record.ok for record in parse(result.files[DEC] or "").records)
    check(base, ours, theirs)


def test_deleted_on_one_side_and_changed_on_the_other_is_kept_changed() -> None:
    base = {DEC: file(rec("A"), rec("B"))}
    ours = {DEC: file(rec("B"))}
    theirs = {DEC: file(rec("A", body="Edited."), rec("B"))}
    merged = check(base, ours, theirs)
    assert "Body: Edited." in entries(merged[DEC])["2026-04-06-a"]


def test_deleted_on_one_side_and_unchanged_on_the_other_is_deleted() -> None:
    base = {DEC: file(rec("A"), rec("B"))}
    ours = {DEC: file(rec("B"))}
    theirs = {DEC: file(rec("A"), rec("B"), rec("C"))}
    merged = check(base, ours, theirs)
    assert list(entries(merged[DEC])) == ["2026-04-06-b", "2026-04-06-c"]


def test_promoted_on_one_side_and_hit_on_the_other_ends_promoted_with_the_hit() -> None:
    item = rec("Use uv", day="2026-04-01", hits=1, last="2026-04-01", value="HIGH")
    base = {JOURNAL: file(item, title="# 2026-04-01"), DEC: file(rec("A"))}
    promoted = rec("Use uv", day="2026-04-01", hits=1, last="2026-04-01", value="HIGH",
                   fields="- Source: memory/2026-04-01.md\n")
    ours = {JOURNAL: "# 2026-04-01\n\n", DEC: file(rec("A"), promoted)}
    theirs = {JOURNAL: file(rec("Use uv", day="2026-04-01", hits=2, last="2026-04-03", value="HIGH"),
                            title="# 2026-04-01"), DEC: file(rec("A"))}
    merged = check(base, ours, theirs)
    assert merged[JOURNAL] == "# 2026-04-01\n\n"
    moved = entries(merged[DEC])["2026-04-01-use-uv"]
    assert "hit_count=2" in moved and "last_referenced=2026-04-03" in moved and "Source: memory/2026-04-01.md" in moved
    # the same with the sides swapped
    merged = check(base, theirs, ours)
    assert "hit_count=2" in entries(merged[DEC])["2026-04-01-use-uv"] and merged[JOURNAL] == "# 2026-04-01\n\n"


def test_archived_on_one_side_and_edited_on_the_other_ends_archived_with_the_edit() -> None:
    stamp = "- Archived: 2026-05-02 (fitness score: 35, last_referenced: 2026-04-07, from memory/decisions.md)\n"
    base = {DEC: file(rec("A"), rec("Old"))}
    ours = {DEC: file(rec("A", body="Edited.")), ARCHIVE: file(rec("A", fields=stamp), title="# Archive 2026-05")}
    theirs = {DEC: file(rec("A"), rec("Old", hits=3))}
    ours[DEC] = file(rec("Old"))
    ours[ARCHIVE] = file(rec("A", fields=stamp), title="# Archive 2026-05")
    theirs = {DEC: file(rec("A", body="Edited.", hits=3), rec("Old"))}
    merged = check(base, ours, theirs)
    assert list(entries(merged[DEC])) == ["2026-04-06-old"]
    archived = entries(merged[ARCHIVE])["2026-04-06-a"]
    assert "Body: Edited." in archived and "hit_count=3" in archived and "- Archived: 2026-05-02" in archived


def test_superseded_on_one_side_and_hit_on_the_other_stays_superseded() -> None:
    base = {DEC: file(rec("Cache", day="2026-04-01"), rec("Cache", day="2026-04-05", body="Newer."))}
    old = rec("Cache", day="2026-04-01", fields="- Superseded-by: 2026-04-05-cache\n- Archived: 2026-05-02 (x)\n")
    new = rec("Cache", day="2026-04-05", body="Newer.", fields="- Supersedes: 2026-04-01-cache — the old\n")
    ours = {DEC: file(new), ARCHIVE: file(old, title="# Archive")}
    theirs = {DEC: file(rec("Cache", day="2026-04-01", hits=4), rec("Cache", day="2026-04-05", body="Newer."))}
    merged = check(base, ours, theirs)
    assert list(entries(merged[DEC])) == ["2026-04-05-cache"]
    assert "hit_count=4" in entries(merged[ARCHIVE])["2026-04-01-cache"]


def test_folded_on_one_side_and_hit_on_the_other_gives_the_hits_to_the_merger() -> None:
    base = {DEC: file(rec("A", hits=2), rec("A again", hits=1))}
    ours = {DEC: file(rec("A", hits=3, fields="- Merged: 2026-04-06-a-again\n"))}
    theirs = {DEC: file(rec("A", hits=2), rec("A again", hits=3, last="2026-04-20"))}
    merged = check(base, ours, theirs)
    assert list(entries(merged[DEC])) == ["2026-04-06-a"]
    assert "last_referenced=2026-04-20, hit_count=5" in merged[DEC]  # type: ignore[operator]


def test_folded_on_one_side_and_edited_on_the_other_is_kept() -> None:
    base = {DEC: file(rec("A"), rec("A again"))}
    ours = {DEC: file(rec("A", fields="- Merged: 2026-04-06-a-again\n"))}
    theirs = {DEC: file(rec("A"), rec("A again", body="Something else."))}
    merged = check(base, ours, theirs)
    assert "Body: Something else." in entries(merged[DEC])["2026-04-06-a-again"]


def test_a_journal_archived_whole_takes_the_other_sides_additions_along() -> None:
    moved = "memory/archive/journals/2026-04-01.md"
    journal = file(rec("One", day="2026-04-01", tags="pending"), title="# 2026-04-01")
    base = {JOURNAL: journal}
    ours = {moved: journal}
    theirs = {JOURNAL: journal.replace("hit_count=1", "hit_count=2") + rec("Two", day="2026-04-01", tags="pending")}
    merged = check(base, ours, theirs)
    assert merged[JOURNAL] is None
    assert list(entries(merged[moved])) == ["2026-04-01-one", "2026-04-01-two"]
    assert "hit_count=2" in (merged[moved] or "")


def test_proven_mark_is_kept() -> None:
    base = {DEC: file(rec("A", hits=4))}
    ours = {DEC: file(rec("A", hits=5, proven=True, value="HIGH"))}
    theirs = {DEC: file(rec("A", hits=5))}
    merged = check(base, ours, theirs)
    assert "## [2026-04-06] [PROVEN] A" in merged[DEC] and "hit_count=6, decision_value=HIGH" in merged[DEC]  # type: ignore[operator]


def test_append_only_index_is_a_union_in_order_without_duplicates() -> None:
    path = "memory/groups/dev.md"
    base = {path: "# dev\n\n| file | when |\n|---|---|\n| a.md | always |\n"}
    ours = {path: base[path] + "| b.md | code |\n| c.md | deploy |\n"}
    theirs = {path: base[path].replace("| always |", "| always | [DEPRECATED]")
              + "| c.md | deploy |\n| d.md | people |\n"}
    merged = check(base, ours, theirs)
    assert merged[path] == ("# dev\n\n| file | when |\n|---|---|\n| a.md | always | [DEPRECATED]\n"
                            "| b.md | code |\n| c.md | deploy |\n| d.md | people |\n")


def test_journal_session_notes_are_a_union_of_items() -> None:
    note = "## 14:30 — Session Notes\n- **Decision:** use uv — fast\n"
    base = {JOURNAL: "# 2026-04-01\n\n" + note}
    ours = {JOURNAL: base[JOURNAL] + "- **Pending:** write docs\n"}
    theirs = {JOURNAL: base[JOURNAL] + "- **Discovery:** pip is slow\n"}
    result = merge_memory(base, ours, theirs)
    assert result.files[JOURNAL] == ("# 2026-04-01\n\n" + note + "- **Pending:** write docs\n"
                                     "- **Discovery:** pip is slow\n")
    assert result.clean


def test_free_form_sections_merge_by_heading() -> None:
    path = "memory/main/longterm.md"
    base = {path: "# Long-term\n\n## Who\nAlice.\n\n## Stack\nPython.\n"}
    ours = {path: "# Long-term\n\n## Who\nAlice, the maintainer.\n\n## Stack\nPython.\n"}
    theirs = {path: "# Long-term\n\n## Who\nAlice.\n\n## Stack\nPython 3.12.\n\n## Tools\nuv.\n"}
    result = merge_memory(base, ours, theirs)
    assert result.files[path] == ("# Long-term\n\n## Who\nAlice, the maintainer.\n\n"
                                  "## Stack\nPython 3.12.\n\n## Tools\nuv.\n")
    assert result.clean


def test_the_same_free_form_lines_changed_on_both_sides_keep_both_versions() -> None:
    path = "memory/main/longterm.md"
    base = {path: "# Long-term\n\n## Stack\nPython.\n"}
    ours = {path: "# Long-term\n\n## Stack\nPython 3.12.\n"}
    theirs = {path: "# Long-term\n\n## Stack\nPython 3.13.\n"}
    result = merge_memory(base, ours, theirs)
    text = result.files[path] or ""
    assert "Python 3.12." in text and "Python 3.13." in text and "<<<<<<<" not in text
    assert text.index("Python 3.12.") < text.index("apm-git merge: both sides") < text.index("Python 3.13.")
    assert result.unmerged == [path] and result.conflicts and not result.clean


def test_line_ends_and_bom_are_kept() -> None:
    base = {DEC: "\ufeff" + file(rec("A")).replace("\n", "\r\n")}
    ours = {DEC: base[DEC].replace("hit_count=1", "hit_count=2")}
    theirs = {DEC: base[DEC] + rec("B").replace("\n", "\r\n")}
    merged = check(base, ours, theirs)
    assert merged[DEC] == "\ufeff" + file(rec("A", hits=2), rec("B")).replace("\n", "\r\n")


def test_flush_state_merges_by_key_with_the_later_flush_winning() -> None:
    path = "memory/flush-state.json"
    base_state = {"groups": {"last_flush_time": "2026-04-01T10:00:00+00:00",
                             "dev": {"last_flush_time": "2026-04-01T10:00:00+00:00", "last_trigger": "manual"}},
                  "main_session": {"last_flush_time": None}, "pending_items": [{"x": 1}]}
    ours_state = json.loads(json.dumps(base_state))
    ours_state["groups"]["dev"] = {"last_flush_time": "2026-04-02T09:00:00+00:00", "last_trigger": "idle"}
    ours_state["groups"]["last_flush_time"] = "2026-04-02T09:00:00+00:00"
    ours_state["pending_items"] = [{"x": 1}, {"y": 2}]
    theirs_state = json.loads(json.dumps(base_state))
    theirs_state["groups"]["dev"] = {"last_flush_time": "2026-04-03T09:00:00+00:00", "last_trigger": "session-end"}
    theirs_state["groups"]["last_flush_time"] = "2026-04-03T09:00:00+00:00"
    theirs_state["main_session"] = {"last_flush_time": "2026-04-01T12:00:00+00:00"}
    theirs_state["pending_items"] = [{"z": 3}]
    base, ours, theirs = ({path: json.dumps(state)} for state in (base_state, ours_state, theirs_state))
    merged = json.loads(merge_memory(base, ours, theirs).files[path] or "")
    assert merged["groups"]["dev"] == theirs_state["groups"]["dev"]
    assert merged["groups"]["last_flush_time"] == "2026-04-03T09:00:00+00:00"
    assert merged["main_session"] == theirs_state["main_session"]
    assert merged["pending_items"] == [{"y": 2}, {"z": 3}]


def test_group_names_are_a_union_and_a_room_mapped_twice_is_a_conflict() -> None:
    path = "memory/group_names.json"
    base = {path: json.dumps({"room-1": "dev"})}
    ours = {path: json.dumps({"room-1": "dev", "room-2": "ops", "room-3": "ours"})}
    theirs = {path: json.dumps({"room-1": "dev", "room-4": "web", "room-3": "theirs"})}
    result = merge_memory(base, ours, theirs)
    assert json.loads(result.files[path] or "") == {"room-1": "dev", "room-2": "ops", "room-3": "ours", "room-4": "web"}
    assert len(result.conflicts) == 1 and "room-3" in result.conflicts[0].what
    assert result.conflicts[0].path == path


def test_index_changed_on_both_sides_keeps_ours_and_asks_for_a_rebuild() -> None:
    path = "memory/INDEX.md"
    base, ours, theirs = ({path: index_md.render(dt.date(2026, 4, day), [], [], [], 0, [], 80)} for day in (1, 2, 3))
    assert index_md.generated(ours[path]) and ours[path] != theirs[path]
    result = merge_memory(base, ours, theirs)
    assert result.files[path] == ours[path] and result.rebuild == [path] and result.clean


def test_apm_yaml_changed_on_the_same_lines_keeps_theirs_commented_out() -> None:
    base = {"apm.yaml": "memory_budget: 4000\n"}
    result = merge_memory(base, {"apm.yaml": "memory_budget: 5000\n"}, {"apm.yaml": "memory_budget: 6000\n"})
    text = result.files["apm.yaml"] or ""
    assert text.startswith("memory_budget: 5000\n") and "# memory_budget: 6000\n" in text
    assert result.unmerged == ["apm.yaml"]


def test_lost_entries_finds_an_entry_the_merged_tree_dropped() -> None:
    base = {DEC: file(rec("A"))}
    ours = {DEC: file(rec("A"), rec("B"))}
    theirs = {DEC: file(rec("A", hits=2))}
    assert lost_entries(base, ours, theirs, {DEC: file(rec("A", hits=2))}) == ["2026-04-06-b"]
    assert lost_entries(base, ours, theirs, {DEC: None}) == ["2026-04-06-a", "2026-04-06-b"]
    assert lost_entries(base, ours, theirs, {DEC: file(rec("B", fields="- Merged: 2026-04-06-a\n"))}) == []
