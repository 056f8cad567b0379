"""Where a scope's index lives on disk, and how it heals: `.git/apm-git/search/NAME.sqlite3`.

The index is a cache, so whatever happened to its file (gone, truncated, junk bytes, rows nulled or a
table emptied, another format, a folder in its place, read-only) a search answers as a fresh build would:

- Reading takes no lock.  `Place.open` opens the file as it is (never creating it) and checks what is
  cheap to check: the format number, and that `meta` counts as many sections as `sections` holds and as
  many passages as `passages` and the full-text table hold (an emptied or half-emptied table shows here).
  Damage that shows only in the rows a query
  returns (NULLs, a malformed page) is caught by the index where it shows.
- Writing is serialised on `NAME.lock` (flock, as the writer lock): bringing the index up to date and
  building it anew are done by one process at a time; the others wait up to `BUILD_WAIT` seconds and
  then find the work done, so six searches after the folder was deleted build it once.
- A new index is built aside (`NAME.PID.tmp`, without a journal) and renamed over the path, so the path
  always holds a whole index, and a process still reading the one it replaced reads that to its end.
  The journal a killed writer left is removed first: it belongs to the file being replaced.
- Where nothing can be written (a read-only or immutable folder or file, a lock that cannot be taken in
  time, a full disk), the index is built in memory for the one search: slower, the same answer.
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from apm_git.search import terms
from apm_git.store.lock import file_lock, lock_timeout
from apm_git.store.repo import STATE_DIR, MemoryRepo

VERSION = "4"  # 4: passages, analysed text, dates
# A passage of the archive gets an id from here up, a live one below: "live" and "archived" are then
# rowid ranges, which FTS5 filters (and ranks within) by itself, without reading a row of `passages`.
ARCHIVE_IDS = 1 << 40
WEIGHTS = "bm25(4.0, 1.0, 2.0)"  # heading, body, place (the file's path, the headings above, the tags)
BUILD_WAIT = 10.0  # seconds a search waits for another process building the index, then builds its own in memory
BUSY_SECONDS = 10.0  # how long SQLite waits for a writer's commit before it reports the database busy
SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files(path TEXT PRIMARY KEY, blob TEXT NOT NULL, size INTEGER, mtime INTEGER);
CREATE TABLE sections(id INTEGER PRIMARY KEY, path TEXT NOT NULL, line INTEGER, last INTEGER,
                      heading TEXT, trail TEXT, entry_id TEXT, date TEXT, text TEXT);
CREATE INDEX sections_path ON sections(path);
CREATE TABLE passages(id INTEGER PRIMARY KEY, section INTEGER NOT NULL, path TEXT NOT NULL, line INTEGER,
                      last INTEGER);
CREATE INDEX passages_path ON passages(path);
CREATE VIRTUAL TABLE fts USING fts5(heading, body, place, tokenize='{terms.TOKENIZER}');
INSERT INTO fts(fts, rank) VALUES ('rank', '{WEIGHTS}');
INSERT INTO meta VALUES ('version', '{VERSION}');
INSERT INTO meta VALUES ('sections', '0');
INSERT INTO meta VALUES ('passages', '0')
"""
# Device and inode: the same file, even after updates in place (a rebuild is a new file).  An inode
# reused by a later rebuild can only make a process rebuild once more, never keep a damaged file.
Identity = tuple[int, int]


