"""Light Sleep's append: one record dated today at the end of a memory file, under a title no entry there has.
`journal add` and `remember` use it."""
from __future__ import annotations

import dataclasses

from apm_git import clock
from apm_git.errors import UsageError
from apm_git.model.config import KINDS
from apm_git.model.entry_id import entry_id, slugify
from apm_git.model.fitness import VALUES, Fitness
from apm_git.model.limits import MAX_FILE_BYTES, MAX_ITEM_BYTES, megabytes
from apm_git.model.records import parse, ready_to_append, render_record
from apm_git.model.titles import default_title
from apm_git.model.vocabulary import DecisionValue, EntryKind
from apm_git.store.repo import MemoryRepo


@dataclasses.dataclass(frozen=True)
class JournalEntry:
    entry_id: str
    file: str
    line: int


def _clean(text: str, what: str) -> str:
    value = " ".join(text.split())
    if not value:
        raise UsageError(f"{what} is empty; give some text")
    return value


def _within_bounds(text: str, title: str | None, tags: list[str] | None) -> None:
    """Refuse an item past MAX_ITEM_BYTES before the journal is touched: a journal past the read limit
    is never committed again (flush withholds it whole), with every item added to it that day."""
    size = sum(len(part.encode("utf-8", "surrogatepass")) for part in [text, title or "", *(tags or [])])
    if size > MAX_ITEM_BYTES:
        raise UsageError(f"the item is {size:,} bytes, over the {MAX_ITEM_BYTES // 1024} KB one journal item may "
                         "hold; nothing was added: put long material in a memory file of its own and add a short "
                         "item that says where it is")


def unique_title(base: str, date: str, taken: set[str]) -> str:
    """`base`, or `base (2)`, `base (3)`… whose entry id is not taken yet.

    Slugs are cut at MAX_SLUG characters, which would cut the number off a long title
    (and the id would never change): the base loses words until the number fits.
    """
    title, number = base, 2
    while entry_id(date, title) in taken:
        stem = base
        title = f"{stem} ({number})"
        while not slugify(title).endswith(f"-{number}"):
            stem = stem.rsplit(" ", 1)[0] if " " in stem else stem[: len(stem) // 2]
            title = f"{stem} ({number})"
        number += 1
    return title


def append_record(
    repo: MemoryRepo,
    rel: str,
    new_file: str,
    text: str,
    *,
    kind: EntryKind,
    title: str | None = None,
    tags: list[str] | None = None,
    value: DecisionValue = "MEDIUM",
) -> JournalEntry:
    """Append a record dated today to the memory file `rel` (made from `new_file` when absent).

    The caller holds the write lock.  A title whose id the file already has gets " (2)", " (3)"….
    """
    if kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}; use one of {', '.join(KINDS)}")
    if value not in VALUES:
        raise UsageError(f"unknown value {value!r}; use HIGH, MEDIUM or LOW")
    _within_bounds(text, title, tags)
    lines = [line.rstrip() for line in text.strip().splitlines()]
    body = _clean(lines[0] if lines else "", "the entry text")
    extra = [f"  {line}" if line else "" for line in lines[1:]]
    base_title = _clean(title, "--title").lstrip("[") if title else default_title(body)
    tag_list = [kind] + [tag for tag in dict.fromkeys(t.strip() for t in tags or []) if tag and tag != kind]
    today = clock.today()
    current = repo.read(rel)
    if current is None:
        current = new_file
    parsed = parse(current)
    entry_title = unique_title(base_title, today.isoformat(), {record.id for record in parsed.records})
    newline = parsed.newline
    current = ready_to_append(current, newline)
    line = current.count("\n") + 1
    record = render_record(
        today, entry_title, tag_list, Fitness(today, 0, value), body,
        extra_lines=extra, newline=newline,
    )
    after = len(current.encode("utf-8", "surrogatepass")) + len(record.encode("utf-8", "surrogatepass"))
    if after > MAX_FILE_BYTES:
        raise UsageError(f"{repo.repo_path(rel)} would grow to {megabytes(after)}, past the "
                         f"{megabytes(MAX_FILE_BYTES)} apm-git reads; nothing was added: start a file of its own "
                         "for long material")
    repo.write(rel, current + record)
    return JournalEntry(entry_id(today.isoformat(), entry_title), repo.repo_path(rel), line)
