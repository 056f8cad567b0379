"""Settle a conflict (`apm-git resolve ID --keep this|other|both`): a pure function of texts and a date.

A sync merge that found an entry's body changed differently on both sides kept both versions, linked
by `Conflicts:` (docs/merge.md).  Settling keeps one and records the other where apm-no-loss finds it,
so nothing is ever lost:

- `this` keeps the entry ID and `other` keeps the version its `Conflicts:` names.  The kept version
  gains `Supersedes: <other id> — <one line of its body>`; the other goes to `archive/YYYY-MM.md`
  whole, with `Superseded-by:` and `Archived:`, as REM archives a superseded entry.
- `both` keeps one entry holding both versions: ID keeps its body and gains the other version's
  body (and longer body) as lines after its fields, and `Merged: <other id>`; the other is folded in.

Either way the `Conflicts:` part that linked the two is dropped from the kept version (any other
conflict it lists stays), and the commit carries the trailers REM writes for the same move
(`Apm-Supersede` and `Apm-Archive`, or `Apm-Move … (merged into …)`) and `Apm-Resolve`.
"""
from __future__ import annotations

import dataclasses
import datetime as dt

from apm_git.dreaming.archive import add_to_archive, archived
from apm_git.dreaming.edit import rewrite
from apm_git.dreaming.score import fitness_of, record_score
from apm_git.errors import FindingsError, UsageError
from apm_git.model import dated
from apm_git.model.config import Config
from apm_git.model.entry_id import ENTRY_ID
from apm_git.model.names import repo_rel
from apm_git.model.records import Record, RecordFile, parse, reparse, set_field, strip_eol
from apm_git.model.vocabulary import KEEPS, Keep

SUMMARY_CHARS = 100
OTHER_VERSION = "Other version (kept by `apm-git resolve --keep both`):"  # then its body, on the same line


@dataclasses.dataclass(frozen=True)
class Settled:
    entry: str  # the id given
    other: str  # the id it was in conflict with
    keep: Keep
    kept: str  # the id that stays live
    gone: str | None  # the id that went (superseded or merged), None when it was no longer there
    how: str | None  # "superseded" or "merged" (None: nothing went)
    kept_file: str  # memory-relative
    archive: str | None  # memory-relative: where the superseded version went
    writes: dict[str, str]  # memory-relative path -> new text
    read: dict[str, str]  # memory-relative path -> the text it was planned from
    trailers: list[tuple[str, str]]


def conflict_ids(record: Record) -> list[str]:
    """The ids a record's `Conflicts:` field names, in order (`<id> — <what>`, parts separated by `;`)."""
    found = []
    for part in (record.field("Conflicts") or "").split(";"):
        match = ENTRY_ID.match(part.strip())
        if match and match[0] not in found:
            found.append(match[0])
    return found


