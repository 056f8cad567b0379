"""`apm-git log`: one line per commit, what apm-git did (docs/review.md)."""
from __future__ import annotations

from collections.abc import Sequence

from apm_git import git
from apm_git.review.commits import CommitInfo, check_range, read_commits
from apm_git.store.repo import MemoryRepo


def log(repo: MemoryRepo, revision: str | None = None, *, max_count: int | None = None,
        apm_only: bool = False) -> list[CommitInfo]:
    """The commits of `revision` (HEAD), newest first; `max_count` counts what is returned, so with
    `apm_only` it counts apm-git's commits (git is asked for the commits whose message names a trigger,
    and the few whose text only mentions one are left out here)."""
    if git.head(repo.root) is None:
        return []  # no commits yet
    spec = revision or "HEAD"
    check_range(repo.root, spec)
    revisions: Sequence[str] = [spec]
    if not apm_only:
        return read_commits(repo.root, revisions, max_count=max_count)
    commits = [commit for commit in read_commits(repo.root, revisions, grep="Apm-Trigger: ") if commit.apm]
    return commits if max_count is None else commits[:max_count]
