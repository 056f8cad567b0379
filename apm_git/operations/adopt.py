"""Adopting a workspace: what `init` does in a folder that already holds memory (docs/adopting.md).

The files as found are committed first, exactly as they were (the memory dir and MEMORY.md,
nothing else), with the findings baseline that records what they already held; a file with
a suspected secret stays on disk, uncommitted.  Then `init` lays out apm-git's files in a
second commit.  A file of the person's that apm-git would replace (an INDEX.md it did not
write, a state file it cannot read) is first moved to `kept/`, as a tracked rename.
"""
from __future__ import annotations

import dataclasses

from apm_git import git
from apm_git.checks import baseline, no_secrets
from apm_git.errors import CorruptStateFile, UnreadableFile
from apm_git.model import names
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.operations.baseline import record, work_tree
from apm_git.store.commit import commit
from apm_git.store.memory_index import free_name, keep_own_index
from apm_git.store.odd_names import skipped
from apm_git.store.repo import MemoryRepo
from apm_git.store.state import group_names, load_flush_state


@dataclasses.dataclass
class Adoption:
    commit: str | None = None  # the commit of the files as found
    files: list[str] = dataclasses.field(default_factory=list)  # committed as found (repo-relative)
    withheld: list[str] = dataclasses.field(default_factory=list)  # left uncommitted: suspected secrets
    kept: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (was, now) moved to kept/
    known: int = 0  # findings the baseline records


def refuse_unreadable(repo: MemoryRepo) -> None:
    """Stop an adoption before anything is written or committed when a memory file apm-git reads at
    adoption (its Markdown, the state files, MEMORY.md) is not UTF-8: adoption is all or nothing, and
    the next `init`, once the file is re-saved, starts from the beginning.  A file past the read
    limit is adopted as found and left unread, as everywhere (docs/adopting.md)."""
    rels = [*repo.markdown_files(), *(rel for rel in (*names.STATE_FILES, names.BASELINE) if repo.exists(rel))]
    paths = [(repo.repo_path(rel), repo.path(rel)) for rel in rels]
    if (repo.root / names.MEMORY_MD).is_file():
        paths.append((names.MEMORY_MD, repo.root / names.MEMORY_MD))
    unreadable: list[tuple[str, str]] = []  # (name, where and what)
    for name, path in paths:
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            unreadable.append((name, f"{name}:{line}: not valid UTF-8 (byte {error.start})"))
        except OSError as error:
            unreadable.append((name, f"{name}: cannot be read ({error.strerror})"))
    if unreadable:
        others = [name for name, _ in unreadable[1:]]
        more = f" (and {len(others)} more: {', '.join(others[:3])}{', …' if len(others) > 3 else ''})" if others else ""
        raise UnreadableFile(f"{unreadable[0][1]}{more}; nothing was adopted or committed: re-save it as UTF-8 "
                             "(or move it out of the memory), then run `apm-git init` again")


def commit_as_found(repo: MemoryRepo) -> Adoption:
    """Commit the memory files that are not committed yet, as they are, with their findings baseline;
    not a file whose name is not UTF-8 (store/odd_names.py)."""
    found = sorted({change.path for change in git.status(repo.root, [repo.memory_prefix, names.MEMORY_MD])
                    if not skipped(change.path)})
    adoption = Adoption()
    if not found:
        return adoption
    snap = work_tree(repo)
    secrets, _ = baseline.withheld_secrets(snap, no_secrets.validate(snap))
    adoption.withheld = sorted({finding.path for finding in secrets} & set(found))
    adoption.known = record(repo).total
    adoption.files = [path for path in found if path not in adoption.withheld]
    paths = [*adoption.files, *([repo.repo_path(names.BASELINE)] if repo.exists(names.BASELINE) else [])]
    trailers = [("Apm-Trigger", "adopt"), ("Apm-Scope", "all")]
    trailers += [("Apm-Withheld", f"{path} (suspected secret; not committed)") for path in adoption.withheld]
    count = f"{len(adoption.files)} file{'s' if len(adoption.files) != 1 else ''}"
    body = "The memory files as they were found, unchanged, and the findings they already held (the baseline)."
    adoption.commit = commit(repo, paths, f"adopt {count} as found", trailers, body=body)
    return adoption


def keep_replaced(repo: MemoryRepo) -> list[tuple[str, str]]:
    """Move aside the files apm-git would replace: an INDEX.md it did not write, state files it cannot read."""
    moved = []
    index = keep_own_index(repo)
    if index is not None:
        moved.append((names.INDEX, index))
    for rel, read in ((names.FLUSH_STATE, load_flush_state), (names.GROUP_NAMES, group_names)):
        try:
            read(repo)
        except CorruptStateFile:
            target = free_name(repo, f"{names.KEPT}/{rel}")
            repo.path(target).parent.mkdir(parents=True, exist_ok=True)
            repo.path(rel).replace(repo.path(target))
            moved.append((rel, target))
    return [(repo.repo_path(was), repo.repo_path(now)) for was, now in moved]

