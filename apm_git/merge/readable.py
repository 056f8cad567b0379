"""Which versions of a memory file the entry-level merge can read, and what a merge does with the
others (docs/merge.md, "Files the merge cannot read").

A Markdown file or a state file of the memory is read entry by entry: its version on a side is
readable when it is at most MAX_FILE_BYTES, valid UTF-8, and holds no NUL byte (UTF-16 without a
byte-order mark decodes as UTF-8 full of NULs, and would parse as a file with no entries).  A
version that is not readable is never merged entry by entry, since its entries cannot be seen:
the merge would take them for deleted.  So a merge stops (`screen` returns a `Refusal`) whenever
it would have to give up a readable version for an unreadable one, and takes an unreadable
version whole only when nothing readable is given up for it.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from apm_git.model.limits import MAX_FILE_BYTES, megabytes
from apm_git.model.names import STATE_FILES, memory_rel

BASE, OURS, THEIRS = 0, 1, 2
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def must_read(memory_dir: str, path: str) -> bool:
    """Whether the merge reads `path` entry by entry (a Markdown or state file of the memory dir); other
    files are text merged by lines when they are UTF-8, and taken whole from the side that changed them."""
    rel = memory_rel(memory_dir, path)
    return rel is not None and (rel.endswith(".md") or rel in STATE_FILES)


def why_unreadable(data: bytes | None, size: int) -> str | None:
    """Why the merge cannot read a version of `size` bytes (`data`: its bytes, None when it was too large
    to be read at all); None when it can."""
    if data is None or size > MAX_FILE_BYTES:
        return f"is {megabytes(size)}, over the {megabytes(MAX_FILE_BYTES)} apm-git merges entry by entry"
    if data.startswith(UTF16_BOMS):
        return "is UTF-16, not UTF-8"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"is not valid UTF-8 (byte {error.start})"
    if "\0" in text:
        return "holds NUL bytes (binary, or UTF-16 without a byte-order mark), not UTF-8 text"
    return None


@dataclasses.dataclass(frozen=True)
class Refusal:
    """A file the merge cannot merge: its version on `side` (OURS or THEIRS) is unreadable, and taking it
    whole would give up a readable version (the base's, or the other side's change)."""

    path: str
    side: int
    why: str


@dataclasses.dataclass
class Screened:
    refused: list[Refusal] = dataclasses.field(default_factory=list)
    # paths whose versions are left out of the entry merge on every side: git's own merge keeps what both
    # sides agree on, or the one side's change
    aside: set[str] = dataclasses.field(default_factory=set)


def screen(
    blobs: Sequence[Mapping[str, str]], unreadable: Sequence[Mapping[str, str]], *, memory_dir: str,
) -> Screened:
    """The files of a three-way merge that hold an unreadable version (`unreadable[side]`: path -> why), and
    what becomes of each.  `blobs[side]`: path -> blob id on the base, ours and theirs.

    - Both sides hold the same version: nothing to merge, it stays (aside).
    - A side changed the file and its version is unreadable: refused when the base's version was
      readable (that side's change made the entries unreadable) or the other side changed the file too
      (two changes, one of them unreadable: nothing to merge them by).  Otherwise (the base was unreadable
      or absent too, the other side left it as it was) that side's version is taken whole (aside).
    - An unreadable version that its side left as the base had it: the other side's change is taken
      (the caller has no text for either, so the merge sees only the readable side).
    - Only the base's version is unreadable: the sides are merged as files new to both (the base left out).
    """
    result = Screened()
    paths = sorted({path for side in unreadable for path in side})
    for path in paths:
        if not must_read(memory_dir, path):
            continue
        base, ours, theirs = (side.get(path) for side in blobs)
        if ours == theirs:
            result.aside.add(path)
            continue
        changed = {OURS: ours != base, THEIRS: theirs != base}
        was_readable = base is not None and path not in unreadable[BASE]
        refused = [
            Refusal(path, side, unreadable[side][path]) for side, other in ((THEIRS, OURS), (OURS, THEIRS))
            if path in unreadable[side] and changed[side] and (was_readable or changed[other])
        ]
        if refused:
            result.refused.append(refused[0])
        elif any(path in unreadable[side] and changed[side] for side in (OURS, THEIRS)):
            result.aside.add(path)  # the one change, unreadable, to a file that was not readable before
    return result


def readable_texts(
    texts: Mapping[str, str], datas: Mapping[str, bytes], sizes: Mapping[str, int], *, memory_dir: str,
) -> tuple[dict[str, str], dict[str, str]]:
    """One side of a merge: the texts the entry merge may read (`texts` less the unreadable versions of
    the files it must read), and those files' paths -> why they are unreadable.  `datas`: the bytes of the
    files small enough to be read; `sizes`: every file's size."""
    kept, unreadable = dict(texts), {}
    for path, size in sizes.items():
        if must_read(memory_dir, path):
            why = why_unreadable(datas.get(path), size)
            if why is not None:
                unreadable[path] = why
                kept.pop(path, None)
    return kept, unreadable
