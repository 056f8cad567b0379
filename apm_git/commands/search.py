"""`apm-git search`: L3, the sections of memory that best match a query, through the full-text index.

Every section counts: Dreaming records, free-form heading sections, journal days, topic files.
Ranking is BM25 over the index (apm_git/search/index.py), a word in a heading weighing four
times a word in the body.  Live memory ranks above the archive: archived sections follow the live
ones unless the user asks for the archive (`--archive`), which ranks both by their match alone, a
live section first on an equal score.  `--scan` reads every file instead (the fallback where SQLite
has no FTS5): sections that hold more of the query's words first, then more occurrences.  `--meaning` fuses
BM25 with the passages' sentence vectors (the optional layer of apm_git/search/meaning.py, built by
`apm-git embed`).
"""
from __future__ import annotations

import dataclasses

from apm_git.errors import UsageError
from apm_git.model import names
from apm_git.model import text_dates as dates
from apm_git.model.vocabulary import SearchMethod
from apm_git.search import terms
from apm_git.search.index import Hit, Index, SearchScope
from apm_git.search.scan import NO_WORDS, matched, query_terms, scan_sections
from apm_git.store.repo import MemoryRepo

SNIPPET_CHARS = 120
_FIELDS_WITHOUT_TEXT = ("- Tags:", "- Fitness:", "- Source:", "- Archived:", "- Merged:")


@dataclasses.dataclass(frozen=True)
class SearchHit:
    entry_id: str | None  # a Dreaming record's id; None for a free-form section
    file: str  # repo-relative
    line: int  # the best passage's first line
    last: int  # and its last
    section: int  # the first line of its section
    heading: str
    trail: str  # the headings above the section, outermost first, joined by " › "
    date: str | None  # the nearest date above the passage (its section's heading, an enclosing one, the file name)
    snippet: str
    archived: bool
    score: float
    matched: list[str]

    @property
    def place(self) -> str:
        """The heading path, and the date when the path does not show it."""
        path = f"{self.trail} › {self.heading}" if self.trail else self.heading
        return path if self.date is None or dated_in(path, self.date) else f"{path} ({self.date})"


@dataclasses.dataclass
class SearchResult:
    query: str
    where: str  # "live, then archive", "live and archive alike", "archive" or "group NAME"
    method: SearchMethod
    hits: list[SearchHit]
    total: int  # sections that matched, before --limit
    files_searched: int
    skipped: list[str] = dataclasses.field(default_factory=list)
    note: str | None = None  # the index on disk could not be used: why, and what was done instead


def search(
    repo: MemoryRepo, query: str, *, archive_only: bool = False, archive_alike: bool = False, limit: int = 10,
    group: str | None = None, scan: bool = False, meaning: bool = False,
) -> SearchResult:
    """`archive_only`: the archive alone; `archive_alike`: the archive ranked with live memory by match
    alone (a live section first on an equal score); neither: live sections first, then archived ones.
    `meaning`: BM25 fused with the vectors `apm-git embed` built (the extra `apm-git[meaning]`)."""
    if meaning:
        return _by_meaning(repo, query, archive_only=archive_only, archive_alike=archive_alike, limit=limit,
                           group=group)
    wanted = query_terms(query)
    where = _where(group, archive_only, archive_alike)
    scope, archive = SearchScope(group), True if archive_only else None
    note = None
    if scan:
        found, total, files, skipped = scan_sections(repo, scope, wanted, limit=limit, archive=archive,
                                                     alike=archive_alike)
    else:
        index = Index(repo, scope)
        try:
            found, total = index.search(wanted, limit=limit, archive=archive, alike=archive_alike)
        finally:
            index.close()
        files, skipped, note = index.refresh.files, index.refresh.skipped, index.refresh.note
    result = SearchResult(query, where, "scan" if scan else "index", [], total, files, skipped, note)
    _add_hits(repo, result, found, wanted)
    return result


def _where(group: str | None, archive_only: bool, archive_alike: bool) -> str:
    return (f"group {group}" if group else "archive" if archive_only else
            "live and archive alike" if archive_alike else "live, then archive")


def _by_meaning(repo: MemoryRepo, query: str, *, archive_only: bool, archive_alike: bool, limit: int,
                group: str | None) -> SearchResult:
    from apm_git.search import meaning
    from apm_git.search.engine import engine, require_numpy

    if not any(char.isalnum() for char in query):  # words that are all stop words still have a meaning
        raise UsageError(NO_WORDS)
    require_numpy()  # the extra is both: a memory of many passages needs it
    model = engine()  # without the extra, nothing else is done
    wanted = terms.query_terms(query)
    scope = SearchScope(group)
    index = Index(repo, scope)
    try:
        ranked = meaning.rank(repo, scope, index, query, wanted, limit=limit, archive=True if archive_only else None,
                              alike=archive_alike, model=model)
    finally:
        index.close()
    notes = [note for note in (index.refresh.note, ranked.note) if note]
    if ranked.unembedded and ranked.note is None:
        notes.append(f"{ranked.unembedded} passage{'' if ranked.unembedded == 1 else 's'} of "
                     f"{ranked.passages} had no vector yet and ranked by their words alone; "
                     "`apm-git embed` embeds them")
    result = SearchResult(query, _where(group, archive_only, archive_alike), "meaning", [], ranked.total,
                          index.refresh.files, index.refresh.skipped, "; ".join(notes) or None)
    _add_hits(repo, result, ranked.hits, wanted)
    return result


def _add_hits(repo: MemoryRepo, result: SearchResult, found: list[Hit], wanted: list[terms.Term]) -> None:
    for hit in found:
        first, last = hit.lines
        result.hits.append(SearchHit(
            hit.entry_id, repo.repo_path(hit.path), first, last, hit.line, hit.heading, hit.trail, hit.date,
            snippet(hit, wanted), hit.path.startswith(f"{names.ARCHIVE}/"), hit.score, matched(hit, wanted),
        ))


def dated_in(text: str, date: str) -> bool:
    """Whether `text` already shows `date` (in any of the forms the index reads)."""
    return dates.find(text) == date


def snippet(hit: Hit, wanted: list[terms.Term]) -> str:
    """One line of the best passage around its first matching word (the first line with text when only the
    heading matched)."""
    lines = [line.strip().removeprefix("- Body:").strip() for line in hit.passage_text.split("\n")
             if line.strip() and not line.lstrip().startswith(_FIELDS_WITHOUT_TEXT)]
    lines = [line for line in lines if not line.startswith("#")] or lines
    for line in lines:
        for word in terms.WORD.finditer(line):
            found = set(terms.tokens(word[0]))
            if any(term.holds(found) for term in wanted):
                return _around(line, word.start())
    return _around(lines[0], 0) if lines else hit.heading[:SNIPPET_CHARS]


def _around(line: str, at: int) -> str:
    if len(line) <= SNIPPET_CHARS:
        return line
    start = max(0, min(at - SNIPPET_CHARS // 3, len(line) - SNIPPET_CHARS + 2))
    text = line[start:start + SNIPPET_CHARS - 2].strip()
    return ("…" if start else "") + text + ("…" if start + SNIPPET_CHARS - 2 < len(line) else "")
