"""The full-text index: a SQLite FTS5 cache of every section of a scope's memory files.

One database per scope under `.git/apm-git/search/` (never in the work tree, never
committed): `memory.sqlite3` for the memory dir without `groups/` (live memory, `main/` and
the archive), `group-NAME.sqlite3` for one group's index and folder.  A group's database is
built from that group's files alone, so a group search cannot return anything else (APM
rule 1), and building it opens nothing outside the group.

Files are keyed by their git blob id: a search stats the scope's files, reads again only
those whose size or mtime moved, and re-indexes only those whose blob id changed.  A
missing, stale, corrupt or older-format database is rebuilt on the spot, silently.
"""
from __future__ import annotations

import dataclasses
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from apm_git.errors import NoFts5, TooLarge, UnreadableFile
from apm_git.model import names
from apm_git.model.groups import check_group_name
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.search import sections, terms
from apm_git.store.blob import blob_id
from apm_git.store.odd_names import skipped
from apm_git.store.repo import MemoryRepo, decode

VERSION = "2"
ENV_FTS5 = "APM_GIT_FTS5"  # "off": behave as on a platform whose SQLite lacks FTS5
WEIGHTS = "bm25(4.0, 1.0, 2.0)"  # heading, body, place (the file's path and the headings above the section)
RACY_NS = 2_000_000_000  # a file changed this recently may change again within the same mtime
SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files(path TEXT PRIMARY KEY, blob TEXT NOT NULL, size INTEGER, mtime INTEGER);
CREATE TABLE sections(id INTEGER PRIMARY KEY, path TEXT NOT NULL, line INTEGER, last INTEGER,
                      heading TEXT, trail TEXT, entry_id TEXT, text TEXT);
