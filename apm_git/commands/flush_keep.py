"""A flush never commits a loss (issue 13): what it commits instead of the work tree's bytes.

An entry that is gone from the work tree with no record of where it went (archived,
merged, superseded, forgotten: see apm-no-loss) stays committed as HEAD has it.  The
committed text of its file is the work tree's with the lost records put back where they
stood; a deleted file is committed as HEAD has it, less the records that went elsewhere.
A tracked file that is no longer valid UTF-8 keeps its HEAD version: its entries cannot
be read, so committing it could destroy them unseen.  The work tree is never touched.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping

from apm_git.checks import no_loss
from apm_git.checks.snapshot import Snapshot
from apm_git.memory_index import build_index
from apm_git.model.reinsert import drop_records, keep_records
from apm_git.repo import InvalidUtf8, MemoryRepo

SHOWN = 10  # entries named in the one line; `apm-git lint` lists them all


@dataclasses.dataclass
class Kept:
    lost: dict[str, str] = dataclasses.field(default_factory=dict)  # entry id -> repo path it stood in at HEAD
    contents: dict[str, bytes] = dataclasses.field(default_factory=dict)  # repo path -> bytes to commit
    as_head: list[str] = dataclasses.field(default_factory=list)  # repo paths left out: HEAD's version stays
    unreadable: list[str] = dataclasses.field(default_factory=list)  # tracked files that are not UTF-8 any more

    @property
    def held(self) -> set[str]:
        """Paths whose work tree bytes are not committed."""
        return {*self.contents, *self.as_head}


def keep_losses(snap: Snapshot) -> Kept:
    """What the commit holds instead of the work tree for lost entries and unreadable files; `snap`
    becomes the snapshot of that commit, so the checks see what is committed."""
    kept = Kept()
    kept.unreadable = sorted(path for path in snap.unreadable if snap.at_base(path) and path in snap.base)
    lost = no_loss.lost(snap)
    by_path: dict[str, set[str]] = {}
    for entry, (path, _) in lost.items():
        by_path.setdefault(path, set()).add(entry)
    as_head = list(kept.unreadable)
    for path, ids in sorted(by_path.items()):
        base = snap.base.get(path)
        if base is None:  # HEAD's own version cannot be read: nothing to put back from
            continue
        kept.lost.update(dict.fromkeys(sorted(ids), path))
        if path in snap.new:
            text = keep_records(snap.new[path], base, ids)
        else:  # the file is gone: HEAD's version, less what went elsewhere
            text = drop_records(base, set(snap.base_entries(path)) - ids)
        if text == base:
            as_head.append(path)
        else:
            kept.contents[path] = text.encode("utf-8")
            snap.commit_as(path, text)
    snap.leave_out(as_head)
    kept.as_head = sorted(as_head)
    return kept


def committed_index(
    repo: MemoryRepo, snap: Snapshot, kept: Kept, today: dt.date, exclude: list[str], instead: Mapping[str, str],
) -> str | None:
    """INDEX.md as the commit needs it when a file the commit holds is missing or unreadable in the work
    tree (so the work tree's INDEX.md would not name it); None when the work tree's serves.  `exclude`
    and `instead` are the withheld files' (see `build_index`)."""
    texts: dict[str, str] = {}
    for path in kept.held:
        rel = repo.memory_rel(path)
        if rel is not None and path in snap.new and (path in kept.unreadable or not (repo.root / path).is_file()):
            texts[rel] = snap.new[path]
    if not texts:
        return None
    try:
        return build_index(repo, today, exclude, {**instead, **texts})
    except InvalidUtf8:  # another unreadable file: the work tree's INDEX.md is the best there is
        return None


def loss_line(kept: Kept) -> str:
    """One line: which entries the commit kept, and the way out."""
    ids = list(kept.lost)
    named = ", ".join(f"{entry} ({kept.lost[entry]})" for entry in ids[:SHOWN])
    more = f" and {len(ids) - SHOWN} more (`apm-git lint` lists them)" if len(ids) > SHOWN else ""
    count = f"{len(ids)} entr{'y is' if len(ids) == 1 else 'ies are'}"
    return (
        f"{count} gone from the work tree with no record of where {'it' if len(ids) == 1 else 'they'} went, so "
        f"the commit keeps {'it' if len(ids) == 1 else 'them'} as HEAD has {'it' if len(ids) == 1 else 'them'}: "
        f"{named}{more}; restore {'it' if len(ids) == 1 else 'them'} (`git show HEAD:FILE`), or delete "
        f"deliberately with `apm-git forget {' '.join(ids[:SHOWN])}{' …' if more else ''} --reason TEXT`"
    )


def unreadable_line(path: str, line: int, why: str) -> str:
    return f"{path}:{line}: cannot be read: {why}; the commit keeps its HEAD version, so none of its entries is lost"
