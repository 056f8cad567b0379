"""What a clone needs registered in `.git/` (docs/setup.md): the diff and merge drivers and the pre-commit
hook, what it lacks of them.  `setup`, `init` and `status` use it."""
from __future__ import annotations

from pathlib import Path

from apm_git import git
from apm_git.operations import precommit

DIFF_DRIVER = ("diff.apm-memory.xfuncname", "^## .*$")
# The entry-level merge (docs/merge.md); `.gitattributes` routes the memory files to it (`merge=apm-memory`).
MERGE_DRIVER = (
    ("merge.apm-memory.name", "apm-git entry-level memory merge"),
    ("merge.apm-memory.driver", "apm-git merge-driver %O %A %B %P"),
)
HOOK_MARK = "pre-commit"  # the script `pre-commit install` writes names its runner


def missing(root: Path) -> list[str]:
    """What this clone lacks of its setup, in the words `status` shows; empty when it is set up."""
    lacking = []
    key, value = DIFF_DRIVER
    if git.config_get(root, key) != value:
        lacking.append("the diff driver apm-memory")
    driver = git.config_get(root, MERGE_DRIVER[1][0]) or ""
    if "merge-driver" not in driver:  # a driver command of the user's own that calls apm-git's counts
        lacking.append("the merge driver apm-memory")
    if (root / precommit.CONFIG).exists():
        hook = git.git_path(root, "hooks/pre-commit")
        try:
            installed = HOOK_MARK in hook.read_text(encoding="utf-8", errors="replace")
        except OSError:
            installed = False
        if not installed:
            lacking.append("the pre-commit hook")
    return lacking


def register_merge_driver(root: Path) -> None:
    for key, value in MERGE_DRIVER:
        git.config_set(root, key, value)
