"""`apm-git log`: one line per commit, what apm-git did (docs/review.md)."""
from __future__ import annotations

from collections.abc import Sequence

from apm_git import git
from apm_git.review.commits import CommitInfo, check_range, read_commits
from apm_git.store.repo import MemoryRepo


def log(repo: MemoryRepo, revision: str | None = None, *, max_count: int | None = None) -> list[CommitInfo]:
    if git.head(repo.root) is None:
        return []  # no commits yet
    spec = revision or "HEAD"
    check_range(repo.root, spec)
    revisions: Sequence[str] = [spec]
    return read_commits(repo.root, revisions, max_count=max_count)
