"""`INDEX.md` built from the memory files and written when it changes (flush, consolidation, `index`, init)."""
from __future__ import annotations

import datetime as dt
import os
import re
import time
from collections.abc import Collection, Mapping, MutableMapping
from pathlib import Path

from apm_git.errors import TooLarge, UnreadableFile
from apm_git.model import dated, index_md, names
from apm_git.model import text_sections as sections
from apm_git.model.limits import megabytes
from apm_git.model.records import parse
from apm_git.store import cache, layout
from apm_git.store.odd_names import skipped
from apm_git.store.repo import MemoryRepo

OTHERS_CACHE = "index-files.cache"  # per file: size, mtime, lines, last date, hint, entries in conflict, blob
# A cache row: size, mtime (-1: racy, read again), lines, last date, hint, (entry id, Conflicts value) of each
# entry in conflict, and the blob id git holds for that text ("": not known).  A row of another length (an
# older apm-git's) is read again.
Row = tuple[int, int, int, str, str, tuple[tuple[str, str], ...], str]
ROW = 7
SUMMARIES_CACHE = "index-summaries.cache"  # per category file, journal or kept file: its summary and conflicts
RACY_NS = 2_000_000_000  # a file changed this recently may change again within the same mtime
Memo = MutableMapping[Path, object]  # cache file -> its rows, held back from the disk (a flush's plan)


def build_index(
    repo: MemoryRepo, today: dt.date, exclude: Collection[str] = (), instead: Mapping[str, str | None] = {},
    blobs: Mapping[str, str] = {}, memo: Memo | None = None,
) -> str:
    """INDEX.md for the files that exist.

    Memory-relative names in `exclude` count as absent, and those in `instead` are read as
    the text given there (None: absent).  Flush builds the index of what it commits, so a file
    it withholds counts as its committed version (or as absent when it has none), and nothing of
    its new text (a journal title holding a token) reaches the committed index; a consolidation
    builds the index of its result before writing any of it (its planned texts, moved files None).
    `blobs`: memory-relative name -> the blob id git finds the work tree's file to hold (a flush's scan
    knows them), so a file whose cached row names that blob is not even stat'ed.  `memo`: the caches are
    read from it first and their new rows go into it instead of to disk (a flush's plan writes nothing;
    its execution writes them).
    """

    summaries = _Summaries(repo, exclude, instead, memo)
    categories: list[tuple[str, str, index_md.FileSummary]] = []
    conflicts: list[index_md.Conflict] = []
    budget = 0
    for kind, name in repo.config.routing.items():
        if any(name == seen for _, seen, _ in categories):
            continue
        found = summaries.of(name)
        if found is None:
            continue
        categories.append((kind, name, found[0]))
        conflicts += found[1]
        budget += repo.config.budget_for(name) or 0
    for name in repo.markdown_files(names.KEPT):  # a person's own index (or other file) that apm-git moved aside
        found = summaries.of(name)
        if found is not None:
            categories.append(("kept", name, found[0]))
    live = set(layout.journals(repo)) | {name for name in instead if dated.journal_date(name)}
    journals = []
    for name in sorted(live, reverse=True):
        found = summaries.of(name, headings=True)
        if found is not None:
            journals.append(found[0])
            conflicts += found[1]
    summaries.save()
    listed = {names.INDEX, *live, *repo.config.routing.values()}
    others, elsewhere = _others(repo, listed, exclude, instead, blobs, memo)
    return index_md.render(today, categories, journals, conflicts + elsewhere, budget, others,
                           repo.config.budget_for(names.INDEX))


Summary = tuple[index_md.FileSummary, list[index_md.Conflict]]


class _Summaries:
    """The summary and conflicts of each category file, journal and kept file, cached by size and mtime.

    A flush changes one or two files; reading and parsing every category file and journal again
    made its cost grow with the memory.  A file whose size and mtime are as last time is not read;
    one changed within the last two seconds is not cached (its mtime may not move on the next write).
    Files the caller gives as text (`instead`) or counts as absent (`exclude`) never touch the cache.
    """

    def __init__(
        self, repo: MemoryRepo, exclude: Collection[str], instead: Mapping[str, str | None], memo: Memo | None,
    ) -> None:
        self.repo, self.exclude, self.instead, self.memo = repo, exclude, instead, memo
        self.path = repo.state_dir / SUMMARIES_CACHE
        stored = _read_cache(self.path, memo)
        self.known: dict[tuple[str, bool], tuple[object, ...]] = stored if isinstance(stored, dict) else {}
        self.fresh: dict[tuple[str, bool], tuple[object, ...]] = {}
        self.racy = time.time_ns() - RACY_NS

    def of(self, name: str, headings: bool = False) -> Summary | None:
        """The file's summary and conflicts, or None when it is absent."""
        if name in self.exclude:
            return None
        if name in self.instead:
            text = self.instead[name]
            return None if text is None else _summarize(name, text, headings)
        try:
            st = self.repo.path(name).stat()
        except FileNotFoundError:
            return None
        except OSError:
            st = None
        row = self.known.get((name, headings))
        if st is not None and row is not None and row[:2] == (st.st_size, st.st_mtime_ns):
            summary = _from_row(name, row)
            if summary is not None:
                self.fresh[(name, headings)] = row
                return summary
        try:
            text = self.repo.read(name)
        except TooLarge as error:
            return _unread(self.repo, name, error), []
        if text is None:
            return None
        summary = _summarize(name, text, headings)
        if st is not None and st.st_mtime_ns < self.racy:
            self.fresh[(name, headings)] = _to_row(st.st_size, st.st_mtime_ns, summary)
        return summary

    def save(self) -> None:
        if self.fresh != self.known:
            _write_cache(self.path, self.fresh, self.memo)


