"""What the checks see: one comparison's base and new side, as text (docs/design.md 5).

The checks are pure functions of a Snapshot; `apm_git.operations.gather` builds one from
git (a commit, the index, or the work tree) and flush builds one from its scope.
"""
from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from apm_git.model import names
from apm_git.model.config import Config
from apm_git.model.dated import JOURNAL_NAME
from apm_git.model.entries import EntryIndex, entry_lines, summarize
from apm_git.model.pathglob import glob_match
from apm_git.model.records import RecordFile, parse
from apm_git.model.slotted import Slotted
from apm_git.model.vocabulary import CheckId
from apm_git.printable import one_line

CATEGORY = "category"
EXPERIENCE = "experience"
JOURNAL = "journal"
ARCHIVE = "archive"
INDEX = "index"
GROUP_INDEX = "group-index"
MAIN_INDEX = "main-index"
STATE = "state"
RECORD_KINDS = frozenset({CATEGORY, EXPERIENCE, JOURNAL, ARCHIVE})


# NamedTuples and a plain class, not dataclasses: a dataclass costs about a millisecond to create, `import
# dataclasses` several more, and the pre-commit hook imports these modules on every commit (apm_git.model.slotted).
class Finding(NamedTuple):
    path: str  # repo-relative
    line: int
    hook: CheckId
    message: str

    def __str__(self) -> str:
        """One line, whatever the file's name or the message hold (apm_git/printable.py)."""
        return f"{one_line(self.path)}:{self.line}: {self.hook}: {one_line(self.message)}"


class SnapshotChange(NamedTuple):
    status: str  # "A" added, "M" modified, "D" deleted; a rename is a deletion and an addition
    path: str  # repo-relative


def file_kind(rel: str, config: Config) -> str | None:
    """What a file under the memory dir is, by its memory-relative path."""
    if rel == names.INDEX:
        return INDEX
    if rel in config.routing.values():
        return CATEGORY
    if JOURNAL_NAME.fullmatch(rel.removeprefix(f"{names.ARCHIVED_JOURNALS}/")):  # live and archived journals
        return JOURNAL
    if rel.startswith(f"{names.ARCHIVE}/") and rel.endswith(".md"):
        return ARCHIVE
    if glob_match(f"{names.GROUPS}/*/{names.EXPERIENCE}", rel):
        return EXPERIENCE
    if glob_match(f"{names.GROUPS}/*.md", rel):
        return GROUP_INDEX
    if rel == names.MAIN_INDEX:
        return MAIN_INDEX
    if rel in names.STATE_FILES:
        return STATE
    return None


class Snapshot(Slotted):
    """What the checks compare: the config, the changed paths, and the text of both sides."""

    __slots__ = ("_parsed", "base", "base_name", "base_oversized", "base_summaries", "blobs", "changes", "config",
                 "entries", "files", "forgotten", "new", "oversized", "targets", "unreadable")

    def __init__(
        self,
        config: Config,
        changes: list[SnapshotChange],
        base: dict[str, str],  # base text of the changed paths that need it (append-only files, cache misses)
        new: dict[str, str],  # new-side text of each changed path and each target
        targets: list[str],  # the files the per-file checks look at
        files: frozenset[str],  # every memory file on the new side
        entries: EntryIndex,  # every entry id on the new side
        *,
        unreadable: dict[str, tuple[int, str]] | None = None,  # path -> (line, why)
        base_name: str = "HEAD",
        base_summaries: dict[str, str] | None = None,  # path -> entry summary at the base
        oversized: dict[str, int] | None = None,  # path -> size: too large to read (new side)
        base_oversized: set[str] | None = None,  # paths too large to read at the base
        forgotten: frozenset[str] = frozenset(),  # ids an `Apm-Forget` trailer deleted between the two sides
        blobs: dict[str, str] | None = None,  # path -> blob id of each new-side file whose text that blob is
    ) -> None:
        self.config = config
        self.changes = changes
        self.base = base
        self.new = new
        self.targets = targets
        self.files = files
        self.entries = entries
        self.unreadable = {} if unreadable is None else unreadable
        self.base_name = base_name
        self.base_summaries = {} if base_summaries is None else base_summaries
        self.oversized = {} if oversized is None else oversized
        self.base_oversized = set() if base_oversized is None else base_oversized
        self.forgotten = forgotten
        self.blobs = {} if blobs is None else blobs
        self._parsed: dict[tuple[str, str], RecordFile] = {}

    def rel(self, path: str) -> str | None:
        """The memory-relative form of a repo-relative path, or None outside the memory dir."""
        return names.memory_rel(self.config.memory_dir, path)

    def kind(self, path: str) -> str | None:
        rel = self.rel(path)
        return None if rel is None else file_kind(rel, self.config)

    def parsed(self, path: str) -> RecordFile:
        """The new side of `path`, parsed once however many checks read it."""
        return self._parse("new", path, self.new)

    def parsed_base(self, path: str) -> RecordFile:
        """The base side of `path`, parsed once."""
        return self._parse("base", path, self.base)

    def at_base(self, path: str) -> bool:
        """Whether a changed path existed at the base (it was modified or deleted, not added)."""
        return any(change.path == path and change.status != "A" for change in self.changes)

    def base_entries(self, path: str) -> dict[str, int]:
        """Entry id -> line of each entry of `path` at the base: from the entry cache, else parsed."""
        found: dict[str, int] = {}
        if path in self.base_summaries:
            for line, entry in entry_lines(self.base_summaries[path]):
                found.setdefault(entry, line)
            return found
        for record in self.parsed_base(path).records:
            if record.date and record.title:
                found.setdefault(record.id, record.line_no)
        return found

    def leave_out(self, paths: Collection[str]) -> None:
        """Treat `paths` as unchanged: the snapshot of a commit that leaves them out."""
        gone = set(paths)
        self.changes = [change for change in self.changes if change.path not in gone]
        self.targets = [path for path in self.targets if path not in gone]
        self.files = frozenset({path for path in self.files if path not in gone} | {p for p in gone if p in self.base})
        for path in gone:
            self._parsed.pop(("new", path), None)
            self.entries.summaries.pop(path, None)
            if path in self.base:
                self.new[path] = self.base[path]
                self.entries.summaries[path] = summarize(self.parsed(path))
            else:
                self.new.pop(path, None)

    def set_new(self, path: str, text: str) -> None:
        """The new side of `path` became `text` (flush rewrote it): a changed file, checked as a target."""
        self.new[path] = text
        self._parsed.pop(("new", path), None)
        self.files = self.files | {path}
        if path not in self.targets:
            self.targets.append(path)
        if all(change.path != path for change in self.changes):
            self.changes.append(SnapshotChange("M", path))

    def commit_as(self, path: str, text: str) -> None:
        """The new side of a changed `path` becomes `text` (what flush commits for it instead of the work tree's)."""
        self.new[path] = text
        self._parsed.pop(("new", path), None)
        self.entries.summaries[path] = summarize(self.parsed(path))
        self.files = self.files | {path}
        if path not in self.targets:
            self.targets.append(path)
        self.changes = [SnapshotChange("A" if change.status == "A" else "M", path) if change.path == path else change
                        for change in self.changes]

    def _parse(self, side: str, path: str, texts: dict[str, str]) -> RecordFile:
        if (side, path) not in self._parsed:
            self._parsed[side, path] = parse(texts.get(path, ""))
        return self._parsed[side, path]
