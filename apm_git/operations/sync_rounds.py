"""The rounds of every `apm-git sync`: fetch, bring in, push without force, until the remote takes the push
(docs/sync.md, "One round").

One loop for both kinds of sync: a memory repository's (operations/sync_memory.py) and a tracked folder's
(operations/tracked_sync.py).  What differs between them is a `SyncSide`: how a round fetches, how it brings
the fetched commit in (and what it does first on the first round: a flush, or nothing), what it says when a
round fails, and how it waits before the next round.  The caller holds the writer's lock around the rounds.
"""
from __future__ import annotations

import dataclasses
import random
import time
from pathlib import Path
from typing import Protocol

from apm_git import git
from apm_git.errors import FetchFailed, StateError

# Rounds of fetch, merge and push before giving up: a push is rejected only when another writer
# pushed between this round's fetch and push, so five in a row means heavy contention (use one
# branch per agent then: `--branch agents/NAME --gather main`, docs/sync.md).
MAX_ATTEMPTS = 5


class SyncSide(Protocol):
    """One kind of sync, as the rounds see it."""

    @property
    def where(self) -> Path:
        """The work tree git runs in."""

    @property
    def remote(self) -> str:
        """What git fetches from and pushes to: a remote's name or a URL."""

    @property
    def branch(self) -> str:
        """The remote branch synced with and pushed to."""

    @property
    def backoff(self) -> float:
        """The most a round waits before the next, in seconds, times its number (random: writers spread out)."""

    @property
    def confirms_refusal(self) -> bool:
        """Whether a push refused for another reason than git's rejection is retried when the remote branch moved
        meanwhile (`ls-remote`): one that lost the race to update the ref after git's own check."""

    def fetch(self) -> str | None:
        """Fetch the branch: its commit, None when the remote has no such branch yet.  Raises FetchFailed."""

    def bring_in(self, attempt: int, theirs: str | None) -> str:
        """Bring `theirs` into the local history (fast-forward or merge; the first round may flush first): the
        local commit after it."""

    def fetch_failed(self, error: FetchFailed, *, first: bool) -> StateError:
        """What to say when a fetch fails: on the first round nothing was changed yet."""

    def refused(self, head: str, detail: str) -> StateError:
        """What to say when the remote refuses the push of `head` for another reason than a moved branch."""

    def gave_up(self, attempts: int, head: str | None) -> StateError:
        """What to say when every round's push was rejected: `head` is merged and committed locally."""


@dataclasses.dataclass
class Rounds:
    """What the rounds did."""

    after: str | None = None  # the local commit after the last round
    pushed: bool = False
    push_attempts: int = 0  # the round of the last push (0: none was needed)
    created_branch: bool = False  # the remote had no such branch: the push created it


def run_rounds(side: SyncSide, max_attempts: int = MAX_ATTEMPTS) -> Rounds:
    """Fetch, bring in and push until the remote takes the push or already holds the local commit; a push
    rejected because the remote branch moved since the fetch starts the next round, at most `max_attempts`."""
    done = Rounds()
    for attempt in range(1, max_attempts + 1):
        try:
            theirs = side.fetch()
        except FetchFailed as error:
            raise side.fetch_failed(error, first=attempt == 1) from None
        done.created_branch = theirs is None
        head = side.bring_in(attempt, theirs)
        done.after = head
        if theirs == head:
            return done
        done.push_attempts = attempt
        pushed = git.push(side.where, side.remote, head, side.branch)
        if pushed.ok:
            done.pushed = True
            return done
        if not pushed.rejected and not (side.confirms_refusal and moved(side, theirs)):
            raise side.refused(head, pushed.detail)
        if side.backoff:
            time.sleep(random.uniform(0, side.backoff * attempt))
    raise side.gave_up(max_attempts, done.after)


def moved(side: SyncSide, fetched: str | None) -> bool:
    """Whether the remote branch moved since it was fetched: a push that lost the race to update the
    ref (`[remote rejected]`, a lock failure) is retried like one git rejected up front."""
    try:
        return git.ls_remote(side.where, side.remote, f"refs/heads/{side.branch}") != fetched
    except FetchFailed:
        return False
