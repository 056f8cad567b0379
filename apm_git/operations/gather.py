"""Build a Snapshot from git: the base (a commit) and the new side (a commit, the index or the work tree).

The base is `--from-ref`, else `PRE_COMMIT_FROM_REF`, else HEAD; the new side is `--to-ref`,
else `PRE_COMMIT_TO_REF`, else the index (a hook, during a commit) or the
work tree (lint, flush).  With both refs the base is their merge base, as pre-commit's
own `from...to` is, so a pull request is compared with where it branched off.

Reads are batched: one `git diff-*`, one listing of the memory dir, one `git cat-file
--batch` for the texts; entry summaries of unchanged files come from a cache keyed by
blob id, so a commit never re-reads the rest of a large memory.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from apm_git import git
from apm_git.errors import GitError, UsageError
from apm_git.model import names
from apm_git.model import trailers as trailer_model
from apm_git.model.entries import EntryIndex, summarize
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.model.records import parse
from apm_git.model.snapshot import Snapshot, SnapshotChange
from apm_git.store import entry_cache
from apm_git.store.odd_names import skipped
from apm_git.store.repo import MemoryRepo, utf8_problem

HEAD = "HEAD"
INDEX = ":index"
WORKTREE = ":worktree"
FROM_ENV = "PRE_COMMIT_FROM_REF"
TO_ENV = "PRE_COMMIT_TO_REF"
TEXT_SUFFIXES = (".md", ".json")  # files whose text must decode; others are skipped when binary


class Sides(NamedTuple):
    base: str | None  # a commit id, or HEAD (see staged_sides); None before the first commit (everything is new)
    new: str  # INDEX, WORKTREE or a commit id
    base_name: str
    new_name: str


def resolve_sides(root: Path, *, from_ref: str | None = None, to_ref: str | None = None,
                  default_new: str = WORKTREE) -> Sides:
    # a flag typed on the command line beats an environment variable left over from a hook run
    from_ref = from_ref or os.environ.get(FROM_ENV)
    to_ref = to_ref or os.environ.get(TO_ENV)
    new = _commit(root, to_ref, "--to-ref") if to_ref else default_new
    if from_ref:
        base: str | None = _commit(root, from_ref, "--from-ref")
        if to_ref and base is not None:
            base = git.merge_base(root, base, new) or base
    else:
        base = git.head(root)
    new_name = to_ref or ("the index" if new == INDEX else "the work tree")
    return Sides(base, new, from_ref or "HEAD", new_name)


def staged_sides(root: Path) -> Sides:
    """The index against HEAD, as a commit's hook compares them: `HEAD` left for the diff to resolve,
    one git process less per commit (an unborn HEAD shows when that diff fails: `_changes`).  With
    pre-commit's refs in the environment (a range), their commits, as `resolve_sides` finds them."""
    if os.environ.get(FROM_ENV) or os.environ.get(TO_ENV):
        return resolve_sides(root, default_new=INDEX)
    return Sides(HEAD, INDEX, HEAD, "the index")


def start_staged(repo: MemoryRepo, sides: Sides) -> git.StagedReads | None:
    """For a hook's comparison of the index with a commit: its two git reads, started now for `gather`
    to read later (`staged=`), so that git works while the hook imports its checks."""
    if sides.new != INDEX or sides.base is None:
        return None
    return git.StagedReads(repo.root, sides.base, [repo.memory_prefix])


def _commit(root: Path, ref: str, option: str) -> str:
    found = git.commit_id(root, ref)
    if found is None:
        raise UsageError(f"{option} {ref}: no such commit here; fetch it first (e.g. `git fetch origin`)")
    return found


def _decode(
    repo: MemoryRepo,
    wanted: Mapping[str, str | None],
    blobs: dict[str, bytes | None],
    unreadable: dict[str, tuple[int, str]] | None = None,
    oversized: dict[str, int] | None = None,
) -> dict[str, str]:
    """path -> text for `wanted` (path -> blob id in `blobs`, None: the work tree); text files
    that do not decode go to `unreadable`, other files that do not decode are skipped (binary)."""
    texts = {}
    for path, blob in wanted.items():
        data = blobs.get(blob) if blob else _read_file(repo, path, oversized)
        if data is None:
            continue
        try:
            texts[path] = data.decode("utf-8")
        except UnicodeDecodeError as error:
            if unreadable is not None and path.endswith(TEXT_SUFFIXES):
                unreadable[path] = utf8_problem(data, error)
    return texts


