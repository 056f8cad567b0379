"""apm-git's own commits: the message of docs/design.md 7, dated by the apm-git clock, landed through a journal."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from apm_git import clock, git
from apm_git.model import trailers as trailer_model
from apm_git.store import landing
from apm_git.store.clone import clone_trailer
from apm_git.store.repo import MemoryRepo


def commit(
    repo: MemoryRepo,
    paths: Sequence[str],
    subject: str,
    trailers: list[tuple[str, str]],
    body: str | None = None,
    *,
    contents: Mapping[str, bytes | None] | None = None,
    updates: Sequence[landing.Update] = (),
    before_landing: Callable[[str], None] | None = None,
    parent: str | None = "HEAD",
) -> str:
    """Commit exactly the repo-relative `paths` on top of HEAD; anything else the user staged stays staged.

    `contents` commits given bytes for some of them (None: deleted) instead of the work tree's;
    `updates` are the work-tree files to bring to the commit once the branch has moved (a
    consolidation writes nothing before that).  The caller holds the write lock.  The commit is
    built apart from the user's index, and a failure before the branch moves (signing, a full
    disk, a lock, HEAD moved meanwhile) leaves the index and the work tree exactly as they were.
    `before_landing` sees the built commit before the branch moves, and may refuse it by raising.
    `parent`: the commit the caller read and checked (None: the branch is unborn), or "HEAD" to read it
    now; the branch moves only if it still names that commit (store/landing.py).
    """
    text = trailer_model.message(subject, [*trailers, clone_trailer(repo.git_dir)], body)
    env = clock.git_date_env()
    parent = git.head(repo.root) if parent == "HEAD" else parent
    built = git.build_commit(repo.root, repo.git_dir, parent, list(paths), text, contents=contents, env=env)
    note_identity(repo, built)
    if before_landing is not None:
        before_landing(built.commit)
    from_worktree = [path for path in paths if path not in (contents or {})]
    landing.land(repo, built, parent, text.split("\n", 1)[0], updates=updates, from_worktree=from_worktree, env=env)
    return built.commit


def note_identity(repo: MemoryRepo, built: git.Built) -> None:
    """One line for the user when the commit was made as apm-git, git having no identity here."""
    if built.fallback:
        repo.note(git.FALLBACK_NOTE)
