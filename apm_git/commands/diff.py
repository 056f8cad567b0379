"""`apm-git diff`: what happened to each entry, section and file between two states (docs/review.md)."""
from __future__ import annotations

from collections.abc import Collection

from apm_git.checks import no_loss
from apm_git.model.entries import EntryPlace
from apm_git.model.snapshot import Snapshot
from apm_git.operations.gather import INDEX, WORKTREE, gather
from apm_git.review import classify as cl
from apm_git.review.commits import read_commits
from apm_git.review.read import changed_files, new_side_config, resolve
from apm_git.review.result import Review
from apm_git.store.repo import MemoryRepo


def diff(repo: MemoryRepo, revision: str | None = None, *, cached: bool = False) -> Review:
    states = resolve(repo, revision, cached=cached)
    sides = states.sides
    commits = read_commits(repo.root, states.revisions) if states.revisions else []
    facts = cl.trailer_facts(trailer for commit in commits for trailer in commit.trailers)
    files = changed_files(repo, sides)
    snaps: list[Snapshot] = []

    def snap() -> Snapshot:
        """The no-loss check's own view of the same two sides, built only when an entry left unexplained."""
        if not snaps:
            snaps.append(gather(repo, sides))
        return snaps[0]

    def lost_of(ids: Collection[str]) -> dict[str, tuple[str, int]]:
        found = no_loss.lost(snap())
        return {entry: found[entry] for entry in ids if entry in found}

    def places(ids: Collection[str]) -> dict[str, list[EntryPlace]]:
        return snap().entries.places(ids) if ids else {}

    found = cl.classify(files, new_side_config(repo, sides), facts, lost_of, places)
    new = None if sides.new in (INDEX, WORKTREE) else sides.new
    return Review(sides.base, sides.base_name, new, sides.new_name, commits,
                  found.entries, found.sections, found.files)
