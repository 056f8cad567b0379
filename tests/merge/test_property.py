"""Random bases and random edits on two sides: the merge loses no entry, keeps ids unique, writes no markers."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apm_git.merge.conserve import lost_entries
from apm_git.merge.tree import merge_memory
from apm_git.model.records import Record, parse, set_field
from apm_git.model.reinsert import drop_records

FILES = ("memory/decisions.md", "memory/lessons.md", "memory/2026-04-01.md", "memory/main/longterm.md")
ARCHIVE = "memory/archive/2026-05.md"
TITLES = ("Redis cache", "Use uv", "Deploy on Fridays", "Pin numpy", "Alice prefers tabs", "Retry flaky tests",
          "Proxy settings", "Schema v2")
BODIES = ("Yes.", "No.", "It depends on the load.", "Measured twice.")


def record(title: str, day: int, hits: int, body: str) -> str:
    return (f"## [2026-04-{day:02d}] {title}\n- Tags: decision\n"
            f"- Fitness: last_referenced=2026-04-{day:02d}, hit_count={hits}, decision_value=MEDIUM\n"
            f"- Body: {body}\n\n")


@st.composite
def memories(draw: st.DrawFn) -> dict[str, str]:
    tree = {path: f"# {path.rsplit('/', 1)[-1]}\n\n" for path in FILES}
    tree["memory/main/longterm.md"] += "## Notes\nA line.\nAnother line.\n\n"
    count = draw(st.integers(0, 8))
    for number in range(count):
        title = draw(st.sampled_from(TITLES)) + f" {number}"
        path = draw(st.sampled_from(FILES[:3]))
        tree[path] += record(title, draw(st.integers(1, 9)), draw(st.integers(0, 6)), draw(st.sampled_from(BODIES)))
    return tree


def _entries(tree: dict[str, str]) -> list[tuple[str, Record]]:
    return [(path, entry) for path in sorted(tree) for entry in parse(tree[path]).records]


@st.composite
def edited(draw: st.DrawFn, base: dict[str, str], side: str) -> dict[str, str]:
    tree = dict(base)
    for step in range(draw(st.integers(0, 6))):
        found = _entries(tree)
        op = draw(st.sampled_from(("add", "hit", "edit", "archive", "delete", "promote", "fold", "prose")))
        if op == "add" or not found:
            path = draw(st.sampled_from(FILES[:3]))
            title = draw(st.sampled_from(TITLES)) + f" {side}{step}"
            tree[path] += record(title, draw(st.integers(1, 9)), 0, draw(st.sampled_from(BODIES)))
            continue
        if op == "prose":
            path = "memory/main/longterm.md"
            tree[path] = tree[path].replace("A line.", f"A line ({side}).")
            continue
        path, entry = draw(st.sampled_from(found))
        fitness = entry.fitness
        assert fitness is not None
        if op == "hit":
            changed = set_field(entry, "Fitness", fitness.render().replace(
                f"hit_count={fitness.hit_count}", f"hit_count={fitness.hit_count + 1}"))
            tree[path] = tree[path].replace(entry.text, changed.text)
        elif op == "edit":
            changed = set_field(entry, "Body", f"{entry.body} Edited on {side}.")
            tree[path] = tree[path].replace(entry.text, changed.text)
        elif op == "delete":
            tree[path] = drop_records(tree[path], {entry.id})
        elif op in ("archive", "promote"):
            target = ARCHIVE if op == "archive" else "memory/decisions.md"
            if path == target:
                continue
            moved = set_field(entry, "Archived", "2026-05-01 (fitness score: 10)") if op == "archive" else entry
            tree[path] = drop_records(tree[path], {entry.id})
            text = moved.text if moved.text.endswith("\n\n") else moved.text.rstrip("\n") + "\n\n"
            tree[target] = tree.get(target, "# Archive\n\n") + text
        elif op == "fold":
            others = [(where, other) for where, other in found if other.id != entry.id and where == path]
            if not others:
                continue
            _, into = draw(st.sampled_from(others))
            merged = set_field(into, "Merged", ", ".join(filter(None, [into.field("Merged"), entry.id])))
            tree[path] = drop_records(tree[path].replace(into.text, merged.text), {entry.id})
    return tree


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_merges_lose_nothing(data: st.DataObject) -> None:
    base = data.draw(memories())
    ours = data.draw(edited(base, "ours"))
    theirs = data.draw(edited(base, "theirs"))
    result = merge_memory(base, ours, theirs)
    merged = result.files
    assert lost_entries(base, ours, theirs, merged) == []
    ids = [entry.id for text in merged.values() if text is not None for entry in parse(text).records]
    assert len(ids) == len(set(ids)), ids
    assert not any("<<<<<<<" in text or "=======" in text for text in merged.values() if text)
    for text in merged.values():
        assert text is None or all(entry.ok for entry in parse(text).records)
    assert merge_memory(base, ours, base).files == {**dict.fromkeys(base), **ours}
    assert merge_memory(base, base, theirs).files == {**dict.fromkeys(base), **theirs}
