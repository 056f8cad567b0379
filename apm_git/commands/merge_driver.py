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
from pathlib import Path

from apm_git import git
from apm_git.config import CONFIG_FILE, Config, load_config
from apm_git.errors import ApmGitError, StateError
from apm_git.merge import MergeConflict, merge_memory
from apm_git.repo import decode, find_root

GITHEAD = "GITHEAD_"


@dataclasses.dataclass
class DriverResult:
    path: str
    wrote: bool  # whether %A was rewritten
    memory_wide: bool  # merged with the whole memory of both commits in view
    conflicts: list[MergeConflict]
    unmerged: list[str]

    @property
    def clean(self) -> bool:
        return not self.conflicts and not self.unmerged


def merge_file(
    base_file: Path, ours_file: Path, theirs_file: Path, path: str, *, cwd: Path | None = None,
) -> DriverResult:
    """Merge %O, %A and %B of `path` into %A; a file that is not UTF-8 is left as %A (a StateError)."""
    texts = []
    for file in (base_file, ours_file, theirs_file):
        try:
            texts.append(decode(file.read_bytes(), path))
        except OSError as error:
            raise StateError(f"cannot read {file} ({error.strerror}); git called the merge driver with a bad path") \
                from None
    base, ours, theirs = texts
    root = _root(cwd or Path.cwd())
    config = _config(root)
    sides = _whole_memory(root, config, path) if root is not None else None
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
    merged = result.files.get(path)
    conflicts = [conflict for conflict in result.conflicts if conflict.path == path]
    unmerged = [name for name in result.unmerged if name == path]
    wrote = merged is not None and merged != ours
    if wrote:
        assert merged is not None
        ours_file.write_bytes(merged.encode("utf-8"))
    return DriverResult(path, wrote, memory_wide, conflicts, unmerged)


def _root(start: Path) -> Path | None:
    found = find_root(start.absolute())
    return found[0] if found is not None else None


def _config(root: Path | None) -> Config:
    """The repository's apm.yaml (memory dir, append-only globs); the defaults when it cannot be read."""
    if root is None or not (root / CONFIG_FILE).is_file():
        return Config()
    try:
        return load_config(root)
    except ApmGitError:
        return Config()


Tree = dict[str, str]


def _whole_memory(root: Path, config: Config, path: str) -> tuple[Tree, Tree, Tree] | None:
    """The memory of the merge base, HEAD and the commit being merged, when git says which commit that is
    (one `GITHEAD_<commit>` variable) and `path` is a memory file; None otherwise."""
    if not path.startswith(config.memory_dir + "/"):
        return None
    commits = [name[len(GITHEAD):] for name in os.environ if name.startswith(GITHEAD)]
    if len(commits) != 1:
        return None
    try:
        theirs = git.commit_id(root, commits[0])
        ours = git.commit_id(root, "HEAD")
        if theirs is None or ours is None:
            return None
        base = git.merge_base(root, ours, theirs)
        trees = [_tree(root, rev, config.memory_dir) if rev else {} for rev in (base, ours, theirs)]
    except (ApmGitError, UnicodeDecodeError):
        return None
    return trees[0], trees[1], trees[2]


def _tree(root: Path, rev: str, memory_dir: str) -> dict[str, str]:
    """Every text file of the memory dir (and apm.yaml) in a commit; a file that is not UTF-8 is left out."""
    blobs = git.tree_blobs(root, rev, [memory_dir, CONFIG_FILE])
    datas = git.cat_files(root, blobs.values())
    texts = {}
    for name, blob in blobs.items():
        data = datas.get(blob)
        if data is None:
            continue
        try:
            texts[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts
