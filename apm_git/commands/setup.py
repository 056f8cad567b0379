"""`apm-git setup`: register in `.git/config` what does not travel with a clone (docs/setup.md).

`.gitattributes` travels with the repository, but the diff driver it names and the pre-commit
hook live in the clone's own `.git/`: a fresh `git clone` has neither until this runs.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from apm_git import git
from apm_git.commands import precommit

DIFF_DRIVER = ("diff.apm-memory.xfuncname", "^## .*$")
# The entry-level merge (docs/merge.md); `.gitattributes` routes the memory files to it (`merge=apm-memory`).
MERGE_DRIVER = (
    ("merge.apm-memory.name", "apm-git entry-level memory merge"),
    ("merge.apm-memory.driver", "apm-git merge-driver %O %A %B %P"),
)
HOOK_MARK = "pre-commit"  # the script `pre-commit install` writes names its runner


@dataclasses.dataclass
class SetupResult:
    root: Path
    registered: list[str]  # what this run added; empty when the clone was set up already
    warning: str | None = None


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


def setup(root: Path, *, install: bool = True) -> SetupResult:
    """Register the diff and merge drivers and install the pre-commit hook, each only when it is missing."""
    lacking = missing(root)
    result = SetupResult(root, [])
    if "the diff driver apm-memory" in lacking:
        git.config_set(root, *DIFF_DRIVER)
        result.registered.append("the diff driver apm-memory")
    if "the merge driver apm-memory" in lacking:
        register_merge_driver(root)
        result.registered.append("the merge driver apm-memory")
    if install and "the pre-commit hook" in lacking:
        problem = precommit.install(root)
        if problem is None:
            result.registered.append("the pre-commit hook")
        else:
            result.warning = f"`pre-commit install` failed ({problem}); fix that, then run `apm-git setup` again"
    return result


def register_merge_driver(root: Path) -> None:
    for key, value in MERGE_DRIVER:
        git.config_set(root, key, value)
