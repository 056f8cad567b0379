"""`apm-git merge-driver %O %A %B %P`: git's merge driver for memory files (docs/merge.md, "The git merge driver").

Git hands the driver one file in three versions and takes the result from %A.  Inside a
`git merge` (git names the commit being merged in `GITHEAD_<commit>`), the driver reads the
whole memory of both commits and their merge base and runs the memory-wide merge, so an
entry that one side moved to another file is followed there; the file's result is that
merge's text for %P.  Elsewhere (a rebase, a cherry-pick) it merges the one file alone.
"""
from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

from apm_git import git
from apm_git.errors import ApmGitError, StateError
from apm_git.merge.readable import why_unreadable
from apm_git.merge.tree import MemoryMerge, MergeConflict, merge_memory
from apm_git.model import names
from apm_git.model.config import Config
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.model.records import count_lines
from apm_git.operations.merge_sides import Tree, driver_config, whole_memory
from apm_git.store import cache
from apm_git.store.repo import STATE_DIR, find_root

GITHEAD = "GITHEAD_"


@dataclasses.dataclass
class DriverResult:
    path: str
    wrote: bool  # whether %A was rewritten
    memory_wide: bool  # merged with the whole memory of both commits in view
    conflicts: list[MergeConflict]
    unmerged: list[str]
    # (lines, budget) when the merge put the file over its line budget (both sides met it, or one did): the
    # driver sees one file and cannot archive; the next REM does (`apm-git sync` archives in its merge)
    over_budget: tuple[int, int] | None = None

    @property
    def clean(self) -> bool:
        return not self.conflicts and not self.unmerged


def merge_file(
    base_file: Path, ours_file: Path, theirs_file: Path, path: str, *, cwd: Path | None = None,
) -> DriverResult:
    """Merge %O, %A and %B of `path` into %A.  A version the merge cannot read (not UTF-8, NUL bytes, over the
    read limit, not a regular file) is a StateError, and %A is left as it was: git reports a conflict."""
    texts = [read_version(file, path, label) for file, label in zip(
        (base_file, ours_file, theirs_file), ("the base's version", "our version", "their version"), strict=True)]
    base, ours, theirs = texts
    found = find_root((cwd or Path.cwd()).absolute())
    root = found[0] if found is not None else None
    config = driver_config(root)
    commits = _commits(root, config, path) if root is not None else None
    if found is not None and commits is not None:
        cached = _cached(found[1], commits, path, texts)
        if cached is not None:
            return _over_budget(config, _write(ours_file, ours, path, *cached, memory_wide=True), cached[0], texts)
    sides = whole_memory(found[0], config, commits) if found is not None and commits is not None else None
    memory_wide = sides is not None
    if sides is None:
        sides = ({}, {}, {})
    # %O is empty when the path is new on both sides: absent then, not an empty file
    base_text = base if base or path in sides[0] else None
    for side, text in zip(sides, (base_text, ours, theirs), strict=True):
        if text is None:
            side.pop(path, None)
        else:
            side[path] = text
    result = merge_memory(*sides, memory_dir=config.memory_dir, append_only=config.append_only)
    if found is not None and commits is not None and memory_wide:
        _remember(found[1], commits, sides, result)
    merged = result.files.get(path)
    conflicts = [conflict for conflict in result.conflicts if conflict.path == path]
    written = _write(ours_file, ours, path, merged, conflicts, [name for name in result.unmerged if name == path],
                     memory_wide=memory_wide)
    return _over_budget(config, written, merged, texts)


