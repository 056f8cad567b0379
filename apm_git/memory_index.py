"""`INDEX.md` built from the memory files and written when it changes (flush, consolidation, `index`, init)."""
from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping

from apm_git import layout, names
from apm_git.model import index_md
from apm_git.model.records import parse
from apm_git.repo import MemoryRepo, TooLarge, megabytes


def build_index(
    repo: MemoryRepo, today: dt.date, exclude: Collection[str] = (), instead: Mapping[str, str | None] = {},
) -> str:
    """INDEX.md for the files that exist.

    Memory-relative names in `exclude` count as absent, and those in `instead` are read as
    the text given there (None: absent).  Flush builds the index of what it commits, so a file
    it withholds counts as its committed version (or as absent when it has none), and nothing of
    its new text (a journal title holding a token) reaches the committed index; a consolidation
    builds the index of its result before writing any of it (its planned texts, moved files None).
    """

    def read(name: str) -> str | None:
        return None if name in exclude else instead[name] if name in instead else repo.read(name)

    categories: list[tuple[str, str, index_md.FileSummary]] = []
    conflicts: list[index_md.Conflict] = []
    budget = 0
    for kind, name in repo.config.routing.items():
        if any(name == seen for _, seen, _ in categories):
            continue
        try:
            text = read(name)
        except TooLarge as error:
            categories.append((kind, name, _unread(repo, name, error)))
            budget += repo.config.budget_for(name) or 0
            continue
        if text is None:
            continue
        parsed = parse(text)
        categories.append((kind, name, index_md.summarize(name, parsed)))
        conflicts += index_md.conflicts_of(name, parsed.entries)
        budget += repo.config.budget_for(name) or 0
    live = set(layout.journals(repo)) | {name for name in instead if layout.journal_date(name)}
    summaries = []
    for name in sorted(live, reverse=True):
        if name in exclude:
            continue
        try:
            text = read(name)
        except TooLarge as error:
            summaries.append(_unread(repo, name, error))
            continue
        if text is not None:
            summaries.append(index_md.summarize(name, parse(text)))
    return index_md.render(today, categories, summaries, conflicts, budget)


def _unread(repo: MemoryRepo, name: str, error: TooLarge) -> index_md.FileSummary:
    """The index row of a file too large to read: its line count, and why there is no more."""
    return index_md.FileSummary(name, repo.count_lines(name), "—", (f"not indexed: {megabytes(error.size)}",))


def refresh_index(
    repo: MemoryRepo, today: dt.date, exclude: Collection[str] = (), instead: Mapping[str, str] = {},
) -> bool:
    """Rewrite INDEX.md when its text would change; True when it did."""
    text = build_index(repo, today, exclude, instead)
    if repo.read(names.INDEX) == text:
        return False
    repo.write(names.INDEX, text)
    return True
