"""What a clone needs registered in `.git/` (docs/setup.md): the diff and merge drivers and the pre-commit
hook, what it lacks of them.  `setup`, `init` and `status` use it."""
from __future__ import annotations

from pathlib import Path

from apm_git import git
from apm_git.operations import precommit
from apm_git.store.atomic import write_atomic

DIFF_DRIVER = ("diff.apm-memory.xfuncname", "^## .*$")
# The entry-level merge (docs/merge.md); `.gitattributes` routes the memory files to it (`merge=apm-memory`).
MERGE_DRIVER = (
    ("merge.apm-memory.name", "apm-git entry-level memory merge"),
    ("merge.apm-memory.driver", "apm-git merge-driver %O %A %B %P"),
)
HOOK_MARK = "pre-commit"  # the script `pre-commit install` writes names its runner
# The merge driver's other half: git merges a file both sides changed to the same bytes without the
# driver, so the hits two machines made alike would count once; git runs this hook after it committed a
# merge that needed no person, and it commits the sums (docs/merge.md, "Counters").
COUNTERS_HOOK = "hooks/post-merge"
COUNTERS_COMMAND = "apm-git merge-counters"
COUNTERS_SCRIPT = f"""#!/bin/sh
# apm-git: add up the hit counts that both sides of this merge changed alike (git merges such a file
# without the apm-memory merge driver, so it would count them once); docs/merge.md, "Counters".
# Written by `apm-git setup`; the merge is committed already, whatever this does.
{COUNTERS_COMMAND} || echo "apm-git: the hit counts of this merge were not added up (above: why)" >&2
exit 0
"""


def missing(root: Path) -> list[str]:
    """What this clone lacks of its setup, in the words `status` shows; empty when it is set up."""
    lacking = []
    key, value = DIFF_DRIVER
    if git.config_get(root, key) != value:
        lacking.append("the diff driver apm-memory")
    driver = git.config_get(root, MERGE_DRIVER[1][0]) or ""
    # a driver command of the user's own that calls apm-git's counts; a post-merge hook of the user's own
    # is left alone (docs/setup.md): only a clone with none lacks apm-git's
    if "merge-driver" not in driver or not git.git_path(root, COUNTERS_HOOK).exists():
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
    """The driver in `.git/config`, and its post-merge hook when the clone has no such hook yet."""
    for key, value in MERGE_DRIVER:
        git.config_set(root, key, value)
    hook = git.git_path(root, COUNTERS_HOOK)
    if not hook.exists():
        hook.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(hook, COUNTERS_SCRIPT.encode("utf-8"))
        hook.chmod(0o755)
