"""`apm-git setup`: register in `.git/config` what does not travel with a clone (docs/setup.md).

`.gitattributes` travels with the repository, but the diff driver it names and the pre-commit
hook live in the clone's own `.git/`: a fresh `git clone` has neither until this runs.  It also moves a
`.pre-commit-config.yaml` written before `apm-checks` (the checks as separate hooks) to `apm-checks`,
leaving the change for the person to commit (docs/hook-entry.md).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from apm_git import git
from apm_git.model.config import CONFIG_FILE
from apm_git.operations import precommit
from apm_git.operations.setup import DIFF_DRIVER, missing, register_merge_driver
from apm_git.store.atomic import write_atomic
from apm_git.store.config import load_config, parse_config


@dataclasses.dataclass
class SetupResult:
    root: Path
    registered: list[str]  # what this run added; empty when the clone was set up already
    warning: str | None = None


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
    config = load_config(root) if (root / CONFIG_FILE).exists() else parse_config("")
    migrated = precommit.migrated_config(root, config.memory_dir)
    if migrated is not None:
        write_atomic(root / precommit.CONFIG, migrated.encode("utf-8"))
        result.registered.append(f"`apm-checks` in {precommit.CONFIG}, in place of the separate apm hooks "
                                 "(commit the change)")
    if precommit.register_hook_programs(root):
        result.registered.append("the path of apm-git's hook program (for commits whose PATH lacks it)")
    if install and "the pre-commit hook" in lacking:
        problem = precommit.install(root)
        if problem is None:
            result.registered.append("the pre-commit hook")
        else:
            result.warning = f"`pre-commit install` failed ({problem}); fix that, then run `apm-git setup` again"
    return result
