"""apm-git's own commits: the message of DESIGN 7, dated by the apm-git clock."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from apm_git import clock, git
from apm_git.model import trailers as trailer_model
from apm_git.repo import MemoryRepo


def commit(
    repo: MemoryRepo,
    paths: Sequence[str],
    subject: str,
    trailers: list[tuple[str, str]],
    body: str | None = None,
    *,
    contents: Mapping[str, bytes | None] | None = None,
) -> str:
    """Commit exactly the repo-relative `paths`; anything else the user staged stays staged.

    `contents` commits given bytes for some of them (None: deleted) instead of the work tree's.
    """
    text = trailer_model.message(subject, trailers, body)
    return git.commit_paths(repo.root, repo.git_dir, list(paths), text, contents=contents, env=clock.git_date_env())
