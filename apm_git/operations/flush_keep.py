"""A flush never commits a loss (issue 13): what it commits instead of the work tree's bytes.

An entry that is gone from the work tree with no record of where it went (archived,
merged, superseded, forgotten: see apm-no-loss) stays committed as HEAD has it.  The
committed text of its file is the work tree's with the lost records put back where they
stood; a deleted file is committed as HEAD has it, less the records that went elsewhere.
The same holds for whole files (most agent memory is free-form Markdown, with no record
in it): a tracked file that is gone from the work tree (deleted or emptied) keeps its HEAD
version unless the user staged the change (`git rm`, `git add`) or its text is elsewhere.  A tracked file that is no
longer valid UTF-8 keeps its HEAD version: its entries cannot be read, so committing it
could destroy them unseen.  The work tree is never touched.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping
from pathlib import Path

from apm_git import git
from apm_git.checks import no_loss, no_secrets
from apm_git.errors import InvalidUtf8
from apm_git.model import names
from apm_git.model.reinsert import drop_records, keep_records
from apm_git.model.snapshot import INDEX, Finding, Snapshot
from apm_git.model.withhold import WithheldSection, sections_of, withhold
from apm_git.store.memory_index import Memo, build_index
from apm_git.store.repo import MemoryRepo

SHOWN = 10  # entries named in the one line; `apm-git lint` lists them all
SHOWN_FILES = 5  # files named in the one line; `git status` lists them all


@dataclasses.dataclass
class KeptAtFlush:
    lost: dict[str, str] = dataclasses.field(default_factory=dict)  # entry id -> repo path it stood in at HEAD
    contents: dict[str, bytes] = dataclasses.field(default_factory=dict)  # repo path -> bytes to commit
    as_head: list[str] = dataclasses.field(default_factory=list)  # repo paths left out: HEAD's version stays
    unreadable: list[str] = dataclasses.field(default_factory=list)  # tracked files that are not UTF-8 any more
    files: list[str] = dataclasses.field(default_factory=list)  # tracked files gone from the work tree, kept

    @property
    def held(self) -> set[str]:
        """Paths whose work tree bytes are not committed."""
        return {*self.contents, *self.as_head}


@dataclasses.dataclass
class Withheld:
    whole: list[str] = dataclasses.field(default_factory=list)  # files left out of the commit whole
    contents: dict[str, str] = dataclasses.field(default_factory=dict)  # path -> text committed: sections left out
    sections: list[WithheldSection] = dataclasses.field(default_factory=list)


def withhold_secrets(snap: Snapshot, secrets: Iterable[Finding]) -> Withheld:
    """What flush commits of the files with a suspected secret (docs/secrets.md, "Withheld sections"):
    each file less the sections that hold one (as HEAD has them, or left out), so the rest of the day's
    journal is committed.  A new file with nothing else in it, or one whose HEAD text cannot be read,
    is left out whole."""
    by_path: dict[str, list[Finding]] = {}
    for finding in secrets:
        by_path.setdefault(finding.path, []).append(finding)
    withheld = Withheld()
    for path, found in sorted(by_path.items()):
        text = snap.new.get(path)
        kinds = {finding.line: no_secrets.kinds(finding) for finding in found}
        if text is not None:
            withheld.sections += [
                WithheldSection(path, section.line, None if section.heading_flagged else section.heading,
                                kinds[section.line])
                for section in sections_of(text, kinds)
            ]
        new_file = not snap.at_base(path)
        base = snap.base.get(path)
        if text is None or (base is None and not new_file):
            withheld.whole.append(path)
            continue
        committed = withhold(text, base, kinds)
        if (new_file and not holds_text(committed)) or committed == base:
            withheld.whole.append(path)
        else:
            withheld.contents[path] = committed
    untracked = {path for path in withheld.whole if not snap.at_base(path)}  # nothing of it is committed anywhere
    withheld.sections = [section._replace(whole=section.path in untracked) for section in withheld.sections]
    return withheld


def keep_losses(snap: Snapshot, root: Path | None = None) -> KeptAtFlush:
    """What the commit holds instead of the work tree for lost entries, gone files and unreadable files;
    `snap` becomes the snapshot of that commit, so the checks see what is committed.  `root` is the
    repository whose index says which changes the user staged (none without it)."""
    kept = KeptAtFlush()
    kept.unreadable = sorted(path for path in snap.unreadable if snap.at_base(path) and path in snap.base)
    lost = no_loss.lost(snap)
    by_path: dict[str, set[str]] = {}
    for entry, (path, _) in lost.items():
        by_path.setdefault(path, set()).add(entry)
    as_head = list(kept.unreadable)
    gone = gone_files(snap)
    if gone and root is not None:
        gone -= git.staged(root, snap.config.memory_dir)
    for path, ids in sorted(by_path.items()):
        base = snap.base.get(path)
        if base is None:  # HEAD's own version cannot be read: nothing to put back from
            continue
        kept.lost.update(dict.fromkeys(sorted(ids), path))
        if path in snap.new and path not in gone:
            text = keep_records(snap.new[path], base, ids)
        else:  # the file is gone: HEAD's version, less what went elsewhere
            text = drop_records(base, set(snap.base_entries(path)) - ids)
        _commit_as(snap, kept, as_head, path, text, base)
    for path in sorted(gone - set(by_path)):
        base = snap.base.get(path)
        if base is None:
            as_head.append(path)
            continue
        _commit_as(snap, kept, as_head, path, drop_records(base, snap.base_entries(path)), base)
    kept.files = sorted(gone)
    snap.leave_out(as_head)
    kept.as_head = sorted(as_head)
    return kept


def _commit_as(snap: Snapshot, kept: KeptAtFlush, as_head: list[str], path: str, text: str, base: str) -> None:
    if text == base:
        as_head.append(path)
    else:
        kept.contents[path] = text.encode("utf-8")
        snap.commit_as(path, text)


def gone_files(snap: Snapshot) -> set[str]:
    """The tracked files whose text is gone from the work tree and on record nowhere else.

    Gone: deleted, or holding nothing (see `holds_text`) where HEAD's held something.  On record
    elsewhere: an added file holds HEAD's text byte for byte (a move by hand, a journal archived
    by a consolidation cut short).  A file that holds nothing but records is left to the records'
    own accounting (`no_loss.lost`).  INDEX.md (rebuilt) and flush-state.json (rewritten) are
    machine-made: each flush makes them anew.
    """
    added = {snap.new[change.path] for change in snap.changes if change.status == "A" and change.path in snap.new}
    gone = set()
    for change in snap.changes:
        path, base = change.path, snap.base.get(change.path)
        rel = snap.rel(path)
        if change.status == "A" or rel is None or snap.kind(path) == INDEX or rel == names.FLUSH_STATE:
            continue
        if base is None:  # HEAD's text is not UTF-8: kept when the file is deleted, as it cannot be weighed
            if change.status == "D":
                gone.add(path)
            continue
        if path in snap.unreadable:
            continue  # kept as HEAD has it already
        if path in snap.new and holds_text(snap.new[path]):
            continue  # an edit: its entries are guarded one by one, the rest is the user's to change
        if base in added or not holds_text(base):
            continue
        if not holds_text(drop_records(base, snap.base_entries(path))):
            continue  # only records: each is kept, or not, on its own (named by `loss_line`)
        gone.add(path)
    return gone


def holds_text(text: str) -> bool:
    """Whether `text` holds a line that is neither blank nor a Markdown heading: something a reader would miss."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines())


