"""The memory's history read once, for the charts and for each entry's life, kept by the commit it ends at.

One `git log -p -U0 --first-parent` over the memory dir (git.log_patches) gives each commit's hunks,
with the `## ` heading lines it removed and added and their line numbers.  Following the headings of
each file from commit to commit (where each one stands after the hunks shift it) tells which record
each changed line belongs to, so one pass yields:

- per commit and file: lines added and removed, record headings added and removed (the charts);
- per entry id: the commits that created, changed, moved, archived, promoted or deleted it (the life),
  labelled from the commit's `Apm-*` trailers as `history` labels them, else from what moved where.

Everything is kept in `.git/apm-git/ui-history` (marshal) with the commit it ends at; the next read
takes only the commits since, when that commit is still an ancestor of HEAD (else it reads again).
"""
from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterable, Sequence

from apm_git import git
from apm_git.dreaming.locate import header_id
from apm_git.model import dated, names
from apm_git.model import trailers as trailer_model
from apm_git.store import cache
from apm_git.store.repo import MemoryRepo

CACHE = "ui-history"
VERSION = 1
MARK = b"## "
RECORD = "## ["
Counts = list[int]  # lines added, removed; record headings added, removed
Row = tuple[str, str, str, str, dict[str, Counts]]  # commit, date, subject, trigger, path -> counts
Event = tuple[int, str, str, str]  # row index, what, file, source ("" when it did not change files)
# What a trailer naming the entry first says happened to it (the order of `history`'s BY_TRAILER).
BY_TRAILER = (("Apm-Forget", "forgotten"), ("Apm-Supersede", "superseded"), ("Apm-Archive", "archived"),
              ("Apm-Promote", "promoted"), ("Apm-Move", "merged"), ("Apm-Restore", "restored"),
              ("Apm-Proven", "proven"))


@dataclasses.dataclass
class Timeline:
    head: str
    rows: list[Row]
    heads: dict[str, list[tuple[int, str]]]  # path -> (line, heading) of each `## ` line, as HEAD has it
    entries: dict[str, list[Event]]


def read(repo: MemoryRepo, known: Timeline | None = None) -> Timeline | None:
    """The timeline up to HEAD (None before the first commit), from `known` (one read before, in memory) or the
    cache, and the commits since."""
    head = git.head(repo.root)
    if head is None:
        return None
    if known is not None and known.head == head:
        return known
    path = repo.state_dir / CACHE
    kept = known if known is not None and known.head else _usable(cache.read(path), repo)
    if kept is not None and kept.head == head:
        return kept
    since = kept if kept is not None and git.is_ancestor(repo.root, kept.head, head) else None
    timeline = since or Timeline(head, [], {}, {})
    revision = f"{since.head}..{head}" if since else head
    extend(timeline, git.log_patches(repo.root, revision, [repo.memory_prefix], MARK))
    timeline.head = head
    cache.write(path, {"version": VERSION, "memory_dir": repo.memory_prefix, "head": head, "rows": timeline.rows,
                       "heads": timeline.heads, "entries": timeline.entries})
    return timeline


def _usable(data: object, repo: MemoryRepo) -> Timeline | None:
    if not isinstance(data, dict) or data.get("version") != VERSION or data.get("memory_dir") != repo.memory_prefix:
        return None
    try:
        return Timeline(str(data["head"]), list(data["rows"]), dict(data["heads"]), dict(data["entries"]))
    except (KeyError, TypeError, ValueError):
        return None


