"""The two states `apm-git diff` compares, read from git: the changed memory files' texts on each side.

Like `git diff`: no revision compares the work tree with HEAD, `--cached` the index, `REV` the
work tree with REV, `A..B` the two commits, `A...B` B with where it branched off A.  The commits
between the two sides (`git log BASE..TIP`, merges included) are where their trailers come from.
"""
from __future__ import annotations

import dataclasses
import os

from apm_git import git
from apm_git.errors import ConfigError, UsageError
from apm_git.model.config import CONFIG_FILE, Config
from apm_git.model.limits import MAX_FILE_BYTES, megabytes
from apm_git.model.vocabulary import FileStatus
from apm_git.operations.gather import INDEX, WORKTREE, Sides
from apm_git.review.classify import FileChange
from apm_git.review.commits import check_range
from apm_git.store.config import parse_config
from apm_git.store.repo import MemoryRepo

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree: the base before the first commit
ZERO = "0" * 40
FILE_STATUSES: dict[str, FileStatus] = {"A": "added", "D": "deleted", "R": "renamed"}  # git's letters; else modified


@dataclasses.dataclass(frozen=True)
class States:
    sides: Sides  # the base (a commit, None before the first commit) and the new side (a commit, INDEX, WORKTREE)
    revisions: tuple[str, ...]  # for `git log`: the commits between the two sides (none: the base is HEAD)


def resolve(repo: MemoryRepo, revision: str | None, *, cached: bool) -> States:
    root = repo.root
    base: str | None
    if revision and ".." in revision:
        if cached:
            raise UsageError("--cached compares the index with one commit; give REV, not a range")
        first, second = check_range(root, revision)
        tip = _commit(repo, second)
        base = _commit(repo, first)
        if "..." in revision:
            base = git.merge_base(root, base, tip)
            if base is None:
                raise UsageError(f"{revision}: the two commits have no common ancestor; use A..B")
        names = revision.split("...", 1) if "..." in revision else revision.split("..", 1)
        return States(Sides(base, tip, names[0] or "HEAD", names[1] or "HEAD"), (f"{base}..{tip}",))
    head = git.head(root)
    if revision:
        check_range(root, revision)
        base = _commit(repo, revision)
    else:
        base = head
    new = INDEX if cached else WORKTREE
    revisions = (f"{base}..{head}",) if base and head and base != head else ()
    return States(Sides(base, new, revision or "HEAD", "the index" if cached else "the work tree"), revisions)


def _commit(repo: MemoryRepo, ref: str) -> str:
    found = git.commit_id(repo.root, ref)
    if found is None:  # check_range has refused it already; kept for a ref that vanished meanwhile
        raise UsageError(f"{ref!r} names no commit here")
    return found


def changed_files(repo: MemoryRepo, sides: Sides) -> list[FileChange]:
    """Every memory file that differs between the two sides, with its text on each (one diff, one cat-file)."""
    root, memory = repo.root, [repo.memory_prefix]
    base = sides.base or EMPTY_TREE
    if sides.new == INDEX:
        raw = git.diff_raw(root, "diff-index", "--cached", base, pathspecs=memory)
    elif sides.new == WORKTREE:
        raw = git.diff_raw(root, "diff-index", base, pathspecs=memory)
        known = {change.path for change in raw}
        raw += [git.RawChange("A", ZERO, ZERO, path) for path in git.untracked(root, memory)
                if path not in known and not (root / path).is_symlink()]
    else:
        raw = git.diff_raw(root, "diff-tree", "-r", base, sides.new, pathspecs=memory)
    raw = [change for change in raw if not git.is_temporary(change.path)]
    blobs = git.cat_files(root, sorted({blob for change in raw for blob in (change.old_blob, change.new_blob)
                                        if blob != ZERO}))
    files = []
    for change in raw:
        notes: list[str] = []
        old_path = None if change.status == "A" else (change.old_path or change.path)
        before = None if old_path is None else _text(blobs.get(change.old_blob), notes, "base")
        after = None
        if change.status != "D":
            data = blobs.get(change.new_blob) if change.new_blob != ZERO else _read(repo, change.path, notes)
            after = _text(data, notes, "new side")
        status: FileStatus = FILE_STATUSES.get(change.status, "modified")
        if change.status == "C":  # a copy: its source stays, so it is an added file
            status, old_path, before = "added", None, None
        if status == "modified" and before is not None and before == after:
            continue  # only the stat data of a work-tree file changed
        whole = status == "renamed" and before is not None and before == after
        files.append(FileChange(status, change.path, old_path, before, after, whole, "; ".join(notes)))
    return files


def _read(repo: MemoryRepo, path: str, notes: list[str]) -> bytes | None:
    full = repo.root / path
    if full.is_symlink() or not full.is_file():
        return None
    with full.open("rb") as handle:
        if os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES:
            notes.append(f"new side over the {megabytes(MAX_FILE_BYTES)} apm-git reads")
            return None
        return handle.read()


def _text(data: bytes | None, notes: list[str], side: str) -> str | None:
    if data is None:
        return None
    if len(data) > MAX_FILE_BYTES:
        notes.append(f"{side} over the {megabytes(MAX_FILE_BYTES)} apm-git reads")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        notes.append(f"{side} is not UTF-8 (byte {error.start})")
        return None


def new_side_config(repo: MemoryRepo, sides: Sides) -> Config:
    """The budgets and routing of the new side: a commit's own `apm.yaml` when it reads and keeps the same
    memory dir, else the work tree's."""
    if sides.new in (INDEX, WORKTREE):
        return repo.config
    data = git.cat_files(repo.root, [f"{sides.new}:{CONFIG_FILE}"]).get(f"{sides.new}:{CONFIG_FILE}")
    try:
        if data == (repo.root / CONFIG_FILE).read_bytes():
            return repo.config  # the same file: no need to parse it again (nor to import the YAML parser)
    except OSError:
        pass
    try:
        config = parse_config(data.decode("utf-8")) if data is not None else None
    except (ConfigError, UnicodeDecodeError):
        config = None
    return config if config is not None and config.memory_dir == repo.config.memory_dir else repo.config