CREATE INDEX sections_path ON sections(path);
CREATE VIRTUAL TABLE fts USING fts5(heading, body, place, tokenize='{terms.TOKENIZER}');
INSERT INTO fts(fts, rank) VALUES ('rank', '{WEIGHTS}');
INSERT INTO meta VALUES ('version', '{VERSION}');
"""


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
class Scope:
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
    id: int
    path: str  # memory-relative
    line: int
    last: int
    heading: str
    trail: str
    entry_id: str | None
    text: str
    score: float  # higher is better


@dataclasses.dataclass
class Refresh:
    files: int = 0
    indexed: int = 0  # files read and indexed again
    removed: int = 0
    rebuilt: str | None = None  # why the whole index was rebuilt
    skipped: list[str] = dataclasses.field(default_factory=list)


class Index:
    """One scope's index, brought up to date with the files when opened."""

    def __init__(self, repo: MemoryRepo, scope: Scope) -> None:
        if not fts5_available():
            raise NoFts5(NO_FTS5)
        self.repo = repo
        self.scope = scope
        folder = repo.state_dir / "search"
        folder.mkdir(exist_ok=True)
        self.path = folder / f"{scope.name}.sqlite3"
        self.refresh = Refresh()
        try:
            self.db = self._open()
            self._update()
        except sqlite3.DatabaseError as error:  # a torn or foreign file: it is only a cache
            self._drop()
            self.refresh = Refresh(rebuilt=f"the index was unreadable ({error})")
            self.db = self._open()
            self._update()

    def _open(self) -> sqlite3.Connection:
        fresh = not self.path.exists()
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA synchronous=OFF")
        if not fresh:
            row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if row is not None and row[0] == VERSION:
                return db
            db.close()
            self._drop()
            self.refresh.rebuilt = "the index had another format"
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA synchronous=OFF")
        else:
            self.refresh.rebuilt = "there was no index yet"
        db.execute("BEGIN IMMEDIATE")
        if db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'meta'").fetchone()[0] == 0:
            for statement in SCHEMA.strip().split(";\n"):
                db.execute(statement)
        db.execute("COMMIT")
        return db

    def _drop(self) -> None:
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        self.db.close()

    def _update(self) -> None:
        current = dict(self.scope.files(self.repo))
        self.refresh.files = len(current)
        known = {row[0]: row[1:] for row in self.db.execute("SELECT path, blob, size, mtime FROM files")}
        if all(path in known and known[path][1:] == (st.st_size, st.st_mtime_ns) for path, st in current.items()) \
                and known.keys() <= current.keys():
            return  # the warm path: nothing moved
        self.db.execute("BEGIN IMMEDIATE")
        try:
            known = {row[0]: row[1:] for row in self.db.execute("SELECT path, blob, size, mtime FROM files")}
            self._apply(current, known)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _apply(self, current: dict[str, os.stat_result], known: dict[str, tuple[str, int, int]]) -> None:
        now = time.time_ns()
        gone = [path for path in known if path not in current]
        for path in gone:
            self._forget(path)
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
                    self._forget(path)
                continue
            except OSError as error:
                self.refresh.skipped.append(f"{self.repo.repo_path(path)}: {error.strerror}")
                continue
            blob = blob_id(data)
            mtime = -1 if st.st_mtime_ns >= now - RACY_NS else st.st_mtime_ns  # racy: check its bytes next time
            if old is not None and old[0] == blob:
                self.db.execute("UPDATE files SET size = ?, mtime = ? WHERE path = ?", (st.st_size, mtime, path))
                continue
            if old is not None:
                self._forget(path)
            self._add(path, text)
            self.db.execute("INSERT INTO files VALUES (?, ?, ?, ?)", (path, blob, st.st_size, mtime))
            self.refresh.indexed += 1

    def _forget(self, path: str) -> None:
        self.db.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM sections WHERE path = ?)", (path,))
        self.db.execute("DELETE FROM sections WHERE path = ?", (path,))
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))

    def _add(self, path: str, text: str) -> None:
        found = sections.split(text, path)
        if not found:
            return
        place = path.replace("/", " ").replace("-", " ").replace("_", " ").removesuffix(".md")
        first = self.db.execute("SELECT coalesce(max(id), 0) + 1 FROM sections").fetchone()[0]
        ids = range(first, first + len(found))
        self.db.executemany(
            "INSERT INTO sections(id, path, line, last, heading, trail, entry_id, text) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(id_, path, section.line, section.end, section.heading, section.trail, section.entry_id, section.text)
             for id_, section in zip(ids, found, strict=True)],
        )
        self.db.executemany(
            "INSERT INTO fts(rowid, heading, body, place) VALUES (?, ?, ?, ?)",
            [(id_, terms.fts_text(section.heading), terms.fts_text(section.text),
              terms.fts_text(f"{place} {section.trail}")) for id_, section in zip(ids, found, strict=True)],
        )

    def search(self, wanted: list[terms.Term], *, limit: int, archive: bool | None = None,
               under: str | None = None) -> tuple[list[Hit], int]:
        """The best `limit` sections for the terms, and how many matched in all.  `archive`: True for
        the archive only, False for live memory only, None for both; `under`: a folder prefix."""
        if not wanted:
            return [], 0
        where, args = ["fts MATCH ?"], [terms.match_expression(wanted)]
        if archive is not None:
            where.append("s.path " + ("" if archive else "NOT ") + "LIKE ?")
            args.append(f"{names.ARCHIVE}/%")
        if under is not None:
            where.append("s.path LIKE ? ESCAPE '\\'")
            args.append(under.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        condition = " AND ".join(where)
        rows = self.db.execute(
            "SELECT s.id, s.path, s.line, s.last, s.heading, s.trail, s.entry_id, s.text, rank "
            f"FROM fts JOIN sections s ON s.id = fts.rowid WHERE {condition} ORDER BY rank LIMIT ?",
            (*args, limit),
        ).fetchall()
        total = self.db.execute(
            f"SELECT count(*) FROM fts JOIN sections s ON s.id = fts.rowid WHERE {condition}", args,
        ).fetchone()[0]
        return [_hit(row[:8], round(-row[8], 3)) for row in rows], total

    def sections_of(self, path: str) -> list[Hit]:
        rows = self.db.execute(
            "SELECT id, path, line, last, heading, trail, entry_id, text FROM sections WHERE path = ? ORDER BY line",
            (path,),
        ).fetchall()
        return [_hit(row, 0.0) for row in rows]


def _hit(row: tuple[object, ...], score: float) -> Hit:
    id_, path, line, last, heading, trail, entry_id, text = row
    assert isinstance(id_, int) and isinstance(path, str) and isinstance(line, int) and isinstance(last, int)
    assert isinstance(heading, str) and isinstance(trail, str) and isinstance(text, str)
    return Hit(id_, path, line, last, heading, trail, entry_id if isinstance(entry_id, str) else None, text, score)