def extend(timeline: Timeline, commits: Iterable[tuple[git.Commit, list[git.FilePatch]]]) -> None:
    known: dict[str, str | None] = {}
    for commit, patches in commits:
        index = len(timeline.rows)
        said = trailer_model.parse(commit.message)
        named = _named(said)
        counts: dict[str, Counts] = {}
        gained: dict[str, list[str]] = {}  # id -> files it entered
        lost: dict[str, list[str]] = {}  # id -> files it left
        changed: dict[str, list[str]] = {}
        for patch in patches:
            before = timeline.heads.get(patch.path, [])
            after, touched_old, touched_new = _apply(before, patch.hunks)
            if patch.deleted:
                after = []
            if after:
                timeline.heads[patch.path] = after
            else:
                timeline.heads.pop(patch.path, None)
            counts[patch.path] = [
                sum(hunk.new_count for hunk in patch.hunks), sum(hunk.old_count for hunk in patch.hunks),
                sum(1 for hunk in patch.hunks for _, text in hunk.added if text.startswith(RECORD)),
                sum(1 for hunk in patch.hunks for _, text in hunk.removed if text.startswith(RECORD)),
            ]
            removed = _ids((text for hunk in patch.hunks for _, text in hunk.removed), known)
            added = _ids((text for hunk in patch.hunks for _, text in hunk.added), known)
            for entry in added - removed:
                gained.setdefault(entry, []).append(patch.path)
            for entry in removed - added:
                lost.setdefault(entry, []).append(patch.path)
            # A heading inside a hunk is itself removed or added; the sections a hunk begins in changed.
            for entry in (removed & added) | (_ids(touched_old | touched_new, known) - (removed ^ added)):
                changed.setdefault(entry, []).append(patch.path)
        for entry in gained.keys() | lost.keys() | changed.keys():
            what = _from_trailers(named, entry)
            targets, sources = gained.get(entry, []), lost.get(entry, [])
            if what is None:
                what = ("moved" if sources and targets else "created" if targets else "deleted" if sources
                        else "changed")
            file = (targets or changed.get(entry) or sources)[0]
            source = sources[0] if sources and targets else ""
            timeline.entries.setdefault(entry, []).append((index, what, file, source))
        trigger = dict(said).get("Apm-Trigger", "-")
        timeline.rows.append((commit.sha, commit.date, commit.subject, trigger, counts))


def _ids(headings: Iterable[str], known: dict[str, str | None]) -> set[str]:
    """The entry ids of the record headings among `headings` (`known`: ids by heading, memoized)."""
    found = set()
    for text in headings:
        if text.startswith(RECORD):
            if text not in known:
                known[text] = header_id(text)
            entry = known[text]
            if entry is not None:
                found.add(entry)
    return found


def _apply(heads: list[tuple[int, str]], hunks: Sequence[git.Hunk]) -> tuple[list[tuple[int, str]], set[str], set[str]]:
    """The headings after the hunks, and the headings (old, new) of the sections the hunks begin in: every other
    heading a hunk spans is one of its removed or added lines."""
    lines = [line for line, _ in heads]
    touched_old: set[str] = set()
    for hunk in hunks:  # blank lines between records belong to no record's change
        if hunk.spans[0]:
            touched_old.update(_section(heads, lines, hunk.spans[0]))
    removed = {line for hunk in hunks for line, _ in hunk.removed}
    # A hunk shifts every line after it: after its last old line, or after the line an insertion follows.
    ends = sorted((hunk.old_start + hunk.old_count - 1 if hunk.old_count else hunk.old_start,
                   hunk.new_count - hunk.old_count) for hunk in hunks)
    bounds = [end for end, _ in ends]
    shifts = [0]
    for _, delta in ends:
        shifts.append(shifts[-1] + delta)
    after = [(line + shifts[bisect.bisect_left(bounds, line)], text) for line, text in heads if line not in removed]
    after += [added for hunk in hunks for added in hunk.added]
    after.sort()
    new_lines = [line for line, _ in after]
    touched_new: set[str] = set()
    for hunk in hunks:
        if hunk.spans[2]:
            touched_new.update(_section(after, new_lines, hunk.spans[2]))
    return after, touched_old, touched_new


def _section(heads: Sequence[tuple[int, str]], lines: list[int], line: int) -> list[str]:
    """The heading of the section `line` falls in (a section runs to the next heading); none before the first."""
    at = bisect.bisect_right(lines, line) - 1
    return [heads[at][1]] if at >= 0 else []


def _named(said: Sequence[tuple[str, str]]) -> dict[str, set[str]]:
    """Entry id -> the trailer keys that name it first (a fold's survivor: its `Apm-Move`), once per commit."""
    named: dict[str, set[str]] = {}
    for key, value in said:
        words = value.split()
        if words:
            named.setdefault(words[0], set()).add(key)
        if key == "Apm-Move" and value.endswith(")") and "(merged into " in value:
            named.setdefault(value.rsplit("(merged into ", 1)[1].rstrip(")").strip(), set()).add(key)
    return named


def _from_trailers(named: dict[str, set[str]], entry: str) -> str | None:
    keys = named.get(entry, set())
    return next((what for key, what in BY_TRAILER if key in keys), None)


def stage_of(repo: MemoryRepo, path: str) -> str | None:
    """journals, live or archive: where a file's entries count in the charts (None: not a memory file of entries)."""
    rel = repo.memory_rel(path)
    if rel is None or not rel.endswith(".md") or rel == names.INDEX:
        return None
    if rel.startswith(f"{names.ARCHIVE}/"):
        return "archive"
    return "journals" if "/" not in rel and dated.journal_date(rel) else "live"