def _read_cache(path: Path, memo: Memo | None) -> object:
    return memo[path] if memo is not None and path in memo else cache.read(path)


def _write_cache(path: Path, value: object, memo: Memo | None) -> None:
    if memo is None:
        cache.write(path, value)
    else:
        memo[path] = value


def _summarize(name: str, text: str, headings: bool) -> Summary:
    parsed = parse(text)
    found = (index_md.summarize(name, parsed, headings=tuple(_headings(name, text))) if headings
             else index_md.summarize(name, parsed))
    return found, index_md.conflicts_of(name, parsed.entries)


def _to_row(size: int, mtime: int, summary: Summary) -> tuple[object, ...]:
    found, conflicts = summary
    return (size, mtime, found.lines, found.last_updated, found.recent,
            tuple((conflict.entry, conflict.what) for conflict in conflicts))


def _from_row(name: str, row: tuple[object, ...]) -> Summary | None:
    """A cached row back as a summary, or None when it is not in the shape this version writes."""
    try:
        _, _, lines, last, recent, pairs = row
        if not (isinstance(lines, int) and isinstance(last, str) and isinstance(recent, tuple)
                and isinstance(pairs, tuple)):
            return None
        conflicts = [index_md.Conflict(str(entry), name, str(what)) for entry, what in pairs]
        return index_md.FileSummary(name, lines, last, tuple(str(title) for title in recent)), conflicts
    except (TypeError, ValueError):
        return None


def _others(
    repo: MemoryRepo, listed: Collection[str], exclude: Collection[str], instead: Mapping[str, str | None],
    blobs: Mapping[str, str], memo: Memo | None,
) -> tuple[list[index_md.OtherFile], list[index_md.Conflict]]:
    """Every other Markdown file of the memory dir (not groups/ or main/, which have their own indexes;
    not hidden folders), summarized; and the entries in conflict (a `Conflicts:` field) of every file
    that is neither listed nor archived, groups/ and main/ included.  A file whose size and mtime are
    as last time is not read again; one git finds unchanged as the blob its row names (`blobs`) is not
    stat'ed either, so a flush costs the files that changed, not a system call per file."""
    path = repo.state_dir / OTHERS_CACHE
    stored = _read_cache(path, memo)
    known: dict[str, Row] = stored if isinstance(stored, dict) else {}
    fresh: dict[str, Row] = {}
    racy = time.time_ns() - RACY_NS
    found = []
    conflicts: list[index_md.Conflict] = []
    on_disk = list(repo.markdown_files())
    memory = str(repo.memory)
    for rel in sorted({*on_disk, *(name for name in instead if name.endswith(".md"))}):
        top = rel.split("/", 1)[0]
        if rel in listed or rel in exclude or top.startswith(".") or skipped(repo.repo_path(rel)):
            continue
        indexed = top not in (names.GROUPS, names.MAIN)  # those two have indexes of their own
        if rel in instead:  # a withheld file (its committed text) or what a consolidation writes: never cached
            given = instead[rel]
            if given is not None:  # None: a consolidation moves it away
                if indexed:
                    found.append(_summary(rel, given))
                conflicts += _conflicts(rel, given)
            continue
        blob = blobs.get(rel, "")
        row = known.get(rel)
        try:
            if row is None or len(row) != ROW or not blob or row[6] != blob:
                row = _row(repo, rel, row, blob, os.stat(os.path.join(memory, rel)), racy)  # noqa: PTH116, PTH118
        except TooLarge as error:
            if indexed:
                found.append(index_md.OtherFile(rel, repo.count_lines(rel), "—",
                                                f"not indexed: {megabytes(error.size)}"))
            continue
        except UnreadableFile:
            if indexed:
                found.append(index_md.OtherFile(rel, 0, "—", "not valid UTF-8"))
            continue
        except OSError:
            continue
        fresh[rel] = row
        if indexed:
            found.append(index_md.OtherFile(rel, row[2], row[3], row[4]))
        conflicts += [index_md.Conflict(entry, rel, what) for entry, what in row[5]]
    if fresh != known:
        _write_cache(path, fresh, memo)
    archived = [other for other in found if other.name.startswith(f"{names.ARCHIVE}/")]
    rest = [other for other in found if not other.name.startswith(f"{names.ARCHIVE}/")]
    return rest + ([index_md.archive_row(f"{names.ARCHIVE}/", archived)] if archived else []), conflicts


