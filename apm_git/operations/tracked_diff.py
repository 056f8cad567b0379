"""`apm-git diff` and `apm-git log` on a tracked folder: the two states read from its history and the folder,
and each removal traced to the snapshot that found it (docs/tracking.md, "What diff names").

Like `git diff`: no revision compares the folder with its newest snapshot, `REV` the folder with REV,
`A..B` two snapshots, `A...B` B with where it branched off A.  A removal (of a fact, or of a section)
is traced to the snapshot between the two states that first lacked it; that snapshot's `Apm-Origin`
says whether a session of the agent was running.  A removal the folder holds and no snapshot has yet
counts as made in the background when no session is running now.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from apm_git import git
from apm_git.errors import UsageError
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.operations import snapshot as snapshots
from apm_git.review.commits import CommitInfo, check_range, read_commits
from apm_git.store import tracked as store
from apm_git.tracking.agents import PROFILES
from apm_git.tracking.facts import FactChange, FolderDiff, TrackedSectionChange, diff_folder
from apm_git.tracking.outline import key_of

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
ZERO = "0" * 40
TRACED = 200  # snapshots read to trace removals to the one that found them; past it, removals are not traced
WORK_TREE = "the folder"


class FileStat(NamedTuple):
    path: str
    old_path: str | None
    status: str  # added, deleted, modified, renamed
    lines_before: int | None
    lines_after: int | None


class TrackedReview(NamedTuple):
    tracked: store.Tracked
    base: str | None
    base_name: str
    new: str | None  # None: the folder as it is
    new_name: str
    snapshots: list[CommitInfo]  # between the two states, newest first
    sections: tuple[TrackedSectionChange, ...]
    facts: tuple[FactChange, ...]
    files: list[FileStat]

    @property
    def background(self) -> list[TrackedSectionChange | FactChange]:
        """The removals and rewrites made while no session of the agent ran."""
        found: list[TrackedSectionChange | FactChange] = [section for section in self.sections if section.background]
        return found + [fact for fact in self.facts if fact.background]


def log(tracked: store.Tracked, revision: str | None, *, max_count: int | None) -> list[CommitInfo]:
    folder = snapshots.open_history(tracked)
    spec = revision or "HEAD"
    check_range(folder, spec)
    return read_commits(folder, [spec], max_count=max_count)


def review(tracked: store.Tracked, revision: str | None) -> TrackedReview:
    folder = snapshots.open_history(tracked)
    memory = list(PROFILES[tracked.agent].memory)
    head = git.head(folder)
    new: str | None
    if revision and ".." in revision:
        first, second = check_range(folder, revision)
        end = _commit(folder, second)
        base: str | None = _commit(folder, first)
        if "..." in revision:
            base = git.merge_base(folder, _commit(folder, first), end)
            if base is None:
                raise UsageError(f"{revision}: the two snapshots have no common ancestor; use A..B")
        names = revision.split("...", 1) if "..." in revision else revision.split("..", 1)
        base_name, new, new_name = names[0] or "HEAD", end, names[1] or "HEAD"
    else:
        if revision:
            check_range(folder, revision)
        base = _commit(folder, revision) if revision else head
        base_name, new, new_name = revision or "HEAD", None, WORK_TREE
    before, after, files = _states(folder, base, new, memory)
    found = diff_folder(before, after)
    tip = new or head
    between = read_commits(folder, [f"{base}..{tip}"]) if base and tip and base != tip else []
    found = _traced(tracked, folder, found, between, memory, pending=new is None)
    return TrackedReview(tracked, base, base_name, new, new_name, between, found.sections, found.facts, files)


def _commit(folder: Path, ref: str) -> str:
    found = git.commit_id(folder, ref)
    if found is None:
        raise UsageError(f"{ref!r} names no snapshot here; `apm-git log` lists them")
    return found


def _states(folder: Path, base: str | None, new: str | None,
            memory: Sequence[str]) -> tuple[dict[str, str | None], dict[str, str | None], list[FileStat]]:
    """The texts of the changed files on each side (path -> text; None: absent or not text), and their line counts."""
    old_tree = base or EMPTY_TREE
    if new is None:
        raw = git.diff_raw(folder, "diff-index", old_tree, pathspecs=memory)
        known = {change.path for change in raw}
        raw += [git.RawChange("A", ZERO, ZERO, path) for path in git.untracked(folder, memory)
                if path not in known and not (folder / path).is_symlink()]
    else:
        raw = git.diff_raw(folder, "diff-tree", "-r", old_tree, new, pathspecs=memory)
    raw = [change for change in raw if not git.is_temporary(change.path)]
    blobs = git.cat_files(folder, sorted({blob for change in raw for blob in (change.old_blob, change.new_blob)
                                          if blob != ZERO}))
    before: dict[str, str | None] = {}
    after: dict[str, str | None] = {}
    files = []
    for change in raw:
        old_path = None if change.status == "A" else (change.old_path or change.path)
        old = _text(blobs.get(change.old_blob)) if old_path else None
        now = None
        if change.status != "D":
            data = blobs.get(change.new_blob) if change.new_blob != ZERO else snapshots.read_file(folder / change.path)
            now = _text(data)
        if change.status == "M" and old == now and old is not None:
            continue  # only the stat data of a file of the folder changed
        if old_path:
            before[old_path] = old
        if change.status != "D":
            after[change.path] = now
        status = {"A": "added", "D": "deleted", "R": "renamed"}.get(change.status, "modified")
        files.append(FileStat(change.path, old_path if old_path != change.path else None, status,
                              _lines(old), _lines(now)))
    return before, after, files


def _text(data: bytes | None) -> str | None:
    if data is None or len(data) > MAX_FILE_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _lines(text: str | None) -> int | None:
    if text is None:
        return None
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def _traced(tracked: store.Tracked, folder: Path, found: FolderDiff, between: list[CommitInfo],
            memory: Sequence[str], *, pending: bool) -> FolderDiff:
    """Each removal, rewrite and move of `found` with the snapshot that first lacked it (newest wins when it
    left twice), and whether that snapshot found it made while no session ran."""
    leaving = [change for change in found.facts if change.status != "added"]
    gone = [change for change in found.sections if change.status in ("removed", "renamed", "moved")]
    if not leaving and not gone:
        return found
    facts_at: dict[tuple[str, str], CommitInfo] = {}
    sections_at: dict[tuple[str, str], CommitInfo] = {}
    for commit in reversed(between[:TRACED]):  # oldest first: a later removal of the same text wins
        if not commit.parents:
            continue
        before, after, _ = _states(folder, commit.parents[0], commit.sha, memory)
        step = diff_folder(before, after)
        for fact in step.facts:
            if fact.status != "added":
                facts_at[(_left_from(fact), key_of(fact.before or fact.text))] = commit
        for section in step.sections:
            if section.status in ("removed", "renamed", "moved"):
                sections_at[_section_key(section)] = commit
    now_background = pending and snapshots.between_sessions_now(tracked)

    def mark(table: Mapping[tuple[str, str], CommitInfo], key: tuple[str, str]) -> tuple[str | None, bool]:
        commit = table.get(key)
        if commit is None:
            return None, now_background
        return commit.sha, commit.trailer("Apm-Origin") == snapshots.BACKGROUND

    facts = []
    for fact in found.facts:
        if fact.status != "added":
            sha, background = mark(facts_at, (_left_from(fact), key_of(fact.before or fact.text)))
            fact = fact._replace(commit=sha, background=background)
        facts.append(fact)
    sections = []
    for section in found.sections:
        if section.status in ("removed", "renamed", "moved"):
            sha, background = mark(sections_at, _section_key(section))
            section = section._replace(commit=sha, background=background)
        sections.append(section)
    return FolderDiff(tuple(sections), tuple(facts))


def _section_key(section: TrackedSectionChange) -> tuple[str, str]:
    """The file and heading a removed, renamed or moved section left."""
    if section.status == "moved" and section.source:
        return section.source, section.heading
    if section.status == "renamed" and section.source:
        return section.file, section.source
    return section.file, section.heading


def _left_from(fact: FactChange) -> str:
    """The file a removed, rewritten or moved fact left."""
    return (fact.source or "").split(" › ", 1)[0] if fact.status == "moved" else fact.file
