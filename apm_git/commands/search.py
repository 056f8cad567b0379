"""`apm-git search`: L3, find entries in live memory and the archive without loading whole files.

Each file is read once.  A file that contains none of the query's words is dropped at
once; in the others each record is scored on its raw text, and only the records that make
the shown list are parsed.  No git calls: the work tree is what is searched.

Ranking: more distinct query words matched first; then the score (a word in the title
counts 3, in the tags 2, elsewhere in the record 1; the whole query as a phrase +2); then
the entry's own fitness (hit_count, then last_referenced) and its date, newest first.
Words match at the start of a word, case-insensitively: `deploy` finds "deployment".
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import heapq
import re
from collections.abc import Iterator

from apm_git import layout, names
from apm_git.errors import UsageError
from apm_git.model.records import BOM, Record, has_fence, parse
from apm_git.model.routing import words
from apm_git.repo import MAX_FILE_BYTES, MemoryRepo, TooLarge, UnreadableFile, decode

SNIPPET_CHARS = 120
_RECORD_START = re.compile(r"^## \[", re.MULTILINE)
_HEADER = re.compile(r"## \[(\d{4}-\d{2}-\d{2})\] (.*?)\r?")
_TAGS = re.compile(r"^- Tags:(.*)$", re.MULTILINE)
_HIT_COUNT = re.compile(r"hit_count\s*=\s*(\d+)")
_LAST_REFERENCED = re.compile(r"last_referenced\s*=\s*(\d{4}-\d{2}-\d{2})")


@dataclasses.dataclass(frozen=True)
class SearchHit:
    entry_id: str
    file: str  # repo-relative
    line: int
    title: str
    snippet: str
    archived: bool
    score: int
    matched: list[str]


@dataclasses.dataclass
class SearchResult:
    query: str
    where: str  # "live and archive" or "archive"
    hits: list[SearchHit]
    total: int  # entries that matched, before --limit
    files_searched: int
    skipped: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class _Candidate:
    key: tuple[int, int, int, str, str]
    rel: str
    line: int
    chunk: str
    matched: tuple[str, ...]
    score: int


class _Query:
    def __init__(self, query: str) -> None:
        said = words(query)
        self.terms = list(dict.fromkeys(word for word in said if len(word) >= 2 or word.isdigit()))
        if not self.terms:
            raise UsageError("the search query has no words to look for; give one or more words")
        self.patterns = [(term, re.compile(r"\b" + re.escape(term))) for term in self.terms]
        self.phrase = " ".join(said) if len(said) > 1 else None

    def score(self, rel: str, line: int, chunk: str) -> _Candidate | None:
        lower = chunk.lower()
        if not any(term in lower for term in self.terms):
            return None
        first_end = chunk.find("\n")
        header = _HEADER.fullmatch(chunk if first_end < 0 else chunk[:first_end])
        if header is None or not _is_date(header[1]):
            return None
        title = header[2].lower()
        tags_match = _TAGS.search(lower)
        tags = tags_match[1] if tags_match else ""
        rest = lower[first_end:] if first_end >= 0 else ""
        matched, score = [], 0
        for term, pattern in self.patterns:
            points = 3 if pattern.search(title) else 2 if pattern.search(tags) else 1 if pattern.search(rest) else 0
            if points:
                matched.append(term)
                score += points
        if not matched:
            return None
        if self.phrase and self.phrase in " ".join(words(lower)):
            score += 2
        hits = _HIT_COUNT.search(chunk)
        last = _LAST_REFERENCED.search(chunk)
        key = (len(matched), score, int(hits[1]) if hits else 0, last[1] if last else "", header[1])
        return _Candidate(key, rel, line, chunk, tuple(matched), score)


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _chunks(text: str) -> Iterator[tuple[int, str]]:
    """Each record's text with its line number: split at `## [` lines, or by the full parser
    when a code fence could hide a heading."""
    if has_fence(text):
        for record in parse(text).records:
            yield record.line_no, record.text
        return
    starts = [match.start() for match in _RECORD_START.finditer(text)]
    line = 1 + text.count("\n", 0, starts[0]) if starts else 0
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(text)
        other = text.find("\n## ", start, end)  # a plain `## ` section ends the record
        yield line, text[start:other + 1 if other >= 0 else end]
        line += text.count("\n", start, end)


def _files(repo: MemoryRepo, archive_only: bool, group: str | None) -> Iterator[str]:
    """The files one search reads.  A group's folder is searched only when the group is named
    (APM rule 1: no search reaches into a group's memory behind its index), and then alone."""
    if group is not None:
        yield from repo.markdown_files(layout.group_dir(group))
        return
    for rel in repo.markdown_files(names.ARCHIVE if archive_only else ""):
        if not rel.startswith(f"{names.GROUPS}/"):
            yield rel


def search(
    repo: MemoryRepo, query: str, *, archive_only: bool = False, limit: int = 10, group: str | None = None,
) -> SearchResult:
    wanted = _Query(query)
    where = f"group {group}" if group else "archive" if archive_only else "live and archive"
    result = SearchResult(query, where, [], 0, 0)
    candidates: list[_Candidate] = []
    for rel in _files(repo, archive_only, group):
        result.files_searched += 1
        path = repo.memory / rel
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise TooLarge(repo.repo_path(rel), size)
            text = decode(path.read_bytes(), repo.repo_path(rel)).removeprefix(BOM)
        except UnreadableFile as error:
            result.skipped.append(str(error))
            continue
        except OSError as error:
            result.skipped.append(f"{repo.repo_path(rel)}: {error.strerror}")
            continue
        lower = text.lower()
        if not any(term in lower for term in wanted.terms):
            continue
        for line, chunk in _chunks(text):
            candidate = wanted.score(rel, line, chunk)
            if candidate is not None:
                candidates.append(candidate)
    result.total = len(candidates)
    for candidate in heapq.nlargest(limit, candidates, key=lambda item: item.key):
        record = parse(candidate.chunk).records[0]
        result.hits.append(SearchHit(
            record.id, repo.repo_path(candidate.rel), candidate.line, record.title, _snippet(record),
            candidate.rel.startswith(f"{names.ARCHIVE}/"), candidate.score, list(candidate.matched),
        ))
    return result


def _snippet(record: Record) -> str:
    body = " ".join(record.body.split())
    if not body or body.lower().startswith(record.title.lower()):
        text = body or record.title
    else:
        text = f"{record.title} — {body}"
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…"
