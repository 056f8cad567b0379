"""`INDEX.md` built from the memory files and written when it changes (flush, consolidation, `index`, init)."""
from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping

from apm_git import layout, names
from apm_git.model import index_md
from apm_git.model.records import parse
from apm_git.repo import MemoryRepo


def build_index(
    repo: MemoryRepo, today: dt.date, exclude: Collection[str] = (), planned: Mapping[str, str | None] | None = None,
) -> str:
    """INDEX.md for the files that exist (memory-relative names in `exclude` count as absent).

    `planned` gives texts by memory-relative name that count instead of the disk's (None: the
    file is gone): a consolidation builds the index of its result before writing any of it.
    """
    overlay = dict(planned or {})

    def read(name: str) -> str | None:
        return overlay[name] if name in overlay else repo.read(name)

    categories: list[tuple[str, str, index_md.FileSummary]] = []
    conflicts: list[index_md.Conflict] = []
    budget = 0
    for kind, name in repo.config.routing.items():
        text = None if name in exclude else read(name)
        if text is None or any(name == seen for _, seen, _ in categories):
            continue
        parsed = parse(text)
        categories.append((kind, name, index_md.summarize(name, parsed)))
        conflicts += index_md.conflicts_of(name, parsed.entries)
        budget += repo.config.budget_for(name) or 0
    present = {*layout.journals(repo), *(name for name in overlay if layout.journal_date(name))}
    journals = {name: read(name) for name in sorted(present, reverse=True) if name not in exclude}
    summaries = [index_md.summarize(name, parse(text)) for name, text in journals.items() if text is not None]
    return index_md.render(today, categories, summaries, conflicts, budget)


def refresh_index(repo: MemoryRepo, today: dt.date, exclude: Collection[str] = ()) -> bool:
    """Rewrite INDEX.md when its text would change; True when it did."""
    text = build_index(repo, today, exclude)
    if repo.read(names.INDEX) == text:
        return False
    repo.write(names.INDEX, text)
    return True
