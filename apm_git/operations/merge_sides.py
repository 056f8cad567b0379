"""The memory of the three commits of a `git merge`, as the merge driver and `merge-counters` read it
(docs/merge.md, "The git merge driver")."""
from __future__ import annotations

from pathlib import Path

from apm_git import git
from apm_git.errors import ApmGitError
from apm_git.merge.readable import readable_texts, screen
from apm_git.model.config import CONFIG_FILE, Config
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.store.config import load_config

Tree = dict[str, str]


def driver_config(root: Path | None) -> Config:
    """The repository's apm.yaml (memory dir, append-only globs); the defaults when it cannot be read."""
    if root is None or not (root / CONFIG_FILE).is_file():
        return Config()
    try:
        return load_config(root)
    except ApmGitError:
        return Config()


def whole_memory(root: Path, config: Config, commits: tuple[str, str, str]) -> tuple[Tree, Tree, Tree] | None:
    """The memory (and apm.yaml) of the merge base, HEAD and the commit being merged; None when a Markdown
    file of one of them cannot be read and a merge would have to give up a readable version for it
    (`apm-git sync` stops there): the driver then merges its one file alone, so no entry of the unreadable
    file is taken for deleted.  No blob over the read limit is read."""
    try:
        found = [git.tree_texts(root, rev, [config.memory_dir, CONFIG_FILE], limit=MAX_FILE_BYTES) for rev in commits]
    except ApmGitError:
        return None
    sides = [readable_texts(side.texts, side.datas, side.sizes, memory_dir=config.memory_dir) for side in found]
    screened = screen([side.blobs for side in found], [unreadable for _, unreadable in sides],
                      memory_dir=config.memory_dir)
    if screened.refused:
        return None
    base, ours, theirs = ({path: text for path, text in texts.items() if path not in screened.aside}
                          for texts, _ in sides)
    return base, ours, theirs
