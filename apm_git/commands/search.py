"""`apm-git search`: L3, the sections of memory that best match a query, through the full-text index.

Every section counts: Dreaming records, free-form heading sections, journal days, topic files.
Ranking is BM25 over the index (apm_git/search/index.py), a word in a heading weighing four
times a word in the body.  Live memory ranks above the archive: archived sections follow the live
ones unless the user asks for the archive (`--archive`), which ranks both by their match alone, a
live section first on an equal score.  `--scan` reads every file instead (the fallback where SQLite
has no FTS5): sections that hold more of the query's words first, then more occurrences.
"""
from __future__ import annotations

import dataclasses

from apm_git.model import names
from apm_git.model.vocabulary import SearchMethod
from apm_git.search import terms
from apm_git.search.index import Hit, Index, Scope
from apm_git.search.scan import matched, query_terms, scan_sections
from apm_git.store.repo import MemoryRepo

SNIPPET_CHARS = 120
_FIELDS_WITHOUT_TEXT = ("- Tags:", "- Fitness:", "- Source:", "- Archived:", "- Merged:")


@dataclasses.dataclass(frozen=True)
class SearchHit:
    entry_id: str | None  # a Dreaming record's id; None for a free-form section
    file: str  # repo-relative
    line: int
    heading: str
    snippet: str
    archived: bool
    score: float
    matched: list[str]


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
    group: str | None = None, scan: bool = False,
) -> SearchResult:
    """`archive_only`: the archive alone; `archive_alike`: the archive ranked with live memory by match
    alone (a live section first on an equal score); neither: live sections first, then archived ones."""
    wanted = query_terms(query)
    where = (f"group {group}" if group else "archive" if archive_only else
             "live and archive alike" if archive_alike else "live, then archive")
    scope, archive = Scope(group), True if archive_only else None
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
    for hit in found:
        result.hits.append(SearchHit(
            hit.entry_id, repo.repo_path(hit.path), hit.line, hit.heading, snippet(hit, wanted),
            hit.path.startswith(f"{names.ARCHIVE}/"), hit.score, matched(hit, wanted),
        ))
    return result


def snippet(hit: Hit, wanted: list[terms.Term]) -> str:
    """One line of the section around the first match (the first body line when only the heading matched)."""
    lines = [line.strip().removeprefix("- Body:").strip()
             for line in hit.text.split("\n")[1 if hit.text.startswith("#") else 0:] if line.strip()]
    needles = [needle for term in wanted for needle in term.needles()]
    for line in lines:
        folded = terms.fold(line)
        positions = [position for position in (folded.find(needle) for needle in needles) if position >= 0]
        if positions and len(folded) == len(line):
            return _around(line, min(positions))
        if positions:
            return _around(line, 0)
    plain = [line for line in lines if not line.startswith(_FIELDS_WITHOUT_TEXT)]
    return _around(plain[0], 0) if plain else hit.heading[:SNIPPET_CHARS]


def _around(line: str, at: int) -> str:
    if len(line) <= SNIPPET_CHARS:
        return line
    start = max(0, min(at - SNIPPET_CHARS // 3, len(line) - SNIPPET_CHARS + 2))
    text = line[start:start + SNIPPET_CHARS - 2].strip()
    return ("…" if start else "") + text + ("…" if start + SNIPPET_CHARS - 2 < len(line) else "")
