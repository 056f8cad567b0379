"""`apm-git sync`: share one memory through a git remote, never losing an entry (docs/sync.md).

This module takes the arguments (the remote, the branch, the `--gather` patterns), refuses what
would confuse git (a detached HEAD, a merge in progress), and runs the rounds under the write lock
(flush and `dream` wait): fetch, flush, bring in the remote branch (fast-forward, or an entry-level
merge checked for conservation), push without force; a push the remote rejects because its branch
moved meanwhile starts the round again, at most MAX_ATTEMPTS times (operations/sync_rounds.py, the
memory's side of them in operations/sync_memory.py).  Nothing local changes before the first fetch
has succeeded.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from apm_git import git
from apm_git.errors import StateError, UsageError
from apm_git.operations.sync_memory import MemorySync
from apm_git.operations.sync_rounds import MAX_ATTEMPTS, run_rounds
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import write_lock

if TYPE_CHECKING:
    from apm_git.model.withhold import WithheldSection
    from apm_git.operations.sync_land import Integrated, JournalOverBudget

# A git operation a person started and has not finished: moving HEAD under it would confuse it.
IN_PROGRESS = {"MERGE_HEAD": "merge", "rebase-merge": "rebase", "rebase-apply": "rebase or am",
               "CHERRY_PICK_HEAD": "cherry-pick", "REVERT_HEAD": "revert"}


@dataclasses.dataclass
class SyncResult:
    remote: str
    branch: str  # the remote branch synced with and pushed to
    local_branch: str
    before: str | None = None  # the local branch before sync (after nothing: the flush comes later)
    after: str | None = None
    flushed: str | None = None  # the flush commit sync made first, if there was anything to flush
    flush_notes: list[str] = dataclasses.field(default_factory=list)  # entries or files it kept as HEAD has them
    withheld: list[str] = dataclasses.field(default_factory=list)  # files not committed as the work tree has them
    withheld_sections: list[WithheldSection] = dataclasses.field(default_factory=list)  # suspected secrets, left out
    too_large: list[str] = dataclasses.field(default_factory=list)  # left out whole: too large to check
    integrated: list[Integrated] = dataclasses.field(default_factory=list)
    pushed: bool = False
    push_attempts: int = 0
    set_upstream: bool = False
    created_branch: bool = False  # the remote branch did not exist: the push created it
    up_to_date: bool = False

    @property
    def conflicts(self) -> list[str]:
        return [conflict for step in self.integrated for conflict in step.conflicts]

    @property
    def unmerged(self) -> list[str]:
        return sorted({path for step in self.integrated for path in step.unmerged})

    @property
    def left(self) -> list[str]:
        return sorted({path for step in self.integrated for path in step.left})

    @property
    def notes(self) -> list[str]:
        return list(dict.fromkeys(note for step in self.integrated for note in step.notes))

    @property
    def journals_over_budget(self) -> list[JournalOverBudget]:
        """Each journal a merge put over its line budget, as the last merge that did left it."""
        found = {over.path: over for step in self.integrated for over in step.journals_over_budget}
        return [over for _, over in sorted(found.items())]


def sync(
    repo: MemoryRepo,
    *,
    remote: str | None = None,
    branch: str | None = None,
    gather: Sequence[str] = (),
    max_attempts: int = MAX_ATTEMPTS,
) -> SyncResult:
    """Fetch, flush, bring in the remote branch (and the `gather` patterns' branches), push; see the module."""
    root = repo.root
    local = git.current_branch(root)
    if local is None:
        raise StateError("HEAD is detached: sync works on a branch; check one out (`git switch main`), then retry")
    upstream = git.config_get(root, f"branch.{local}.remote")
    remote = choose_remote(repo, upstream, remote)
    if branch is not None:
        check_branch_name(repo, branch, "--branch")
    target = branch or (upstream_branch(repo, local) if upstream == remote else None) or local
    for pattern in gather:
        check_branch_name(repo, pattern, "--gather", pattern=True)
    result = SyncResult(remote, target, local)
    busy = next((name for name in IN_PROGRESS if (repo.git_dir / name).exists()), None)
    if busy is not None:
        raise StateError(f"a git {IN_PROGRESS[busy]} is in progress here ({busy}); finish or abort it, then run "
                         "`apm-git sync` again (nothing was changed)")
    with write_lock(repo):
        result.before = git.head(root)
        if result.before is None:
            raise StateError(f"branch {local} has no commit yet; run `apm-git init` (or `apm-git flush`) first")
        side = MemorySync(repo, remote, target, gather)
        done = run_rounds(side, max_attempts)
        flushed = side.flushed
        if flushed is not None:
            result.flushed = flushed.commit
            result.flush_notes = list(flushed.notes)
            result.withheld = list(flushed.withheld)
            result.withheld_sections = list(flushed.withheld_sections)
            result.too_large = list(flushed.too_large)
        result.integrated = side.integrated
        result.after, result.pushed, result.push_attempts = done.after, done.pushed, done.push_attempts
        result.created_branch = done.created_branch
        result.up_to_date = not done.pushed and not result.integrated and result.flushed is None
        if result.pushed and upstream is None:
            git.config_set(root, f"branch.{local}.remote", remote)
            git.config_set(root, f"branch.{local}.merge", f"refs/heads/{target}")
            result.set_upstream = True
    return result


def choose_remote(repo: MemoryRepo, upstream: str | None, asked: str | None) -> str:
    """--remote, else the branch's upstream remote, else `origin`; a name `git remote` lists."""
    if asked is None and upstream and upstream != ".":
        return upstream  # configured by the user or by an earlier sync: a wrong one fails at the fetch
    known = git.remotes(repo.root)
    if asked is not None:
        if asked not in known:
            raise StateError(f"no remote named {asked!r} (remotes: {', '.join(known) or 'none'}); add it with "
                             f"`git remote add {asked} URL`, or pass another --remote")
        return asked
    if "origin" in known:
        return "origin"
    raise StateError(
        "this branch has no upstream and there is no remote named origin; add one "
        "(`git remote add origin URL`) or pass --remote NAME",
    )


def upstream_branch(repo: MemoryRepo, local: str) -> str | None:
    """The remote branch the local branch tracks (on its upstream remote)."""
    merge = git.config_get(repo.root, f"branch.{local}.merge")
    return merge.removeprefix("refs/heads/") if merge and merge.startswith("refs/heads/") else None


def check_branch_name(repo: MemoryRepo, name: str, option: str, *, pattern: bool = False) -> None:
    if name.startswith("-") or not git.is_ref_name(repo.root, f"refs/heads/{name}", pattern=pattern):
        what = "a branch name or a pattern with one * (agents/*)" if pattern else "a branch name"
        raise UsageError(f"{option} {name!r} is not {what}")