def _read_file(repo: MemoryRepo, path: str, oversized: dict[str, int] | None = None) -> bytes | None:
    """A work-tree file's bytes; None for a link, a folder, a missing file, or one too large to read
    (noted in `oversized`)."""
    full = repo.root / path
    if full.is_symlink():
        return None
    try:
        with full.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_FILE_BYTES:
                if oversized is not None:
                    oversized[path] = size
                return None
            return handle.read()
    except (FileNotFoundError, IsADirectoryError):
        return None


def _read_small(repo: MemoryRepo, *sides: tuple[Mapping[str, str | None], dict[str, int]]) -> dict[str, bytes | None]:
    """The contents of each side's `wanted` blobs (path -> blob id) small enough to read; the paths of
    the others go to that side's `oversized`.  One `git cat-file`, so no large blob ever leaves git."""
    ids = sorted({blob for wanted, _ in sides for blob in wanted.values() if blob})
    sizes, contents = git.small_blobs(repo.root, ids, MAX_FILE_BYTES)
    for wanted, oversized in sides:
        for path, blob in wanted.items():
            if blob and sizes.get(blob, 0) > MAX_FILE_BYTES:
                oversized[path] = sizes[blob]
    return contents


def gather(
    repo: MemoryRepo,
    sides: Sides,
    *,
    targets: Iterable[str] | None = None,
    with_changed: bool = False,
    all_files: bool = False,
    pathspecs: Sequence[str] | None = None,
    base_texts: bool = False,
    staged: git.StagedReads | None = None,
    status: Sequence[git.Change] | None = None,
) -> Snapshot:
    """The snapshot of a comparison.

    The per-file checks look at `targets` (files, or folders meaning every file in them),
    plus the changed files when `with_changed` or when no targets are given; `all_files`:
    every memory file on the new side.  The base side's text is read for append-only
    files, for Markdown files whose entry ids the cache lacks, and for all changed files
    with `base_texts` (flush, which may put a file back as it was).  `staged`: the reads
    `start_staged` began for these sides (the whole memory dir, so no `pathspecs`).  `status`: a
    `git status` of the whole memory dir the caller ran just now (flush), which names the work tree's
    changed and untracked files, so no second and third git process asks again.
    """
    assert staged is None or pathspecs is None, "the staged reads cover the whole memory dir"
    memory = repo.memory_prefix
    listing, untracked = _listing(repo, sides.new, staged, status)
    raw = _changes(repo, sides, list(pathspecs or [memory]), listing, untracked, staged)
    listing, raw = _utf8_names(listing, raw)
    changes, base_blobs = _split(raw)
    archived = _archived_unchanged(repo, raw)
    changed = {change.path for change in changes if change.status != "D" and change.path in listing} - archived
    if all_files:
        chosen = sorted(listing)
    elif targets is not None:
        chosen = sorted(_under(listing, targets) | (changed if with_changed else set()))
    else:
        chosen = sorted(changed)
    wanted = changed | set(chosen) | {f"{memory}/{names.INDEX}", f"{memory}/{names.BASELINE}"}
    new_blobs = {path: listing[path] for path in sorted(wanted) if path in listing}
    cached = entry_cache.load(repo.state_dir)
    base_summaries = {path: cached[blob] for path, blob in base_blobs.items() if blob in cached}
    base_needed = {path: blob for path, blob in base_blobs.items()
                   if base_texts or path not in base_summaries or _append_only(repo, path)}
    oversized: dict[str, int] = {}
    base_oversized: dict[str, int] = {}
    blobs = _read_small(repo, (new_blobs, oversized), (base_needed, base_oversized))
    unreadable: dict[str, tuple[int, str]] = {}
    new = _decode(repo, new_blobs, blobs, unreadable, oversized)
    base = _decode(repo, base_needed, blobs)
    snap = Snapshot(
        repo.config, changes, base, new, chosen, frozenset(listing), EntryIndex({}),
        unreadable=unreadable, base_name=sides.base_name, base_summaries=base_summaries,
        oversized=oversized, base_oversized=set(base_oversized),
        forgotten=forgotten_between(repo, sides) if any(change.status != "A" for change in changes) else frozenset(),
        blobs={path: blob for path, blob in listing.items() if blob},  # the work tree's: files git finds unchanged
    )
    keep = {blob: cached[blob] for blob in base_blobs.values() if blob in cached}  # the next run's base
    for path, blob in base_needed.items():
        if blob and blob not in keep and path in base and path.endswith(".md"):
            keep[blob] = summarize(snap.parsed_base(path))
    snap.entries = EntryIndex(_summaries(repo, snap, listing, cached, keep))
    return snap