def committed_index(
    repo: MemoryRepo, snap: Snapshot, kept: KeptAtFlush, today: dt.date, exclude: list[str], instead: Mapping[str, str],
    memo: Memo | None = None,
) -> str | None:
    """INDEX.md as the commit needs it when a file the commit holds is missing or unreadable in the work
    tree (so the work tree's INDEX.md would not name it); None when the work tree's serves.  `exclude`
    and `instead` are the withheld files', `memo` the caches held back (see `build_index`)."""
    texts: dict[str, str] = {}
    for path in kept.held:
        rel = repo.memory_rel(path)
        if rel is not None and path in snap.new and (
            path in kept.unreadable or path in kept.files or not (repo.root / path).is_file()
        ):
            texts[rel] = snap.new[path]
    if not texts:
        return None
    try:
        return build_index(repo, today, exclude, {**instead, **texts}, memo=memo)
    except InvalidUtf8:  # another unreadable file: the work tree's INDEX.md is the best there is
        return None


def loss_line(kept: KeptAtFlush) -> str:
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


def files_line(kept: KeptAtFlush) -> str:
    """One line: which files the commit kept although the work tree lost them, and the way out."""
    files = kept.files
    one = len(files) == 1
    named = ", ".join(files[:SHOWN_FILES])
    more = f" and {len(files) - SHOWN_FILES} more (`git status` lists them)" if len(files) > SHOWN_FILES else ""
    return (
        f"{len(files)} memory file{' is' if one else 's are'} gone from the work tree (deleted or emptied, "
        f"and not staged), so the commit keeps {'it' if one else 'them'} as HEAD has {'it' if one else 'them'}: "
        f"{named}{more}; restore {'it' if one else 'them'} (`git checkout HEAD -- PATH`), or delete "
        f"deliberately: `git rm PATH` (`git add PATH` to commit an emptied file), then flush"
    )
