"""The query's words, which of them a section holds, and the plain scan of every file (where SQLite has no
FTS5).  `search`, `load` and `recall` use them."""
from __future__ import annotations

import math

from apm_git.errors import TooLarge, UnreadableFile, UsageError
from apm_git.model import names
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.search import sections, terms
from apm_git.search.index import Hit, Scope
from apm_git.store.repo import MemoryRepo, decode


def query_terms(query: str) -> list[terms.Term]:
    wanted = terms.query_terms(query)
    if not wanted:
        raise UsageError("the search query has no words to look for; give one or more words")
    return wanted


def matched(hit: Hit, wanted: list[terms.Term]) -> list[str]:
    """The query's words that the section holds."""
    folded = terms.fold(f"{hit.trail} {hit.heading}\n{hit.text}")
    return [term.word for term in wanted if any(needle in folded for needle in term.needles())]


def scan_sections(
    repo: MemoryRepo, scope: Scope, wanted: list[terms.Term], *, limit: int, archive: bool | None = None,
    under: str | None = None, alike: bool = False,
) -> tuple[list[Hit], int, int, list[str]]:
    """The plain scan: every file of the scope read and split; (best hits, total, files, skipped).  `archive`,
    `under` and `alike` as for `Index.search`: live sections first unless `alike`, when only a tie puts a
    live section first."""
    scored: list[tuple[tuple[float, ...], Hit]] = []
    files, skipped = 0, []
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
        folded_file = terms.fold(text)
        if not any(needle in folded_file for term in wanted for needle in term.needles()):
            continue
        for number, section in enumerate(sections.split(text, path)):
            head = terms.fold(f"{section.trail} {section.heading}")
            body = terms.fold(section.text)
            count, score = 0, 0.0
            for term in wanted:
                hits = sum(4 * head.count(needle) + body.count(needle) for needle in term.needles())
                if hits:
                    count += 1
                    score += 1 + math.log(hits)
            if count:
                hit = Hit(number, path, section.line, section.end, section.heading, section.trail,
                          section.entry_id, section.text, round(score, 3))
                match = (count, hit.score)
                scored.append(((*match, not archived) if alike else (not archived, *match), hit))
    scored.sort(key=lambda item: item[0], reverse=True)
    return [hit for _, hit in scored[:limit]], len(scored), files, skipped
