"""apm-index-fresh: `INDEX.md` names exactly the category files and live journals that exist.

A live journal is named by its own row, or by a row that summarizes the older journals of a month,
a year or a span (`2026-01`, `2025`, `2019-03-01 … 2023-12-31`) when they would not fit INDEX.md's
budget; such a row must stand for at least one live journal.

Its figures (lines, dates, recent entries) may lag until the next flush or `apm-git
index`, so a plain edit of a category file never fails this check; a file added,
removed or renamed without rebuilding the index does.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from apm_git.checks.check import Check
from apm_git.model import index_md
from apm_git.model.dated import JOURNAL_NAME
from apm_git.model.names import INDEX, repo_rel
from apm_git.model.snapshot import Finding, Snapshot

ID: Final = "apm-index-fresh"
FIX = "run `apm-git index` (and stage the index)"


def validate(snap: Snapshot) -> Iterator[Finding]:
    path = repo_rel(snap.config.memory_dir, INDEX)
    if path in snap.unreadable:
        return  # apm-record-format reports it
    text = snap.new.get(path)
    if text is None:
        yield Finding(path, 1, ID, f"the memory index is missing; {FIX}")
        return
    reading = index_md.read(text)
    for line, problem in reading.problems:
        yield Finding(path, line, ID, f"{problem}; {FIX}")
    present = {rel for rel in map(snap.rel, snap.files) if rel is not None}
    for name, line in sorted(reading.files.items()):
        if name.startswith("("):  # "(N more files)": a summary row
            continue
        if name.endswith("/"):  # a folder summarized in one row
            if not any(rel.startswith(name) for rel in present):
                yield Finding(path, line, ID, f"names the folder {name}, which holds no memory file; {FIX}")
        elif name not in present:
            yield Finding(path, line, ID, f"names {name}, which does not exist; {FIX}")
    for day, line in sorted(reading.journals.items()):
        if f"{day}.md" not in present:
            yield Finding(path, line, ID, f"names the journal {day}.md, which does not exist; {FIX}")
    live = [name.removesuffix(".md") for name in sorted(present) if JOURNAL_NAME.fullmatch(name)]
    for period, line in sorted(reading.periods.items()):
        if not any(index_md.covers(period, day) for day in live):
            yield Finding(path, line, ID, f"names the journals of {period}, and none of them is live; {FIX}")
    for name in dict.fromkeys(snap.config.routing.values()):
        if name in present and name not in reading.files:
            yield Finding(path, 1, ID, f"does not list the category file {name}; {FIX}")
    for day in live:
        if not reading.lists_journal(day):
            yield Finding(path, 1, ID, f"does not list the journal {day}.md; {FIX}")


CHECK = Check(
    ID, "INDEX.md names a missing file, misses one, or is malformed",
    applies_to="snapshot", severity=60, validate=validate,
)