def settle(texts: dict[str, str], entry_id: str, keep: str, other_id: str | None, today: dt.date,
           config: Config, archive_text: str | None) -> Settled:
    """Settle the conflict of `entry_id` in the record files `texts` (memory-relative path -> text; the
    live files only).  `archive_text` is this month's archive (`dated.archive_file(today)`) or None."""
    if keep not in KEEPS:
        raise UsageError(f"--keep {keep!r}: use one of {', '.join(KEEPS)}")
    where = _find(texts, entry_id)
    if where is None:
        raise FindingsError(f"no live entry {entry_id}; nothing was changed — `apm-git status` lists the entries "
                            "in conflict")
    record = where[1]
    linked = conflict_ids(record)
    if not linked:
        raise FindingsError(f"{entry_id} is not in conflict (it has no Conflicts field); nothing was changed")
    if other_id is None:
        if len(linked) > 1:
            raise UsageError(f"{entry_id} is in conflict with {', '.join(linked)}; name one with --with ID")
        other_id = linked[0]
    elif other_id not in linked:
        raise UsageError(f"{entry_id} is not in conflict with {other_id} (its Conflicts field names "
                         f"{', '.join(linked)}); nothing was changed")
    other = _find(texts, other_id)
    if other is None and keep == "other":
        raise FindingsError(f"{other_id} is no longer a live entry, so it cannot be kept; "
                            f"`apm-git resolve {entry_id} --keep this` drops the link")
    (kept_file, kept_record), gone_where = (other, where) if keep == "other" and other else (where, other)
    kept_id = kept_record.id
    gone_id = other_id if kept_id == entry_id else entry_id
    kept_record = _unlinked(kept_record, gone_id)
    files = {name: parse(text) for name, text in texts.items()}
    replace: dict[str, dict[int, Record | None]] = {}
    trailers: list[tuple[str, str]] = []
    archive_name: str | None = None
    writes: dict[str, str] = {}
    how = None
    prefix = config.memory_dir
    if gone_where is not None:
        gone_file, gone_record = gone_where
        gone_record = _unlinked(gone_record, kept_id)
        if keep == "both":
            how = "merged"
            kept_record = _folded(kept_record, gone_record)
            trailers.append(("Apm-Move", f"{gone_id} {prefix}/{gone_file} -> {prefix}/{kept_file} "
                                         f"(merged into {kept_id})"))
        else:
            how = "superseded"
            summary = _summary(gone_record)
            kept_record = set_field(kept_record, "Supersedes", _with_part(kept_record.field("Supersedes"),
                                                                           f"{gone_id} — {summary}"))
            archive_name = dated.archive_file(today)
            points = record_score(gone_record, today, config.rem)
            writes[archive_name] = add_to_archive(archive_text, archive_name, [archived(
                gone_record, fitness_of(gone_record), today, points, repo_rel(prefix, gone_file), kept_id)])
            trailers += [("Apm-Supersede", f"{gone_id} -> {kept_id}"),
                         ("Apm-Archive", f"{gone_id} {prefix}/{gone_file} -> {prefix}/{archive_name} "
                                         f"(score {points})")]
        replace.setdefault(gone_file, {})[_index(files[gone_file], gone_id)] = None
    replace.setdefault(kept_file, {})[_index(files[kept_file], kept_id)] = kept_record
    for name, blocks in replace.items():
        writes[name] = rewrite(files[name], blocks)
    trailers.append(("Apm-Resolve", f"{entry_id} --keep {keep} (in conflict with {other_id})"))
    read = {name: texts.get(name, "") for name in writes}
    if archive_name is not None:
        read[archive_name] = archive_text or ""
    return Settled(entry_id, other_id, keep, kept_id, gone_id if gone_where else None, how, kept_file,
                   archive_name, writes, read, trailers)


def _find(texts: dict[str, str], entry_id: str) -> tuple[str, Record] | None:
    for name in sorted(texts):
        for record in parse(texts[name]).entries:
            if record.id == entry_id:
                return name, record
    return None


def _index(parsed: RecordFile, entry_id: str) -> int:
    return next(index for index, block in enumerate(parsed.blocks)
                if isinstance(block, Record) and block.ok and block.id == entry_id)


def _named(part: str) -> str | None:
    match = ENTRY_ID.match(part)
    return match[0] if match else None


def conflict_parts(value: str) -> list[str]:
    """The parts of a `Conflicts:` field, each `<id> — <what>`: split at `;`, a piece that names no id
    belonging to the part before it (notes of older versions held a `;`)."""
    parts: list[str] = []
    for piece in value.split(";"):
        if parts and _named(piece.strip()) is None:
            parts[-1] += ";" + piece
        elif piece.strip():
            parts.append(piece)
    return [part.strip() for part in parts if part.strip()]


def _unlinked(record: Record, other_id: str) -> Record:
    """The record less the part of its `Conflicts:` field that names `other_id` (the field less, when no
    other part is left)."""
    left = [part for part in conflict_parts(record.field("Conflicts") or "") if _named(part) != other_id]
    if left:
        return set_field(record, "Conflicts", "; ".join(left))
    lines = [line for offset, line in enumerate(record.lines)
             if not any(field.offset == offset and field.name == "Conflicts" for field in record.fields)]
    return reparse(lines, record.line_no)


def _folded(kept: Record, other: Record) -> Record:
    """`kept` holding `other`'s version too: its body and longer body as lines after the fields, and
    `Merged:` naming it."""
    record = set_field(kept, "Merged", _with_part(kept.field("Merged"), other.id, separator=", "))
    newline = record.newline
    lines = [strip_eol(line) for line in record.lines]
    blank = 0
    while lines and not lines[-1].strip():
        lines.pop()
        blank += 1
    lines += [f"{OTHER_VERSION} {other.body}", *other.extra_lines]
    return reparse((newline.join(lines) + newline * (1 + blank)).splitlines(keepends=True), kept.line_no)


def _with_part(value: str | None, part: str, separator: str = "; ") -> str:
    parts = [piece.strip() for piece in (value or "").split(separator.strip()) if piece.strip()]
    return separator.join([*parts, part]) if part not in parts else separator.join(parts)


def _summary(record: Record) -> str:
    text = " ".join(record.body.split()).replace(";", ",")
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1].rstrip() + "…"