def in_memory() -> sqlite3.Connection:
    """An empty index of this process alone."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    _create(db)
    return db


def _create(db: sqlite3.Connection) -> None:
    for statement in SCHEMA.strip().split(";\n"):
        db.execute(statement)


def _check(db: sqlite3.Connection) -> str | None:
    """Why the index cannot be trusted, or None."""
    row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    if row is None or row[0] != VERSION:
        return "the index had another format"
    noted, sections, passages, stored, searchable = db.execute(
        "SELECT (SELECT value FROM meta WHERE key = 'sections'), (SELECT count(*) FROM sections), "
        "(SELECT value FROM meta WHERE key = 'passages'), (SELECT count(*) FROM passages), "
        "(SELECT count(*) FROM fts_docsize)").fetchone()
    if noted != str(sections) or not passages == str(stored) == str(searchable):
        return (f"the index's tables disagreed ({noted} sections noted, {sections} stored; {passages} passages "
                f"noted, {stored} stored, {searchable} in the full-text table)")
    return None


class IndexPlace:
    """The files of one scope's index: the database, its lock, and where a new one is built."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder = folder
        self.name = name
        self.path = folder / f"{name}.sqlite3"
        self.vectors = folder / f"{name}.vectors"  # the meaning layer's, beside it (search/meaning.py)
        self.lock = folder / f"{name}.lock"
        self.aside = folder / f"{name}.{os.getpid()}.tmp"

    @classmethod
    def of(cls, repo: MemoryRepo, name: str) -> IndexPlace:
        """The place under the git dir, its folder made (a file or a dangling link in its place removed:
        the folder is apm-git's own).  Raises OSError when the folder cannot be made."""
        folder = repo.git_dir / STATE_DIR / "search"
        if not folder.is_dir():
            if folder.is_symlink() or folder.exists():
                # another search started at once may have removed it and made the folder already
                with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                    folder.unlink()
            folder.mkdir(parents=True, exist_ok=True)
        return cls(folder, name)

    def identity(self) -> Identity | None:
        try:
            stat = self.path.stat()
        except OSError:
            return None
        return stat.st_dev, stat.st_ino

    def open(self) -> tuple[sqlite3.Connection | None, str]:
        """The index at the path, checked; or None and why it cannot be used."""
        if self.path.is_dir():
            return None, "a folder stood where the index file belongs"
        if not self.path.exists():
            return None, "there was no index yet"
        uri = "file:" + str(self.path).replace("%", "%25").replace("?", "%3f").replace("#", "%23") + "?mode=rw"
        try:
            db = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
        except sqlite3.Error as error:
            return None, f"the index could not be opened ({error})"
        try:
            db.execute("PRAGMA synchronous=OFF")  # a cache: a torn write after a power cut is healed like any damage
            why = _check(db)
        except sqlite3.DatabaseError as error:
            why = f"the index was unreadable ({error})"
        if why is None:
            return db, ""
        db.close()
        return None, why

    @staticmethod
    def wait() -> float:
        return min(lock_timeout(), BUILD_WAIT)

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the index's lock (raises an ApmGitError when it cannot be taken in time)."""
        with file_lock(self.lock, "another apm-git process building the search index", timeout=self.wait()):
            yield

    def build_aside(self) -> sqlite3.Connection:
        """A new, empty index beside the path (the lock's holder only: anything left there was left by a
        builder that was killed)."""
        for stale in self.folder.glob(f"{self.name}.*.tmp"):
            if stale.name[len(self.name) + 1:-len(".tmp")].isdigit():  # NAME.PID.tmp: not a vectors file's aside
                stale.unlink(missing_ok=True)
        db = sqlite3.connect(self.aside, isolation_level=None)
        db.execute("PRAGMA journal_mode=OFF")  # a build that fails is thrown away whole
        db.execute("PRAGMA synchronous=OFF")
        _create(db)
        return db

    def swap_in(self) -> None:
        """Put the index built aside at the path (the lock's holder only)."""
        for suffix in ("-journal", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        try:
            if self.path.is_dir() and not self.path.is_symlink():
                import shutil  # here: only a folder in the index's place needs it (the hook imports this module)

                shutil.rmtree(self.path)
            self.aside.replace(self.path)
        except OSError as error:  # name the index, not the file built aside
            raise OSError(error.errno, error.strerror, str(self.path)) from None

    def discard(self) -> None:
        self.aside.unlink(missing_ok=True)
