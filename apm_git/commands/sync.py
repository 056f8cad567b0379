"""`apm-git sync`: share one memory through a git remote, never losing an entry (docs/sync.md).

Under the write lock (flush and `dream` wait): fetch, flush, bring in the remote branch
(fast-forward, or an entry-level merge checked for conservation), push without force; a push
the remote rejects because its branch moved meanwhile starts the round again, at most
MAX_ATTEMPTS times.  Nothing local changes before the first fetch has succeeded.
"""
from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from apm_git import git
from apm_git.errors import FetchFailed, StateError, UsageError
from apm_git.model.config import CONFIG_FILE
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import write_lock

if TYPE_CHECKING:
    from apm_git.model.withhold import WithheldSection
    from apm_git.operations.sync_land import Integrated, JournalOverBudget

# Rounds of fetch, merge and push before giving up: a push is rejected only when another writer
# pushed between this round's fetch and push, so five in a row means heavy contention (use one
# branch per agent then: `--branch agents/NAME --gather main`, docs/sync.md).
MAX_ATTEMPTS = 5
# A git operation a person started and has not finished: moving HEAD under it would confuse it.
IN_PROGRESS = {"MERGE_HEAD": "merge", "rebase-merge": "rebase", "rebase-apply": "rebase or am",
               "CHERRY_PICK_HEAD": "cherry-pick", "REVERT_HEAD": "revert"}
BACKOFF_SECONDS = 0.05  # the most a round waits before the next, times its number (random: writers spread out)


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
        for attempt in range(1, max_attempts + 1):
            try:
                theirs, gathered = fetch(repo, remote, target, gather)
            except FetchFailed as error:
                if attempt == 1:
                    raise StateError(f"{error}; nothing was changed locally: check the remote (`git remote -v`) "
                                     "and the network, then retry") from None
                raise StateError(f"{error}; what is merged so far is committed locally, nothing was pushed: "
                                 "run `apm-git sync` again") from None
            if attempt == 1 and git.status(root, [repo.memory_prefix, CONFIG_FILE]):  # else no flush to import
                from apm_git.operations.flush import flush_locked

                flushed = flush_locked(repo)
                result.flushed = flushed.commit
                result.flush_notes = list(flushed.notes)
                result.withheld = list(flushed.withheld)
                result.withheld_sections = list(flushed.withheld_sections)
                result.too_large = list(flushed.too_large)
            result.created_branch = theirs is None
            head = git.head(root)
            assert head is not None
            sources = [(f"{remote}/{target}", theirs), *gathered]
            for source, commit in sources:
                if commit is None or commit == head:
                    continue
                from apm_git.operations.sync_land import integrate

                step = integrate(repo, head, commit, source)
                if step is not None:
                    result.integrated.append(step)
                    head = step.commit
            result.after = head
            if theirs == head:
                result.up_to_date = not result.integrated and result.flushed is None
                break
            result.push_attempts = attempt
            pushed = git.push(root, remote, head, target)
            if pushed.ok:
                result.pushed = True
                break
            if not pushed.rejected and not moved(repo, remote, target, theirs):
                raise StateError(
                    f"{remote} refused the push of {head[:12]} to {target} ({pushed.detail}); the merge is committed "
                    f"locally, nothing was pushed: fix what the remote says, then run `apm-git sync` again",
                )
            time.sleep(random.uniform(0, BACKOFF_SECONDS * attempt))
        else:
            raise StateError(
                f"{remote} rejected the push {max_attempts} times: other writers keep pushing to {target}; what is "
                f"merged so far is committed locally ({result.after and result.after[:12]}): run `apm-git sync` "
                "again, or give each agent its own branch (`apm-git sync --branch agents/NAME --gather "
                f"{target}`, docs/sync.md)",
            )
        if result.pushed and upstream is None:
            git.config_set(root, f"branch.{local}.remote", remote)
            git.config_set(root, f"branch.{local}.merge", f"refs/heads/{target}")
            result.set_upstream = True
    return result


def moved(repo: MemoryRepo, remote: str, target: str, fetched: str | None) -> bool:
    """Whether the remote branch moved since it was fetched: a push that lost the race to update the
    ref (`[remote rejected]`, a lock failure) is retried like one git rejected up front."""
    try:
        return git.ls_remote(repo.root, remote, f"refs/heads/{target}") != fetched
    except FetchFailed:
        return False


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


def tracking_ref(remote: str, branch: str) -> str:
    return f"refs/remotes/{remote}/{branch}"


def fetch(
    repo: MemoryRepo, remote: str, target: str, gather: Sequence[str],
) -> tuple[str | None, list[tuple[str, str | None]]]:
    """Fetch the target branch and the gathered ones; the target's commit (None: not on the remote
    yet) and each gathered branch as (`remote/branch`, commit), the target left out."""
    refspecs = [f"+refs/heads/{name}:{tracking_ref(remote, name)}" for name in (target, *gather)]
    found = git.fetch(repo.root, remote, refspecs)
    theirs = git.commit_id(repo.root, tracking_ref(remote, target)) if found else None
    gathered: list[tuple[str, str | None]] = []
    names: list[str] = []
    for pattern in gather:
        for ref in git.refs_under(repo.root, tracking_ref(remote, pattern)):
            name = ref.removeprefix(f"refs/remotes/{remote}/")
            if name != target and name not in names:
                names.append(name)
                gathered.append((f"{remote}/{name}", git.commit_id(repo.root, ref)))
    return theirs, gathered