def _row(repo: MemoryRepo, rel: str, row: Row | None, blob: str, st: os.stat_result, racy: int) -> Row:
    """The cache row of a file: the one known when its size and mtime are as then (now naming `blob`),
    else from its text, read again.  A file changed within RACY_NS keeps no mtime and names no blob: it
    may have changed since git looked."""
    if row is not None and len(row) == ROW and row[:2] == (st.st_size, st.st_mtime_ns):
        return (*row[:6], blob or row[6])
    text = repo.read(rel) or ""
    summary = _summary(rel, text)
    settled = st.st_mtime_ns < racy
    return (st.st_size, st.st_mtime_ns if settled else -1, summary.lines, summary.last_updated, summary.hint,
            tuple((conflict.entry, conflict.what) for conflict in _conflicts(rel, text)), blob if settled else "")


def _conflicts(rel: str, text: str) -> list[index_md.Conflict]:
    """The entries of a file with a `Conflicts:` field; none in the archive (REM never archives one, and
    an archived journal is history, as `apm-git status` counts it)."""
    if "- Conflicts:" not in text or rel.startswith(f"{names.ARCHIVE}/"):
        return []
    return index_md.conflicts_of(rel, parse(text).entries)



def _summary(rel: str, text: str) -> index_md.OtherFile:
    return index_md.summarize_other(rel, text, _headings(rel, text))


def _headings(rel: str, text: str) -> list[str]:
    """The headings of a file's sections (a front matter's name counts; the file's own name does not)."""
    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    return [section.heading for section in sections.split(text, rel)
            if section.heading != stem or section.text.lstrip().startswith("#")]


def own_index(repo: MemoryRepo) -> str | None:
    """Where an INDEX.md that apm-git did not write goes (under kept/), or None when there is none."""
    path = repo.path(names.INDEX)
    if not path.is_file():
        return None
    try:
        if index_md.generated(path.read_bytes().decode("utf-8")):
            return None
    except UnicodeDecodeError:
        pass
    return free_name(repo, f"{names.KEPT}/{names.INDEX}")


def free_name(repo: MemoryRepo, rel: str) -> str:
    """`rel`, or `rel` with -2, -3, … before its suffix: the first that does not exist."""
    stem, dot, suffix = rel.rpartition(".")
    candidate, number = rel, 1
    while repo.path(candidate).exists() or repo.path(candidate).is_symlink():
        number += 1
        candidate = f"{stem}-{number}{dot}{suffix}" if dot else f"{rel}-{number}"
    return candidate


def keep_own_index(repo: MemoryRepo) -> str | None:
    """Move a person's own INDEX.md to kept/ before apm-git writes its own; the new name, or None."""
    target = own_index(repo)
    if target is not None:
        repo.path(target).parent.mkdir(parents=True, exist_ok=True)
        repo.path(names.INDEX).replace(repo.path(target))
    return target


def _unread(repo: MemoryRepo, name: str, error: TooLarge) -> index_md.FileSummary:
    """The index row of a file too large to read: its line count, and why there is no more."""
    return index_md.FileSummary(name, repo.count_lines(name), "—", (f"not indexed: {megabytes(error.size)}",))


def refresh_index(
    repo: MemoryRepo, today: dt.date, exclude: Collection[str] = (), instead: Mapping[str, str] = {},
    blobs: Mapping[str, str] = {},
) -> bool:
    """Rewrite INDEX.md when its text would change beyond the "Last rebuilt" date; True when it did.

    A rebuild that would only move the date is no change: `apm-git index` and a flush with nothing
    else to say leave the file, and so the history, alone (docs/commits.md, "Quiet commits").
    An INDEX.md that apm-git did not write is never overwritten: it is moved to kept/ first.
    """
    keep_own_index(repo)
    text = index_change(repo, today, exclude, instead, blobs)
    if text is None:
        return False
    repo.write(names.INDEX, text)
    return True


def index_change(
    repo: MemoryRepo, today: dt.date, exclude: Collection[str] = (), instead: Mapping[str, str] = {},
    blobs: Mapping[str, str] = {}, memo: Memo | None = None,
) -> str | None:
    """INDEX.md's new text when it would change beyond the "Last rebuilt" date, else None; writes nothing
    but the caches (and those into `memo` when given)."""
    text = build_index(repo, today, exclude, instead, blobs, memo)
    old = repo.read(names.INDEX)
    return None if old is not None and _undated(old) == _undated(text) else text


_REBUILT = re.compile(r"^(> Last rebuilt: )\d{4}-\d{2}-\d{2}", re.MULTILINE)


def _undated(text: str) -> str:
    return _REBUILT.sub(r"\1", text, count=1)