def forgotten_between(repo: MemoryRepo, sides: Sides) -> frozenset[str]:
    """Ids that an `Apm-Forget` trailer deleted in the commits after the base, up to the new side
    (HEAD for the index or the work tree): one `git log`, and none when the base is HEAD."""
    if sides.base is None or (sides.new in (INDEX, WORKTREE) and sides.base_name == "HEAD"):
        return frozenset()  # an ordinary commit's hook, a flush: no git process at all
    tip = sides.new if sides.new not in (INDEX, WORKTREE) else git.head(repo.root)
    if tip is None or tip == sides.base:
        return frozenset()
    return frozenset(
        value.split()[0]
        for commit in git.log(repo.root, [f"{sides.base}..{tip}"], grep=f"{trailer_model.FORGET}:")
        for key, value in trailer_model.parse(commit.message) if key == trailer_model.FORGET and value.split()
    )


def _utf8_names(
    listing: dict[str, str | None], raw: list[git.RawChange],
) -> tuple[dict[str, str | None], list[git.RawChange]]:
    """The listing and changes without paths whose names are not UTF-8 (store/odd_names.py): no check
    reads them, no finding names them.  A rename from such a name is the addition of the new one."""
    kept = []
    for change in raw:
        if skipped(change.path):
            continue
        if change.old_path is not None and skipped(change.old_path):
            change = git.RawChange("A", "0" * 40, change.new_blob, change.path)
        kept.append(change)
    return {path: blob for path, blob in listing.items() if not skipped(path)}, kept


def _split(raw: list[git.RawChange]) -> tuple[list[SnapshotChange], dict[str, str]]:
    """The changes (a rename is a deletion and an addition) and the base blob of each path that had one."""
    changes: list[SnapshotChange] = []
    base_blobs: dict[str, str] = {}
    for change in raw:
        if change.old_path is not None:
            if change.status == "R":  # a copy (C) leaves its source in place
                changes.append(SnapshotChange("D", change.old_path))
                base_blobs[change.old_path] = change.old_blob
            changes.append(SnapshotChange("A", change.path))
            continue
        status = {"A": "A", "D": "D"}.get(change.status, "M")
        changes.append(SnapshotChange(status, change.path))
        if status != "A":
            base_blobs[change.path] = change.old_blob
    return changes, base_blobs


def _archived_unchanged(repo: MemoryRepo, raw: list[git.RawChange]) -> set[str]:
    """Files moved byte for byte into the archive: their text was checked where it was, so the
    per-file checks do not look at it again as if it were new (a consolidation's journal moves)."""
    archive = f"{repo.memory_prefix}/{names.ARCHIVE}/"
    return {change.path for change in raw
            if change.status == "R" and change.old_blob == change.new_blob and change.path.startswith(archive)}


def _append_only(repo: MemoryRepo, path: str) -> bool:
    rel = repo.memory_rel(path)
    return rel is not None and repo.config.is_append_only(rel)


def _under(listing: Iterable[str], targets: Iterable[str]) -> set[str]:
    """The listed files that are, or are inside, one of `targets`."""
    wanted = {target.rstrip("/") for target in targets}
    return {path for path in listing if path in wanted or any(path.startswith(f"{t}/") for t in wanted)}


