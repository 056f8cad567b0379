"""The full-text index: a SQLite FTS5 cache of every section of a scope's memory files.

One database per scope under `.git/apm-git/search/` (never in the work tree, never
committed): `memory.sqlite3` for the memory dir without `groups/` (live memory, `main/` and
the archive), `group-NAME.sqlite3` for one group's index and folder.  A group's database is
built from that group's files alone, so a group search cannot return anything else (APM
rule 1), and building it opens nothing outside the group.

Files are keyed by their git blob id: a search stats the scope's files, reads again only
those whose size or mtime moved, and re-indexes only those whose blob id changed.  Damage of
any kind is healed on the spot, silently, and concurrent searches build the index once
(apm_git/search/cache.py); where the folder cannot be written, the search builds its index in
memory and says so.

Ranking: BM25 within live memory, then within the archive (`archive=None`), unless the caller
asks for the archive alike (`alike`): one BM25 ranking, a live section first on an equal score.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from apm_git.errors import ApmGitError, LockTimeout, NoFts5, TooLarge, UnreadableFile, describe_os_error
from apm_git.model import names
from apm_git.model import text_sections as sections
from apm_git.model.groups import check_group_name
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.search import boiler, passages, terms
from apm_git.search.cache import ARCHIVE_IDS, Identity, IndexPlace, in_memory
from apm_git.store.odd_names import skipped
from apm_git.store.repo import MemoryRepo, decode

ENV_FTS5 = "APM_GIT_FTS5"  # "off": behave as on a platform whose SQLite lacks FTS5
_T = TypeVar("_T")
RACY_NS = 2_000_000_000  # a file changed this recently may change again within the same mtime


NO_FTS5 = ("this Python's SQLite has no FTS5, which the search index needs; `apm-git search --scan QUERY` "
           "finds the same sections by a plain scan of the files (slower)")


def fts5_available() -> bool:
    if os.environ.get(ENV_FTS5) == "off":
        return False
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
    except sqlite3.Error:
        return False
    return True


@dataclasses.dataclass(frozen=True)
class SearchScope:
    """The memory dir without groups/ (group None), or one group's index and folder."""

    group: str | None = None

    @property
    def name(self) -> str:
        return "memory" if self.group is None else f"group-{check_group_name(self.group)}"

    def files(self, repo: MemoryRepo) -> Iterator[tuple[str, os.stat_result]]:
        """(memory-relative path, stat) of every Markdown file in the scope, sorted; not those whose names
        are not UTF-8 (store/odd_names.py)."""
        return ((rel, st) for rel, st in self._files(repo) if not skipped(repo.repo_path(rel)))

    def _files(self, repo: MemoryRepo) -> Iterator[tuple[str, os.stat_result]]:
        if self.group is None:
            yield from _walk(repo.memory, "", skip_top={names.GROUPS, names.INDEX})
            return
        index = f"{names.GROUPS}/{self.group}.md"
        path = repo.memory / index
        if path.is_file() and not path.is_symlink():
            yield index, path.stat()
        folder = repo.memory / names.GROUPS / self.group
        if not folder.is_symlink():  # a group folder that is a link may lead into another group
            yield from _walk(folder, f"{names.GROUPS}/{self.group}/", skip_top=set())


