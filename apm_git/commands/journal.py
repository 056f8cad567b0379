"""`apm-git journal add`: Light Sleep, one record appended to today's journal (and the append itself)."""
from __future__ import annotations

from apm_git import clock
from apm_git.model import dated
from apm_git.model.vocabulary import DecisionValue, EntryKind
from apm_git.operations.journal import JournalEntry, append_record
from apm_git.store import layout
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import write_lock


def add(
    repo: MemoryRepo,
    text: str,
    *,
    kind: EntryKind,
    title: str | None = None,
    tags: list[str] | None = None,
    value: DecisionValue = "MEDIUM",
    allow_secret: bool = False,
) -> JournalEntry:
    with write_lock(repo):
        today = clock.today()
        return append_record(
            repo, dated.journal_name(today), layout.new_journal(today), text, kind=kind, title=title, tags=tags,
            value=value, allow_secret=allow_secret,
        )
