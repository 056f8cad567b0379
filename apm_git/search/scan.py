"""The query's words, which of them a passage holds, and the plain scan of every file (where SQLite has no
FTS5).  `search`, `load` and `recall` use them."""
from __future__ import annotations

import math
from collections import Counter

from apm_git.errors import TooLarge, UnreadableFile, UsageError
from apm_git.model import names
from apm_git.model import text_sections as sections
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.search import boiler, passages, terms
from apm_git.search.index import Hit, Said, SearchScope
from apm_git.store.repo import MemoryRepo, decode

NO_WORDS = "the search query has no words to look for; give one or more words"


def query_terms(query: str) -> list[terms.Term]:
    wanted = terms.query_terms(query)
    if not wanted:
        raise UsageError(NO_WORDS)
    return wanted


def matched(hit: Hit, wanted: list[terms.Term], *, whole: bool = False) -> list[str]:
    """The query's words that the hit's passage (its section, when `whole`) holds, with its heading, the headings
    above and the file's path."""
    content, labels = passages.matchable((hit.text if whole else hit.passage_text).split("\n"))
    found = set(terms.tokens(f"{sections.place_of(hit.path)} {hit.trail} {hit.heading} {labels}\n{content}"))
    return [term.word for term in wanted if term.holds(found)]


def scan_sections(
    repo: MemoryRepo, scope: SearchScope, wanted: list[terms.Term], *, limit: int, archive: bool | None = None,
    under: str | None = None, alike: bool = False, per_section: bool = True,
) -> tuple[list[Hit], int, int, list[str]]:
    """The plain scan: every file of the scope read and split; (best hits, sections matched, files, skipped).
    A passage ranks by how many of the query's words it holds, then by their occurrences (heading ×4); a
    section by its best passage (`per_section`), or every passage on its own.  `archive`, `under` and `alike`
    as for `Index.search`: live passages first unless `alike`, when only a tie puts a live one first."""
    scored: list[tuple[tuple[float, ...], Hit]] = []
    files, skipped, sections_matched = 0, [], 0
    for path, stat in scope.files(repo):
        archived = path.startswith(f"{names.ARCHIVE}/")
        if (archive is not None and archived != archive) or (under and not path.startswith(under)):
            continue
        files += 1
        try:
            if stat.st_size > MAX_FILE_BYTES:
                raise TooLarge(repo.repo_path(path), stat.st_size, MAX_FILE_BYTES)
            text = decode((repo.memory / path).read_bytes(), repo.repo_path(path))
        except UnreadableFile as error:
            skipped.append(str(error))
            continue
        except OSError as error:
            skipped.append(f"{repo.repo_path(path)}: {error.strerror}")
            continue
        found_file = set(terms.tokens(text))
        if not any(term.holds(found_file) for term in wanted):
            continue
        for number, section in enumerate(sections.split(text, path)):
            if boiler.untouched(section):
                continue
            head = Counter(terms.tokens(f"{section.heading} {sections.place_of(path)} {section.trail}"))
            best: list[tuple[tuple[float, ...], Hit]] = []
            for passage in passages.split(section):
                body = Counter(terms.tokens(f"{passage.content} {passage.labels}"))
                count, score = 0, 0.0
                for term in wanted:
                    hits = 4 * _occurrences(head, term) + _occurrences(body, term)
                    if hits:
                        count += 1
                        score += 1 + math.log(hits)
                if count:
                    hit = Hit(number, path, section.line, section.end, section.heading, section.trail,
                              section.entry_id, section.text, round(score, 3), section.date,
                              (passage.line, passage.last))
                    match = (count, hit.score)
                    best.append(((*match, not archived) if alike else (not archived, *match), hit))
            if best:
                sections_matched += 1
                scored += best
    scored.sort(key=lambda item: item[0], reverse=True)  # stable: a section's passages in the file's order
    page: list[Hit] = []
    seen: set[tuple[str, int]] = set()
    said = Said()
    for _, hit in scored:
        if len(page) >= limit:
            break
        if (per_section and (hit.path, hit.line) in seen) or said.again(hit):
            continue  # as the index pages its hits: a section once, the same words once
        seen.add((hit.path, hit.line))
        page.append(hit)
    return page, sections_matched, files, skipped


def _occurrences(found: Counter[str], term: terms.Term) -> int:
    return sum(found[token] for token in term.exact) + sum(
        count for token, count in found.items() if any(token.startswith(prefix) for prefix in term.prefixes))
