"""The shared real workspaces (`../shared/realworld/cases` beside the repository, or
$APM_GIT_REALWORLD_CASES): a test that needs them skips, with the reason, when they are absent."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from apm_git.commands.init import init
from apm_git.store.repo import MemoryRepo, open_repo

ENV_CASES = "APM_GIT_REALWORLD_CASES"
ROOT = Path(__file__).resolve().parents[1]


def cases_dir() -> Path | None:
    candidates = [Path(os.environ[ENV_CASES])] if os.environ.get(ENV_CASES) else []
    # beside the clone (CI), or beside the folder of worktrees that holds this checkout
    candidates += [parent / "shared" / "realworld" / "cases" for parent in (ROOT.parent, ROOT.parent.parent)]
    return next((path for path in candidates if path.is_dir()), None)


def real_case(name: str, target: Path) -> MemoryRepo:
    """A copy of the real workspace `name` at `target`, made a memory repository by `init`."""
    copy_case(name, target)
    init(target, install=False)
    return open_repo(target)


def copy_case(name: str, target: Path) -> Path:
    """A copy of the real workspace `name` at `target`, as its agent left it (no apm-git in it)."""
    cases = cases_dir()
    if cases is None or not (cases / name).is_dir():
        pytest.skip(f"the shared real workspaces are absent (../shared/realworld/cases or ${ENV_CASES}): {name}")
    shutil.copytree(cases / name, target)
    return target