def read_version(file: Path, path: str, label: str) -> str:
    """The text of one version git handed the driver, read with bounds: the file's type and size are checked
    on the open file before a byte is read (a FIFO would block a read, a device or a huge file exhaust
    memory), and at most MAX_FILE_BYTES + 1 bytes are read whatever the size said."""
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise StateError(f"cannot read {file} ({error.strerror}); git called the merge driver with a bad path") \
            from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StateError(f"{file} ({label} of {path}) is not a regular file (a FIFO, a device or a folder); git "
                             "hands the merge driver regular files: nothing was merged")
        data = handle.read(MAX_FILE_BYTES + 1) if info.st_size <= MAX_FILE_BYTES else None
    why = why_unreadable(data, info.st_size if data is None else len(data))
    if why is not None:
        raise StateError(f"{path}: {label} {why}, so its entries cannot be merged; ours is left as it was and git "
                         "reports a conflict: merge the file by hand")
    assert data is not None
    return data.decode("utf-8")


def _over_budget(config: Config, result: DriverResult, merged: str | None, texts: list[str]) -> DriverResult:
    """The result, with (lines, budget) when the merged file passes a line budget that ours or theirs met."""
    rel = names.memory_rel(config.memory_dir, result.path)
    budget = config.budget_for(rel) if rel is not None else None
    if merged is None or budget is None or count_lines(merged) <= budget:
        return result
    if all(count_lines(side) > budget for side in texts[1:]):
        return result  # both sides were over it already: not the merge's doing
    return dataclasses.replace(result, over_budget=(count_lines(merged), budget))


def _write(ours_file: Path, ours: str, path: str, merged: str | None, conflicts: list[MergeConflict],
           unmerged: list[str], *, memory_wide: bool) -> DriverResult:
    wrote = merged is not None and merged != ours
    if merged is not None and wrote:
        ours_file.write_bytes(merged.encode("utf-8"))
    return DriverResult(path, wrote, memory_wide, conflicts, unmerged)


def _commits(root: Path, config: Config, path: str) -> tuple[str, str, str] | None:
    """(merge base, HEAD, the commit being merged) when git says which commit that is (one
    `GITHEAD_<commit>` variable) and `path` is a memory file; None otherwise."""
    if not path.startswith(config.memory_dir + "/"):
        return None
    named = [name[len(GITHEAD):] for name in os.environ if name.startswith(GITHEAD)]
    if len(named) != 1:
        return None
    try:
        theirs = git.commit_id(root, named[0])
        ours = git.commit_id(root, "HEAD")
        base = git.merge_base(root, ours, theirs) if ours and theirs else None
    except ApmGitError:
        return None
    return (base, ours, theirs) if base and ours and theirs else None


# Git calls the driver once per file that both sides changed; the memory-wide merge is the same for
# each, so the first call keeps the results of those files for the others (keyed by the three commits).
CACHE = "merge-driver.cache"


def _cached(git_dir: Path, commits: tuple[str, str, str], path: str,
            texts: list[str]) -> tuple[str | None, list[MergeConflict], list[str]] | None:
    stored = cache.read(git_dir / STATE_DIR / CACHE)
    if not isinstance(stored, dict) or stored.get("commits") != list(commits):
        return None
    entry = stored.get("files", {}).get(path)
    if not isinstance(entry, tuple) or list(entry[0]) != texts:
        return None  # not a file of that merge, or git handed other versions (a virtual base)
    _, merged, conflicts, unmerged = entry
    return merged, [MergeConflict(path, what, ident) for what, ident in conflicts], [path] if unmerged else []


def _remember(
    git_dir: Path, commits: tuple[str, str, str], sides: tuple[Tree, Tree, Tree], result: MemoryMerge,
) -> None:
    base, ours, theirs = sides
    files = {}
    for name, merged in result.files.items():
        if name in ours and name in theirs and ours[name] != base.get(name) and theirs[name] != base.get(name):
            conflicts = [(conflict.what, conflict.entry) for conflict in result.conflicts if conflict.path == name]
            files[name] = ((base.get(name, ""), ours[name], theirs[name]), merged, conflicts,
                           name in result.unmerged)
    (git_dir / STATE_DIR).mkdir(exist_ok=True)
    cache.write(git_dir / STATE_DIR / CACHE, {"commits": list(commits), "files": files})
