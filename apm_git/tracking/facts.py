"""What changed in free-form memory between two versions of a folder, section by section and fact by fact
(docs/tracking.md, "What diff names").  Pure: texts in, changes out.

Sections are matched by heading (the n-th `## Notes` with the n-th), facts by their text with list
markers and white space set aside.  A fact that left its section and is found in another one (of any
changed file) was moved; one that left and has a close new version in the same section was rewritten
(the closest, when at least REWRITE_RATIO alike); any other that left was removed.  A section found in
another file with the same heading and text was moved; one whose heading changed over the same facts
(RENAME_SHARE of them or more) was renamed.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from difflib import SequenceMatcher
from typing import NamedTuple

from apm_git.model.vocabulary import FACT_STATUSES, FactStatus, TrackedSectionStatus
from apm_git.tracking.outline import Fact, OutlinePart, outline

REWRITE_RATIO = 0.6
RENAME_SHARE = 0.6
MAX_PAIRS = 40_000  # fact pairs compared for rewrites in one section; past it, removed and added stay apart
TOP = ""  # the heading of the text before a file's first heading

Loc = tuple[str, str, int]  # (file, heading, occurrence of that heading in the file)


class TrackedSectionChange(NamedTuple):
    file: str
    heading: str  # as written ("## Decisions"); TOP for the top of the file
    status: TrackedSectionStatus
    source: str | None  # moved: the file it came from; renamed: the heading it had
    line: int  # where it is (removed: where it was)
    facts_before: int
    facts_after: int
    commit: str | None = None  # the snapshot that made the change, when known
    background: bool = False  # made while no session of the agent was running


class FactChange(NamedTuple):
    file: str  # where it is (removed: where it was)
    section: str  # the heading of its section there
    status: FactStatus
    text: str  # as it is now (removed: as it was)
    before: str | None  # rewritten: the old text; moved: None
    source: str | None  # moved: "file › heading" it came from
    line: int
    commit: str | None = None
    background: bool = False


class FolderDiff(NamedTuple):
    sections: tuple[TrackedSectionChange, ...]
    facts: tuple[FactChange, ...]

    @property
    def empty(self) -> bool:
        return not self.sections and not self.facts


def place(file: str, heading: str) -> str:
    """`MEMORY.md › ## Decisions` (the top of a file is the file alone)."""
    return f"{file} › {heading}" if heading else file


def diff_folder(before: Mapping[str, str | None], after: Mapping[str, str | None]) -> FolderDiff:
    """The section and fact changes from `before` to `after` (path -> text; None or absent: no such file).
    Give every file that changed on either side: a move is found only among them."""
    old = _sections(before)
    new = _sections(after)
    old_where = _where(old)
    new_where = _where(new)
    sections: list[TrackedSectionChange] = []
    facts: list[FactChange] = []
    pairs: list[tuple[Loc, Loc]] = [(loc, loc) for loc in old if loc in new]
    gone = [loc for loc in old if loc not in new]
    came = [loc for loc in new if loc not in old]
    for loc in list(gone):
        twin = next((other for other in came if other[1] == loc[1] and other[0] != loc[0]
                     and new[other].text.rstrip() == old[loc].text.rstrip()), None)
        if twin is not None:
            sections.append(_section(twin, new[twin], "moved", loc[0], len(old[loc].facts)))
            gone.remove(loc)
            came.remove(twin)
            continue
        renamed = next((other for other in came if other[0] == loc[0] and _shared(old[loc], new[other])), None)
        if renamed is not None:
            sections.append(_section(renamed, new[renamed], "renamed", loc[1], len(old[loc].facts)))
            pairs.append((loc, renamed))
            gone.remove(loc)
            came.remove(renamed)
    for loc, other in pairs:
        was, now = old[loc], new[other]
        if was.text.rstrip() == now.text.rstrip():
            continue
        if loc == other:
            sections.append(_section(other, now, "changed", None, len(was.facts)))
        facts += _fact_changes(other, was.facts, now.facts, old_where, new_where, new)
    for loc in gone:
        was = old[loc]
        sections.append(TrackedSectionChange(loc[0], loc[1], "removed", None, was.line, len(was.facts), 0))
        facts += _fact_changes(loc, was.facts, (), old_where, new_where, new)
    for loc in came:
        sections.append(_section(loc, new[loc], "added", None, 0))
    order = {status: rank for rank, status in enumerate(("removed", "renamed", "moved", "changed", "added"))}
    sections.sort(key=lambda change: (order[change.status], change.file, change.line))
    facts.sort(key=lambda change: (FACT_STATUSES.index(change.status), change.file, change.line))
    return FolderDiff(tuple(sections), tuple(facts))


def _section(loc: Loc, part: OutlinePart, status: TrackedSectionStatus, source: str | None,
             before: int) -> TrackedSectionChange:
    return TrackedSectionChange(loc[0], loc[1], status, source, part.line, before, len(part.facts))


def _sections(files: Mapping[str, str | None]) -> dict[Loc, OutlinePart]:
    found: dict[Loc, OutlinePart] = {}
    for path in sorted(files):
        text = files[path]
        if text is None:
            continue
        seen: Counter[str] = Counter()
        for part in outline(text):
            seen[part.heading] += 1
            found[(path, part.heading, seen[part.heading])] = part
    return found


def _where(sections: Mapping[Loc, OutlinePart]) -> dict[str, Counter[Loc]]:
    """fact key -> how many times each section holds it."""
    where: dict[str, Counter[Loc]] = {}
    for loc, part in sections.items():
        for fact in part.facts:
            where.setdefault(fact.key, Counter())[loc] += 1
    return where


def _shared(was: OutlinePart, now: OutlinePart) -> bool:
    """Whether two sections hold mostly the same facts (a heading renamed over them)."""
    if not was.facts or not now.facts:
        return False
    old, new = Counter(fact.key for fact in was.facts), Counter(fact.key for fact in now.facts)
    common = sum((old & new).values())
    return common >= RENAME_SHARE * max(sum(old.values()), sum(new.values()))


def _surplus(facts: Iterable[Fact], other: Iterable[Fact]) -> list[Fact]:
    """The facts of `facts` that `other` does not hold (as many times)."""
    left = Counter(fact.key for fact in other)
    found = []
    for fact in facts:
        if left[fact.key] > 0:
            left[fact.key] -= 1
        else:
            found.append(fact)
    return found


def _fact_changes(loc: Loc, was: tuple[Fact, ...], now: tuple[Fact, ...], old_where: Mapping[str, Counter[Loc]],
                  new_where: Mapping[str, Counter[Loc]], after: Mapping[Loc, OutlinePart]) -> list[FactChange]:
    file, heading = loc[0], loc[1]
    removed, added = _surplus(was, now), _surplus(now, was)
    changes: list[FactChange] = []
    rewrites = _rewrites(removed, added)
    paired = {id(new) for new in rewrites.values()}
    for fact in removed:
        new = rewrites.get(id(fact))
        if new is not None:
            changes.append(FactChange(file, heading, "rewritten", new.text, fact.text, None, new.line))
            continue
        target = _grew(fact.key, loc, new_where, old_where)
        if target is not None:
            line = next((there.line for there in after[target].facts if there.key == fact.key), after[target].line)
            changes.append(FactChange(target[0], target[1], "moved", fact.text, None, place(file, heading), line))
        else:
            changes.append(FactChange(file, heading, "removed", fact.text, None, None, fact.line))
    for fact in added:
        if id(fact) in paired or _grew(fact.key, loc, old_where, new_where) is not None:
            continue  # a rewrite, or the far end of a move (reported where it left)
        changes.append(FactChange(file, heading, "added", fact.text, None, None, fact.line))
    return changes


def _grew(key: str, home: Loc, grown: Mapping[str, Counter[Loc]], shrunk: Mapping[str, Counter[Loc]]) -> Loc | None:
    """Another section that holds `key` more times in `grown` than in `shrunk` (where a moved fact went)."""
    for loc, count in sorted(grown.get(key, Counter()).items()):
        if loc != home and count > shrunk.get(key, Counter())[loc]:
            return loc
    return None


def _rewrites(removed: list[Fact], added: list[Fact]) -> dict[int, Fact]:
    """id(removed fact) -> the added fact that is its new version: the most alike, at least REWRITE_RATIO."""
    if not removed or not added or len(removed) * len(added) > MAX_PAIRS:
        return {}
    scored = []
    for old in removed:
        matcher = SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(old.key)  # the side SequenceMatcher prepares once
        for new in added:
            matcher.set_seq1(new.key)
            if matcher.real_quick_ratio() >= REWRITE_RATIO and matcher.quick_ratio() >= REWRITE_RATIO:
                ratio = matcher.ratio()
                if ratio >= REWRITE_RATIO:
                    scored.append((-ratio, old.line, new.line, old, new))
    taken: set[int] = set()
    found: dict[int, Fact] = {}
    for _, _, _, old, new in sorted(scored, key=lambda item: item[:3]):
        if id(old) in found or id(new) in taken:
            continue
        found[id(old)] = new
        taken.add(id(new))
    return found
