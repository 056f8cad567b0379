"""Land a commit that was built apart: journal it, move the branch, then bring the index and work tree to it.

The order is what makes a kill harmless (docs/crash-safety.md):

1. the journal (`.git/apm-git/commit-journal.json`) names the old and new commit, the index entries
   to give the committed paths, and, for each work-tree file the commit changes, a digest of its
   bytes before and after; it is on disk (fsync) before anything else happens;
2. the branch moves with a compare-and-swap;
3. each work-tree file is brought to the commit, then the index, then the journal goes.

Whichever apm-git command next takes the write lock reads a journal left by a kill and finishes
the job: when the branch moved, each file that still holds its old bytes gets the new ones (a file
changed by someone meanwhile is left as it is, and named); when it never moved, nothing had been
written, and the journal is dropped.  Either way no entry is ever missing from both HEAD and the
work tree.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from apm_git import git
from apm_git.errors import GitError, StateError
from apm_git.store.atomic import TEMP_SUFFIX, write_atomic
from apm_git.store.repo import COMMIT_JOURNAL, MemoryRepo

JOURNAL = COMMIT_JOURNAL  # under .git/apm-git/
VERSION = 1

@dataclasses.dataclass(frozen=True)
class Update:
    """A work-tree file the commit changes: its bytes before (None: absent) and after (None: deleted)."""

    path: str  # repo-relative
    before: bytes | None
    after: bytes | None


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def journal_path(repo: MemoryRepo) -> Path:
    return repo.git_dir / "apm-git" / JOURNAL


def land(
    repo: MemoryRepo,
    built: git.Built,
    parent: str | None,
    subject: str,
    *,
    updates: Sequence[Update] = (),
    from_worktree: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """Move the branch from `parent` to `built`, then bring the work tree (`updates`, in order) and
    the index to it.  The caller holds the write lock.  Returns the files left as someone changed them.

    Until the branch moves nothing has changed: a failure there (HEAD moved meanwhile, git's
    index.lock held) drops the journal and goes on as the error.
    """
    if (repo.git_dir / "index.lock").exists():  # the index must take the commit too: fail before the branch moves
        raise GitError(
            f"{repo.git_dir / 'index.lock'} exists: another git process is working in this repository, "
            "retry when it is done",
        )
    record: dict[str, Any] = {
        "version": VERSION,
        "subject": subject,
        "old": parent,
        "new": built.commit,
        "index": [[path, *(entry or (None, None))] for path, entry in built.entries.items()],
        "files": [[update.path, digest(update.before), digest(update.after)] for update in updates],
    }
    _write_journal(repo, record)
    try:
        git.move_head(repo.root, built.commit, parent, subject, env=env)
    except GitError:
        _drop_journal(repo)  # the compare-and-swap refused: nothing moved, nothing was written
        raise
    after = {update.path: update.after for update in updates}
    try:
        left = _bring_worktree(repo, record["files"], after.__getitem__)
        git.set_index(repo.root, built.entries, from_worktree=from_worktree)
    except (OSError, StateError) as error:
        raise StateError(
            f"committed {built.commit[:12]} ({subject}) but could not bring the work tree up to date "
            f"({_reason(error)}); fix that, then run any apm-git command that writes (e.g. `apm-git flush`) "
            "to finish it",
        ) from None
    if updates:
        _refresh_stat(repo)
    _drop_journal(repo)
    _say_left(repo, left, built.commit, subject)
    return left


def finish_interrupted(repo: MemoryRepo) -> None:
    """Finish (or drop) a commit a kill interrupted; the caller holds the write lock."""
    _sweep_temporaries(repo.git_dir / "apm-git", recursive=False)
    _sweep_temporaries(repo.memory, recursive=True)  # about 1 ms for 250 files
    record = read_journal(repo)
    if record is None:
        return
    subject, old, new = record["subject"], record["old"], record["new"]
    now = git.head(repo.root)
    if now == old and now != new:
        _drop_journal(repo)
        repo.note(f"`{subject}` was interrupted before it committed; nothing had changed, nothing to finish")
        return
    if now != new and not _descends(repo, now, new):
        _drop_journal(repo)
        repo.note(
            f"`{subject}` ({new[:12]}) was interrupted and the branch has moved elsewhere since; "
            "its work-tree update was dropped",
        )
        return
    files = record["files"]
    committed = {row[0] for row in record["index"]}
    for path, *_ in files:
        _check_journal_path(repo, path, committed)
        if repo.memory_rel(path) is None:  # a file sync brought over: its temporary file, if the kill left one
            target = repo.root / path
            _sweep_temporaries(target.parent, recursive=False, name=f".{target.name}.")
    blobs = git.cat_files(repo.root, [f"{new}:{path}" for path, _, after in files if after is not None])
    left = _bring_worktree(repo, files, lambda path: blobs.get(f"{new}:{path}"))
    if now == new:  # a commit made on top since keeps its own index
        entries = {path: None if blob is None else (mode, blob) for path, mode, blob in record["index"]}
        git.set_index(repo.root, entries)
        _refresh_stat(repo)
    _drop_journal(repo)
    held = "the work tree and the index now hold it" if now == new else "the work tree now holds it"
    repo.note(f"finished `{subject}` ({new[:12]}), which was interrupted: {held}")
    _say_left(repo, left, new, subject)


def _bring_worktree(repo: MemoryRepo, files: Sequence[Sequence[Any]], after: Any) -> list[str]:
    """Give each file its new bytes where it still holds its old ones; the paths of those that hold neither."""
    left = []
    for path, before_digest, after_digest in files:
        target = repo.root / path
        try:
            current = target.read_bytes()
        except FileNotFoundError:
            current = None
        except (IsADirectoryError, NotADirectoryError):
            left.append(path)
            continue
        state = digest(current)
        if state == after_digest:
            continue
        if state != before_digest:
            left.append(path)
            continue
        data = after(path)
        if data is None:
            target.unlink()
        else:
            write_atomic(target, data)
    return left


def _say_left(repo: MemoryRepo, left: Sequence[str], commit: str, subject: str) -> None:
    for path in left:
        repo.note(
            f"{path} was changed while `{subject}` was landing, so it was left as it is; "
            f"its consolidated version is `git show {commit[:12]}:{path}`",
        )


def _refresh_stat(repo: MemoryRepo) -> None:
    """Entries set from blob ids have no stat data: refresh it, so `git status` need not hash the files."""
    git.refresh_index(repo.root)


def _descends(repo: MemoryRepo, now: str | None, new: str) -> bool:
    if now is None:
        return False
    return git.is_ancestor(repo.root, new, now)


def _check_journal_path(repo: MemoryRepo, path: str, committed: set[str]) -> None:
    """A journal may name a memory file, or (sync brings the remote's other files too) a path the
    commit itself changes, inside the work tree and outside the git dir; anything else is refused."""
    rel = repo.memory_rel(path)
    if rel is not None:
        repo.path(rel)
        return
    parts = PurePosixPath(path).parts
    if path not in committed or not parts or path.startswith("/") or ".." in parts or parts[0] == ".git":
        raise StateError(f"{journal_path(repo)} names {path!r}, which its commit does not change; remove the journal")


def _write_journal(repo: MemoryRepo, record: dict[str, Any]) -> None:
    path = journal_path(repo)
    path.parent.mkdir(exist_ok=True)
    write_atomic(path, json.dumps(record, indent=1).encode("utf-8"))
    _sync_folder(path.parent)  # the rename itself on disk too, before the branch moves


def _drop_journal(repo: MemoryRepo) -> None:
    with contextlib.suppress(FileNotFoundError):
        journal_path(repo).unlink()


def read_journal(repo: MemoryRepo) -> dict[str, Any] | None:
    path = journal_path(repo)
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except ValueError:
        data = None
    if not _well_formed(data):
        raise StateError(
            f"{path} is not a journal apm-git wrote; look at it, then remove it (`git status` and "
            "`git log -1` show where the memory stands)",
        )
    return dict(data)


def _well_formed(data: Any) -> bool:
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("new"), str):
        return False
    rows = [*data.get("index", ()), *data.get("files", ())]
    return isinstance(data.get("subject"), str) and all(
        isinstance(row, list) and len(row) == 3 and isinstance(row[0], str) for row in rows
    )


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system syncs a folder
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _sweep_temporaries(folder: Path, *, recursive: bool, name: str = "") -> None:
    """Remove apm-git's temporary files (whose names start with `name`) that a killed process left
    (its pid is gone); the caller holds the lock.  The memory is walked with `os.walk` (one system
    call per folder, linked folders not entered), as every writer does this first."""
    if not folder.is_dir():
        return
    if recursive:
        found = [Path(top, entry) for top, folders, files in os.walk(folder)
                 for entry in (*folders, *files) if entry.endswith(TEMP_SUFFIX)]
    else:
        found = [path for path in folder.iterdir() if path.name.startswith(name) and path.name.endswith(TEMP_SUFFIX)]
    for path in found:
        if _alive(path.name) or path.is_symlink():
            continue
        with contextlib.suppress(OSError):
            if path.is_dir():
                for inner in path.iterdir():
                    inner.unlink()
                path.rmdir()
            else:
                path.unlink()


def _alive(name: str) -> bool:
    """Whether the process whose pid a temporary file's name holds (`….PID.apm-tmp`) may still run."""
    try:
        pid = int(name[: -len(TEMP_SUFFIX)].rsplit(".", 1)[-1])
    except ValueError:
        return True  # not one of ours: leave it
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _reason(error: Exception) -> str:
    if isinstance(error, OSError):
        return f"{error.strerror or error}{f' {error.filename}' if error.filename else ''}"
    return str(error)