def _walk(base: Path, prefix: str, skip_top: set[str]) -> Iterator[tuple[str, os.stat_result]]:
    """Markdown files under `base`, not following links (a link may lead out of the memory dir),
    skipping hidden folders (`.dreams/`)."""
    try:
        entries = sorted(os.scandir(base), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if (not prefix and entry.name in skip_top) or entry.is_symlink():
            continue
        if entry.is_dir():
            if not entry.name.startswith("."):
                yield from _walk(Path(entry.path), f"{prefix}{entry.name}/", set())
        elif entry.name.endswith(".md") and entry.is_file():
            yield prefix + entry.name, entry.stat()


@dataclasses.dataclass(frozen=True)
class Hit:
    """A section and the passage of it that matched best (or, from `Index.passages`, one of its passages)."""

    id: int  # the section's
    path: str  # memory-relative
    line: int  # the section's first line
    last: int  # the section's last line
    heading: str
    trail: str  # the headings above it, outermost first, joined by " › "
    entry_id: str | None
    text: str  # the section's text
    score: float  # higher is better
    date: str | None = None  # the nearest date above the section (YYYY-MM-DD)
    passage: tuple[int, int] | None = None  # the passage's first and last line; None: the whole section

    @property
    def lines(self) -> tuple[int, int]:
        return self.passage or (self.line, self.last)

    @property
    def passage_text(self) -> str:
        if self.passage is None:
            return self.text
        lines = self.text.split("\n")
        return "\n".join(lines[self.passage[0] - self.line:self.passage[1] - self.line + 1])


@dataclasses.dataclass
class Refresh:
    files: int = 0
    indexed: int = 0  # files read and indexed again
    removed: int = 0
    rebuilt: str | None = None  # why the whole index was rebuilt
    skipped: list[str] = dataclasses.field(default_factory=list)
    note: str | None = None  # why this search built its index in memory (the one on disk could not be written)


class Index:
    """One scope's index, brought up to date with the files when opened: rebuilt when the one on disk is
    damaged, built in memory when it cannot be written."""

    def __init__(self, repo: MemoryRepo, scope: SearchScope) -> None:
        if not fts5_available():
            raise NoFts5(NO_FTS5)
        self.repo = repo
        self.scope = scope
        self.refresh = Refresh()
        self.place: IndexPlace | None = None
        self.opened: Identity | None = None  # the file on disk this connection reads
        self.db = self._connect()

    def close(self) -> None:
        self.db.close()

    def _connect(self, damaged: str | None = None) -> sqlite3.Connection:
        """A connection to an index that holds the scope's files as they are; `damaged`: why the one
        opened before cannot be used."""
        try:
            self.place = self.place or IndexPlace.of(self.repo, self.scope.name)
        except OSError as error:
            return self._in_memory(describe_os_error(error, error.filename))
        if damaged is None:
            db = self._read(self.place)
            if db is not None:
                return db
        try:
            with self.place.writing():
                return self._write(self.place, damaged)
        except LockTimeout:
            return self._in_memory(f"another process held {self.place.lock} for {self.place.wait():g}s")
        except ApmGitError as error:
            return self._in_memory(str(error))
        except OSError as error:
            return self._in_memory(describe_os_error(error, error.filename))
        except sqlite3.DatabaseError as error:
            return self._in_memory(f"{error}, in {self.place.path}")

    def _read(self, place: IndexPlace) -> sqlite3.Connection | None:
        """The warm path, without the lock: the index on disk when it is sound and holds the files as they are."""
        identity = place.identity()
        db, _ = place.open()
        if db is None:
            return None
        try:
            if self._fresh(db, dict(self.scope.files(self.repo))):
                self.opened = identity
                return db
        except sqlite3.DatabaseError:
            pass  # the writer looks again, under the lock
        db.close()
        return None

    def _write(self, place: IndexPlace, damaged: str | None) -> sqlite3.Connection:
        """Under the lock: bring the index on disk up to date, or build it anew and put it in place."""
        identity = place.identity()
        db, why = place.open()
        if db is not None and damaged is not None and identity == self.opened:
            db.close()  # still the file this process found damaged: nobody rebuilt it meanwhile
            db, why = None, damaged
        if db is not None:
            try:
                self._update(db)
                self.opened = identity
                return db
            except sqlite3.DatabaseError as error:
                db.close()
                why = f"the index could not be updated ({error})"
        self.refresh = Refresh(rebuilt=why)
        built = place.build_aside()
        try:
            self._update(built)
            built.close()
            place.swap_in()
        except BaseException:
            built.close()
            place.discard()
            raise
        db, why = place.open()
        if db is None:
            raise sqlite3.DatabaseError(why)
        self.opened = place.identity()
        return db

    def _in_memory(self, why: str) -> sqlite3.Connection:
        self.refresh = Refresh(rebuilt=why, note=f"the search index could not be written ({why}); this search "
                                                 "built one in memory (slower, the same answer)")
        db = in_memory()
        self._update(db)
        return db

    def _fresh(self, db: sqlite3.Connection, current: dict[str, os.stat_result]) -> bool:
        """Whether the index holds every file as `current` has it (same size and mtime), and no other."""
        self.refresh.files = len(current)
        known = {row[0]: row[1:] for row in db.execute("SELECT path, size, mtime FROM files")}
        return known.keys() == current.keys() and all(
            known[path] == (st.st_size, st.st_mtime_ns) for path, st in current.items())

    def _update(self, db: sqlite3.Connection) -> None:
        """Make the index hold the scope's files as they are now (the lock's holder, or a private index).
        The transaction begins at the first change, so an index with nothing to change is never written
        (a read-only one stays usable)."""
        current = dict(self.scope.files(self.repo))
        self.refresh.files = len(current)
        known = {row[0]: row[1:] for row in db.execute("SELECT path, blob, size, mtime FROM files")}
        restat: list[tuple[int, int, str]] = []
        try:
            self._apply(db, current, known, restat)
            if db.in_transaction:
                db.execute("UPDATE meta SET value = (SELECT count(*) FROM sections) WHERE key = 'sections'")
                db.execute("UPDATE meta SET value = (SELECT count(*) FROM passages) WHERE key = 'passages'")
                db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise
        if restat:  # only spares the next search a read of unchanged bytes: skipped where it cannot be written
            try:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("UPDATE files SET size = ?, mtime = ? WHERE path = ?", restat)
                db.execute("COMMIT")
            except sqlite3.Error:
                _rollback(db)

    def _apply(self, db: sqlite3.Connection, current: dict[str, os.stat_result],
               known: dict[str, tuple[str, int, int]], restat: list[tuple[int, int, str]]) -> None:
        """Bring the tables in line with `current` (in a transaction begun at the first change); the rows of
        files whose bytes did not change but whose size or mtime did go to `restat`."""
        from apm_git.store.blob import blob_id  # here: a warm search that finds nothing changed needs no hashlib

        now = time.time_ns()
        gone = [path for path in known if path not in current]
        for path in gone:
            _forget(db, path)
        self.refresh.removed = len(gone)
        for path, st in current.items():
            old = known.get(path)
            if old is not None and old[1:] == (st.st_size, st.st_mtime_ns):
                continue
            try:
                if st.st_size > MAX_FILE_BYTES:
                    raise TooLarge(self.repo.repo_path(path), st.st_size, MAX_FILE_BYTES)
                data = (self.repo.memory / path).read_bytes()
                text = decode(data, self.repo.repo_path(path))
            except UnreadableFile as error:
                self.refresh.skipped.append(str(error))
                if old is not None:
                    _forget(db, path)
                continue
            except OSError as error:
                self.refresh.skipped.append(f"{self.repo.repo_path(path)}: {error.strerror}")
                continue
            blob = blob_id(data)
            mtime = -1 if st.st_mtime_ns >= now - RACY_NS else st.st_mtime_ns  # racy: check its bytes next time
            if old is not None and old[0] == blob:
                if old[1:] != (st.st_size, mtime):  # a racy file read again, unchanged, is not written
                    restat.append((st.st_size, mtime, path))
                continue
            _forget(db, path)  # its sections, even when its row was lost
            _add(db, path, text)
            db.execute("INSERT INTO files VALUES (?, ?, ?, ?)", (path, blob, st.st_size, mtime))
            self.refresh.indexed += 1

    def search(self, wanted: list[terms.Term], *, limit: int, archive: bool | None = None,
               under: str | None = None, alike: bool = False) -> tuple[list[Hit], int]:
        """The best `limit` sections for the terms, each with its best passage, and how many sections matched in
        all.  A section ranks by its best passage.  `archive`: True for the archive only, False for live memory
        only, None for both, live sections first unless `alike` (one ranking, a live section first on an equal
        score); `under`: a folder prefix.  Damage the query meets is healed (the index rebuilt, then built in
        memory) and the query run again."""
        if not wanted:
            return [], 0
        return self._healing(lambda: self._sections(wanted, limit, archive, under, alike))

    def passages(self, wanted: list[terms.Term], *, limit: int, archive: bool | None = None,
                 under: str | None = None) -> list[Hit]:
        """The best `limit` passages for the terms, across sections and files, in rank order."""
        if not wanted:
            return []
        return self._healing(lambda: self._hits(self._ranked(wanted, limit, archive, under, alike=False)))

    def ranked(self, wanted: list[terms.Term], *, limit: int, archive: bool | None) -> list[tuple[int, float]]:
        """(passage id, BM25 score, higher is better) of the best `limit` passages for the terms; `archive` as for
        `search` (None: both, ranked alike)."""
        if not wanted:
            return []
        rows = self._healing(lambda: self._ranked(wanted, limit, archive, None, alike=archive is None))
        return [(id_, round(-rank, 3)) for id_, rank in rows]

    def hits(self, scored: list[tuple[int, float]], *, limit: int) -> list[Hit]:
        """The sections of the scored passages, in their order, each with its first passage there, at most `limit`."""
        return self._healing(lambda: self._hits([(id_, -score) for id_, score in scored], one_per_section=True))[:limit]

    def passages_of(self, scored: list[tuple[int, float]], *, limit: int) -> list[Hit]:
        """The scored passages with their sections, in their order, at most `limit`."""
        return self._healing(lambda: self._hits([(id_, -score) for id_, score in scored]))[:limit]

    def places(self) -> list[tuple[int, int, str, int, int]]:
        """(passage id, section id, its file's blob id, first line, last line) of every passage, in id order: where
        each passage is, without reading its text."""
        return self._healing(lambda: self.db.execute(
            "SELECT p.id, p.section, f.blob, p.line, p.last FROM passages p JOIN files f ON f.path = p.path "
            "ORDER BY p.id").fetchall())

    def every_passage(self, ids: list[int] | None = None) -> list[tuple[int, int, str]]:
        """(passage id, section id, the passage as the meaning layer embeds it: its section's heading line, then
        its lines) of every passage (or of those of `ids`), in id order (live memory before the archive)."""
        def read() -> list[tuple[int, int, str]]:
            every = []
            chosen = "" if ids is None else f" WHERE p.id IN ({', '.join(str(int(id_)) for id_ in ids)})"
            for id_, first, last, section, line, heading, text in self.db.execute(
                    "SELECT p.id, p.line, p.last, s.id, s.line, s.heading, s.text FROM passages p "
                    f"JOIN sections s ON s.id = p.section{chosen} ORDER BY p.id"):
                if not (isinstance(text, str) and isinstance(heading, str) and isinstance(first, int)
                        and isinstance(last, int) and isinstance(line, int)):
                    raise sqlite3.DatabaseError(f"a passage of the index holds NULL or a wrong type ({id_})")
                body = "\n".join(text.split("\n")[first - line:last - line + 1])
                every.append((id_, section, body if body.lstrip().startswith("#") else f"{heading}\n{body}"))
            return every
        return self._healing(read)

    def _healing(self, query: Callable[[], _T]) -> _T:
        for attempt in range(3):
            try:
                return query()
            except sqlite3.DatabaseError as error:
                if attempt == 2:
                    raise
                why = f"the index was unreadable ({error})"
                self.db.close()
                self.db = self._connect(damaged=why) if attempt == 0 else self._in_memory(why)
        raise AssertionError("unreachable")

    def _sections(self, wanted: list[terms.Term], limit: int, archive: bool | None, under: str | None,
                  alike: bool) -> tuple[list[Hit], int]:
        count = limit * 4 + 16
        while True:
            rows = self._ranked(wanted, count, archive, under, alike)
            best = self._hits(rows, one_per_section=True)
            if len(best) >= limit or len(rows) < count:
                break
            count *= 4
        join, where, args = self._where(wanted, archive, under)
        total = self.db.execute(f"SELECT count(DISTINCT p.section) FROM fts JOIN passages p ON p.id = fts.rowid{join} "
                                f"WHERE {' AND '.join(where)}", args).fetchone()[0]
        return best[:limit], total

    @staticmethod
    def _where(wanted: list[terms.Term], archive: bool | None, under: str | None) -> tuple[str, list[str], list[str]]:
        join, where, args = "", ["fts MATCH ?"], [terms.match_expression(wanted)]
        if archive is not None:
            where.append(f"fts.rowid >= {ARCHIVE_IDS}" if archive else f"fts.rowid < {ARCHIVE_IDS}")
        if under is not None:
            join = " JOIN passages u ON u.id = fts.rowid"
            where.append("u.path LIKE ? ESCAPE '\\'")
            args.append(under.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        return join, where, args

    def _ranked(self, wanted: list[terms.Term], count: int, archive: bool | None, under: str | None,
                alike: bool) -> list[tuple[int, float]]:
        """(passage id, rank) of the best `count` passages: live ones first unless `alike` or `archive` is set."""
        live, archived = f"fts.rowid < {ARCHIVE_IDS}", f"fts.rowid >= {ARCHIVE_IDS}"
        join, where, args = self._where(wanted, archive, under)

        def ranked(extra: str | None, order: str, count: int) -> list[tuple[int, float]]:
            condition = " AND ".join([*where, extra] if extra else where)
            return self.db.execute(f"SELECT fts.rowid, rank FROM fts{join} WHERE {condition} ORDER BY {order} "
                                   "LIMIT ?", (*args, count)).fetchall()

        if archive is None and not alike:  # FTS5 ranks each range itself: the archive only when live runs short
            rows = ranked(live, "rank", count)
            if len(rows) < count:
                rows += ranked(archived, "rank", count - len(rows))
            return rows
        if archive is None:
            return ranked(None, f"round(rank, 3), {archived}, rank", count)
        return ranked(None, "rank", count)

    def _hits(self, rows: list[tuple[int, float]], *, one_per_section: bool = False) -> list[Hit]:
        """The passages of `rows` with their sections, in the order of `rows` (the first of each section only), a
        passage that says what a better one said left out (`Said`)."""
        ids = [row[0] for row in rows]
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        found = {row[0]: row for row in self.db.execute(
            "SELECT p.id, p.line, p.last, s.id, s.path, s.line, s.last, s.heading, s.trail, s.entry_id, s.text, "
            f"s.date FROM passages p JOIN sections s ON s.id = p.section WHERE p.id IN ({marks})", ids)}
        if len(found) != len(ids):
            raise sqlite3.DatabaseError("the full-text table names a passage the index does not hold")
        hits: list[Hit] = []
        seen: set[object] = set()
        said = Said()
        for id_, rank in rows:
            row = found[id_]
            if one_per_section and row[3] in seen:
                continue
            hit = _hit(row, round(-rank, 3))
            if said.again(hit):
                continue  # its section may still come with another passage
            seen.add(row[3])
            hits.append(hit)
        return hits


class Said:
    """The passages' texts a page holds already: a passage that says the same words again (whitespace aside) is
    left off a page, as it adds nothing the reader has not read (a chat's "Sounds good!" in every session, a
    line copied into several files); where it is, `grep` finds.  The first place, the best ranked, is kept."""

    def __init__(self) -> None:
        self.texts: set[str] = set()

    def again(self, hit: Hit) -> bool:
        text = " ".join(hit.passage_text.split())
        if text in self.texts:
            return True
        self.texts.add(text)
        return False


def _rollback(db: sqlite3.Connection) -> None:
    if db.in_transaction:  # SQLite may have rolled it back already (a disk I/O error)
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def _begin(db: sqlite3.Connection) -> None:
    if not db.in_transaction:
        db.execute("BEGIN IMMEDIATE")


def _forget(db: sqlite3.Connection, path: str) -> None:
    _begin(db)
    db.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM passages WHERE path IS ?)", (path,))
    db.execute("DELETE FROM passages WHERE path IS ?", (path,))
    db.execute("DELETE FROM sections WHERE path IS ?", (path,))
    db.execute("DELETE FROM files WHERE path IS ?", (path,))


def _add(db: sqlite3.Connection, path: str, text: str) -> None:
    found = [section for section in sections.split(text, path) if not boiler.untouched(section)]
    if not found:
        return
    _begin(db)
    place = sections.place_of(path)
    section_id = db.execute("SELECT coalesce(max(id), 0) + 1 FROM sections").fetchone()[0]
    if path.startswith(f"{names.ARCHIVE}/"):
        first = db.execute("SELECT coalesce(max(id), ?) + 1 FROM passages WHERE id >= ?",
                           (ARCHIVE_IDS - 1, ARCHIVE_IDS)).fetchone()[0]
    else:
        first = db.execute("SELECT coalesce(max(id), 0) + 1 FROM passages WHERE id < ?", (ARCHIVE_IDS,)).fetchone()[0]
    section_rows, passage_rows, fts_rows = [], [], []
    for id_, section in enumerate(found, start=section_id):
        section_rows.append((id_, path, section.line, section.end, section.heading, section.trail, section.entry_id,
                             section.date, section.text))
        heading, where = terms.fts_text(section.heading), terms.fts_text(f"{place} {section.trail}")
        for passage in passages.split(section):
            passage_rows.append((first, id_, path, passage.line, passage.last))
            labels = f" {terms.fts_text(passage.labels)}" if passage.labels else ""
            fts_rows.append((first, heading, terms.fts_text(passage.content), where + labels))
            first += 1
    db.executemany("INSERT INTO sections(id, path, line, last, heading, trail, entry_id, date, text) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", section_rows)
    db.executemany("INSERT INTO passages(id, section, path, line, last) VALUES (?, ?, ?, ?, ?)", passage_rows)
    db.executemany("INSERT INTO fts(rowid, heading, body, place) VALUES (?, ?, ?, ?)", fts_rows)


def _hit(row: tuple[object, ...], score: float) -> Hit:
    _, first, last_line, id_, path, line, last, heading, trail, entry_id, text, date = row
    if not (isinstance(id_, int) and isinstance(path, str) and isinstance(line, int) and isinstance(last, int)
            and isinstance(heading, str) and isinstance(trail, str) and isinstance(text, str)
            and isinstance(first, int) and isinstance(last_line, int) and (date is None or isinstance(date, str))):
        raise sqlite3.DatabaseError(f"a section of the index holds NULL or a value of the wrong type (id {id_})")
    return Hit(id_, path, line, last, heading, trail, entry_id if isinstance(entry_id, str) else None, text, score,
               date, (first, last_line))
