"""Light Sleep's append: one record dated today at the end of a memory file, under a title no entry there has.
`journal add` and `remember` use it (and the MCP tools that call them).

What looks like a credential is refused here, where it is written (issue 23): one line naming the kind and
where, never the secret, and nothing written.  `--allow-secret` writes it anyway with the detect-secrets
pragma at the end of each flagged line, which the scanner honours, so no flush withholds it afterwards.
"""
from __future__ import annotations

import dataclasses

from apm_git import clock
from apm_git.errors import SecretRefused, UsageError
from apm_git.model.config import KINDS
from apm_git.model.entry_id import entry_id, slugify
from apm_git.model.fitness import VALUES, Fitness
from apm_git.model.limits import MAX_FILE_BYTES, MAX_ITEM_BYTES, megabytes
from apm_git.model.records import parse, ready_to_append, render_record
from apm_git.model.titles import default_title
from apm_git.model.vocabulary import DecisionValue, EntryKind
from apm_git.secret_scan.prefilter import ALLOW_COMMENT
from apm_git.store.repo import MemoryRepo

_TAGS_LINE, _BODY_LINE = 2, 4  # of a record render_record writes: heading, Tags, Fitness, Body, the longer body


def suspected(text: str) -> dict[int, list[str]]:
    """The kinds of credential each line of `text` seems to hold (1-based lines; none: {})."""
    from apm_git.secret_scan import scan

    found: dict[int, list[str]] = {}
    for suspect in scan(text):
        if suspect.kind not in found.setdefault(suspect.line, []):
            found[suspect.line].append(suspect.kind)
    return found


def refusal(where: str, what: str, kinds: list[str], allow_secret: bool) -> str:
    """The one line of a refused write: the file, the part, the kinds; never the secret."""
    way_out = ("--allow-secret marks the text only: give one without it" if allow_secret else
               "keep secrets out of memory (note where the secret lives instead), or if it is not one, "
               "write it again with --allow-secret")
    return f"{where}: not written: {what} looks like a credential ({', '.join(kinds)}); {way_out}"


def allowed(line: str) -> str:
    """A line with the pragma the scanner honours (`pragma: allowlist secret`) at its end."""
    return f"{line} {ALLOW_COMMENT}"


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
    allow_secret: bool = False,
) -> JournalEntry:
    """Append a record dated today to the memory file `rel` (made from `new_file` when absent).

    The caller holds the write lock.  A title whose id the file already has gets " (2)", " (3)"….
    A record that looks like it holds a credential is refused unless `allow_secret` (module docstring).
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
    flagged = suspected(record)
    if flagged:
        where = repo.repo_path(rel)
        first = min(flagged)
        if first <= _TAGS_LINE:  # the pragma would change the title (and so the entry id) or the tags
            part = "title (--title, or the text's first words)" if first == 1 else "tags (--tags)"
            raise SecretRefused(refusal(where, f"the entry's {part}", flagged[first], allow_secret))
        if not allow_secret:
            raise SecretRefused(refusal(where, f"line {first - _BODY_LINE + 1} of the entry's text", flagged[first],
                                        allow_secret))
        body = allowed(body) if _BODY_LINE in flagged else body
        extra = [allowed(line) if _BODY_LINE + 1 + index in flagged else line for index, line in enumerate(extra)]
        record = render_record(today, entry_title, tag_list, Fitness(today, 0, value), body,
                               extra_lines=extra, newline=newline)
    after = len(current.encode("utf-8", "surrogatepass")) + len(record.encode("utf-8", "surrogatepass"))
    if after > MAX_FILE_BYTES:
        raise UsageError(f"{repo.repo_path(rel)} would grow to {megabytes(after)}, past the "
                         f"{megabytes(MAX_FILE_BYTES)} apm-git reads; nothing was added: start a file of its own "
                         "for long material")
    repo.write(rel, current + record)
    return JournalEntry(entry_id(today.isoformat(), entry_title), repo.repo_path(rel), line)