def _listing(
    repo: MemoryRepo, side: str, staged: git.StagedReads | None = None, status: Sequence[git.Change] | None = None,
) -> tuple[dict[str, str | None], list[str]]:
    """Every regular file under the memory dir on the new side: path -> blob id (None: read the work tree);
    and, for the work tree, the untracked files under the memory dir (from `status` when given)."""
    memory = [repo.memory_prefix]
    if side == INDEX:
        return dict(staged.listing() if staged else git.index_blobs(repo.root, memory)), []
    if side != WORKTREE:
        return dict(git.tree_blobs(repo.root, side, memory)), []
    listing: dict[str, str | None] = dict(git.index_blobs(repo.root, memory))
    if status is None:
        unstaged, untracked = git.unstaged(repo.root, memory), git.untracked(repo.root, memory)
    else:
        ours = [change for change in status if repo.memory_rel(change.path) is not None]
        unstaged = [change.path for change in ours if change.xy != "??" and change.xy[1] != " "]
        untracked = [change.path for change in ours if change.xy == "??"]
    for path in unstaged:
        listing[path] = None
    for path in untracked:
        if not (repo.root / path).is_symlink():
            listing[path] = None
    return {path: blob for path, blob in listing.items() if blob is not None or (repo.root / path).is_file()}, untracked


def _changes(
    repo: MemoryRepo, sides: Sides, pathspecs: list[str], listing: dict[str, str | None], untracked: list[str],
    staged: git.StagedReads | None = None,
) -> list[git.RawChange]:
    zero = "0" * 40
    if sides.base is None:
        scoped = set(listing) if pathspecs == [repo.memory_prefix] else _in_scope(repo, pathspecs, listing)
        return [git.RawChange("A", zero, listing[path] or zero, path) for path in sorted(scoped)]
    if sides.new == INDEX:
        try:
            if staged:
                return staged.changes()
            return git.diff_raw(repo.root, "diff-index", "--cached", sides.base, pathspecs=pathspecs)
        except GitError:
            if sides.base != HEAD or git.head(repo.root) is not None:
                raise
            return _changes(repo, sides._replace(base=None), pathspecs, listing, untracked)  # the first commit
    if sides.new != WORKTREE:
        return git.diff_raw(repo.root, "diff-tree", "-r", sides.base, sides.new, pathspecs=pathspecs)
    changes = {change.path: change for change in git.diff_raw(repo.root, "diff-index", sides.base, pathspecs=pathspecs)}
    if repo.memory_prefix not in pathspecs or any(spec.startswith(":") for spec in pathspecs):
        untracked = git.untracked(repo.root, pathspecs)  # a narrower scope than the listing's
    for path in untracked:  # only the listed (memory) ones count
        if path not in listing:
            continue
        known = changes.get(path)  # untracked after `git rm --cached`: still there in the work tree
        changes[path] = git.RawChange("M" if known else "A", known.old_blob if known else zero, zero, path)
    return list(changes.values())


def _in_scope(repo: MemoryRepo, pathspecs: list[str], listing: dict[str, str | None]) -> set[str]:
    tracked = set(git.tracked(repo.root, pathspecs))
    return {path for path in listing if path in tracked} | set(git.untracked(repo.root, pathspecs)) & set(listing)


def _summaries(
    repo: MemoryRepo, snap: Snapshot, listing: dict[str, str | None], cached: dict[str, str], keep: dict[str, str],
) -> dict[str, str]:
    """path -> entry summary of every Markdown file on the new side, from texts at hand or the blob cache;
    the cache is rewritten to hold these files' blobs and `keep`."""
    summaries: dict[str, str] = {}
    missing: dict[str, str | None] = {}
    for path, blob in listing.items():
        if not path.endswith(".md"):
            continue
        if path in snap.new:
            summaries[path] = summarize(snap.parsed(path))
            if blob:
                keep[blob] = summaries[path]
        elif blob and blob in cached:
            summaries[path] = keep[blob] = cached[blob]
        else:
            missing[path] = blob
    blobs = _read_small(repo, (missing, {}))
    for path, text in _decode(repo, missing, blobs).items():
        summaries[path] = summarize(parse(text))
        blob = missing[path]
        if blob:
            keep[blob] = summaries[path]
    if keep.keys() != cached.keys():
        entry_cache.save(repo.state_dir, keep)
    return summaries

