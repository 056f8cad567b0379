"""A pure three-way merge of lines (diff3), with the two ways apm-git settles a clash.

Where both sides changed the same lines of the base differently, git writes conflict
markers.  apm-git never does: append-only indexes and journals take the union of both
versions (each line once), and other free-form text keeps both versions one after the
other between two HTML comment lines that say so (`keep_both`), which lint accepts and a
person reads.  The diff is difflib's, so this module needs neither git nor a disk.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from difflib import SequenceMatcher

from apm_git.checks.append_only import DEPRECATED
from apm_git.model.records import eol_of, split_lines

# The lines that frame the other side's version of clashing free-form lines (docs/merge.md).
OTHER_VERSION = "<!-- apm-git merge: both sides changed the lines above; the other side's version follows. " \
                "Keep what is right, then delete these notes. -->"
OTHER_VERSION_END = "<!-- apm-git merge: end of the other side's version -->"


@dataclasses.dataclass(frozen=True)
class Clash:
    """Lines both sides changed differently: the base's, ours and theirs."""

    base: tuple[str, ...]
    ours: tuple[str, ...]
    theirs: tuple[str, ...]


Chunk = tuple[str, ...] | Clash


def merge3(base: Sequence[str], ours: Sequence[str], theirs: Sequence[str]) -> list[Chunk]:
    """The merged lines as chunks: a tuple of lines is settled, a `Clash` is not."""
    chunks: list[Chunk] = []
    at_base = at_ours = at_theirs = 0
    for base_start, base_end, ours_start, ours_end, theirs_start, theirs_end in _sync_regions(base, ours, theirs):
        old = tuple(base[at_base:base_start])
        mine = tuple(ours[at_ours:ours_start])
        other = tuple(theirs[at_theirs:theirs_start])
        if mine or other or old:
            if mine == other:
                chunks.append(mine)
            elif old == mine:
                chunks.append(other)
            elif old == other:
                chunks.append(mine)
            else:
                chunks.append(Clash(old, mine, other))
        if base_end > base_start:
            chunks.append(tuple(base[base_start:base_end]))
        at_base, at_ours, at_theirs = base_end, ours_end, theirs_end
    return [chunk for chunk in chunks if chunk]


def _sync_regions(
    base: Sequence[str], ours: Sequence[str], theirs: Sequence[str],
) -> Iterator[tuple[int, int, int, int, int, int]]:
    """Runs of base lines that both sides kept unchanged, with where they sit on each side; the last
    is the empty run at the end of all three."""
    mine = SequenceMatcher(None, base, ours, autojunk=False).get_matching_blocks()
    other = SequenceMatcher(None, base, theirs, autojunk=False).get_matching_blocks()
    i = j = 0
    while i < len(mine) and j < len(other):
        a_base, a_at, a_len = mine[i]
        b_base, b_at, b_len = other[j]
        start = max(a_base, b_base)
        end = min(a_base + a_len, b_base + b_len)
        if start < end:
            yield start, end, a_at + start - a_base, a_at + end - a_base, b_at + start - b_base, b_at + end - b_base
        if a_base + a_len < b_base + b_len:
            i += 1
        else:
            j += 1
    yield len(base), len(base), len(ours), len(ours), len(theirs), len(theirs)


def clean(chunks: Sequence[Chunk]) -> bool:
    return not any(isinstance(chunk, Clash) for chunk in chunks)


def union(chunks: Sequence[Chunk]) -> list[str]:
    """Every clash settled as the union of both versions: the lines they share once, ours's lines
    before theirs's where they differ, a line one side marked [DEPRECATED] only in its marked form,
    and no line of theirs that ours's version holds already (blank lines aside)."""
    lines: list[str] = []
    for chunk in chunks:
        _extend(lines, _union_of(chunk.ours, chunk.theirs) if isinstance(chunk, Clash) else list(chunk))
    return lines


def _union_of(ours: Sequence[str], theirs: Sequence[str]) -> list[str]:
    merged: list[str] = []
    matcher = SequenceMatcher(None, ours, theirs, autojunk=False)
    for tag, o_start, o_end, t_start, t_end in matcher.get_opcodes():
        _extend(merged, list(ours[o_start:o_end]))
        if tag in ("insert", "replace"):
            _extend(merged, list(theirs[t_start:t_end]))
    result: list[str] = []
    seen: set[str] = set()
    for line in merged:
        text = line.rstrip("\r\n")
        if text.strip() and text in seen:
            continue
        seen.add(text)
        result.append(line)
    for at, line in enumerate(result):  # a line that one side retired: only the retired form stays
        if DEPRECATED in line:
            plain = next((i for i, old in enumerate(result) if i != at and _retires(old, line)), None)
            if plain is not None and plain < at:
                result[plain] = line
                result[at] = ""
            elif plain is not None:
                result[plain] = ""
    return [line for line in result if line]


def _retires(old: str, new: str) -> bool:
    """Whether `new` is `old` with [DEPRECATED] added (as apm-append-only allows)."""
    old, new = old.rstrip("\r\n"), new.rstrip("\r\n")
    if new == old or new.count(DEPRECATED) <= old.count(DEPRECATED):
        return False
    return " ".join(new.replace(DEPRECATED, "", 1).split()) == " ".join(old.split())


def keep_both(chunks: Sequence[Chunk], newline: str, comment: str = "html") -> list[str]:
    """Every clash settled as ours followed by theirs, framed by two note lines (`comment`: "html" for
    Markdown, "hash" for other `#`-commented text, "yaml" for YAML, whose other version is commented
    out as well).  A side that deleted the lines the other changed yields to the change: nothing is
    lost and nothing needs a note."""
    lines: list[str] = []
    for chunk in chunks:
        if not isinstance(chunk, Clash):
            _extend(lines, list(chunk))
        elif not chunk.ours or not chunk.theirs:
            _extend(lines, list(chunk.ours or chunk.theirs))
        else:
            _extend(lines, list(chunk.ours))
            _extend(lines, [_note(OTHER_VERSION, comment) + newline])
            # YAML: the other version commented out, so the file still reads as YAML (no key twice)
            _extend(lines, [f"# {line}" for line in chunk.theirs] if comment == "yaml" else list(chunk.theirs))
            _extend(lines, [_note(OTHER_VERSION_END, comment) + newline])
    return lines


def _note(text: str, comment: str) -> str:
    if comment == "html":
        return text
    return "# " + text.removeprefix("<!-- ").removesuffix(" -->")


def _extend(lines: list[str], more: list[str]) -> None:
    """Append `more`, giving the last line so far the line end it lacks (it no longer ends the text)."""
    if more and lines and not eol_of(lines[-1]):
        lines[-1] += eol_of(more[0]) or "\n"
    lines.extend(more)


def merge_text(base: str, ours: str, theirs: str, *, how: str, newline: str = "\n",
               comment: str = "html") -> tuple[str, bool]:
    """(merged text, clean): `how` is "union" or "both" (see `union` and `keep_both`)."""
    chunks = merge3(split_lines(base), split_lines(ours), split_lines(theirs))
    if how == "union":
        return "".join(union(chunks)), True
    merged = "".join(keep_both(chunks, newline, comment))
    return merged, not any(isinstance(c, Clash) and c.ours and c.theirs for c in chunks)
