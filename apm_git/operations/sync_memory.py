"""A memory repository's side of `apm-git sync`'s rounds (operations/sync_rounds.py, docs/sync.md).

Each round fetches the target branch and the `--gather` patterns' branches, flushes the memory on the first
round only (after that fetch: nothing local changes before a fetch has succeeded), then brings in each
fetched commit in turn (operations/sync_land.py: a fast-forward, or an entry-level merge checked for
conservation, landed through the commit journal so a kill is finished by the next writer).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from apm_git import git
from apm_git.errors import FetchFailed, StateError
from apm_git.model.config import CONFIG_FILE
from apm_git.store.repo import MemoryRepo

if TYPE_CHECKING:
    from apm_git.operations.flush import FlushResult
    from apm_git.operations.sync_land import Integrated

BACKOFF_SECONDS = 0.05  # the most a round waits before the next, times its number (random: writers spread out)


@dataclasses.dataclass
class MemorySync:
    """The rounds of a memory repository's sync, and what they flushed and brought in."""

    repo: MemoryRepo
    remote: str  # a remote's name
    branch: str  # the remote branch synced with and pushed to
    gather: Sequence[str] = ()  # patterns of more branches to bring in, never pushed to
    flushed: FlushResult | None = None  # the flush of the first round, when there was anything to flush
    integrated: list[Integrated] = dataclasses.field(default_factory=list)
    gathered: list[tuple[str, str | None]] = dataclasses.field(default_factory=list)  # this round's fetch
    backoff: float = BACKOFF_SECONDS
    confirms_refusal: bool = True

    @property
    def where(self) -> Path:
        return self.repo.root

    def fetch(self) -> str | None:
        theirs, self.gathered = fetch(self.repo, self.remote, self.branch, self.gather)
        return theirs

    def bring_in(self, attempt: int, theirs: str | None) -> str:
        root = self.repo.root
        if attempt == 1 and git.status(root, [self.repo.memory_prefix, CONFIG_FILE]):  # else no flush to import
            from apm_git.operations.flush import flush_locked

            self.flushed = flush_locked(self.repo)
        head = git.head(root)
        assert head is not None
        for source, commit in [(f"{self.remote}/{self.branch}", theirs), *self.gathered]:
            if commit is None or commit == head:
                continue
            from apm_git.operations.sync_land import integrate

            step = integrate(self.repo, head, commit, source)
            if step is not None:
                self.integrated.append(step)
                head = step.commit
        return head

    def fetch_failed(self, error: FetchFailed, *, first: bool) -> StateError:
        if first:
            return StateError(f"{error}; nothing was changed locally: check the remote (`git remote -v`) "
                              "and the network, then retry")
        return StateError(f"{error}; what is merged so far is committed locally, nothing was pushed: "
                          "run `apm-git sync` again")

    def refused(self, head: str, detail: str) -> StateError:
        return StateError(
            f"{self.remote} refused the push of {head[:12]} to {self.branch} ({detail}); the merge is committed "
            f"locally, nothing was pushed: fix what the remote says, then run `apm-git sync` again",
        )

    def gave_up(self, attempts: int, head: str | None) -> StateError:
        return StateError(
            f"{self.remote} rejected the push {attempts} times: other writers keep pushing to {self.branch}; what "
            f"is merged so far is committed locally ({head and head[:12]}): run `apm-git sync` again, or give each "
            f"agent its own branch (`apm-git sync --branch agents/NAME --gather {self.branch}`, docs/sync.md)",
        )


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
