"""What `apm-git diff` found: the two sides, the commits between them, each entry's, section's and file's change."""
from __future__ import annotations

import dataclasses

from apm_git.review import classify as cl
from apm_git.review.commits import CommitInfo


@dataclasses.dataclass(frozen=True)
class Review:
    base: str | None  # commit id; None before the first commit
    base_name: str  # as the user named it
    new: str | None  # commit id; None for the index or the work tree
    new_name: str
    commits: list[CommitInfo]  # between the two sides, newest first
    entries: list[cl.EntryChange]
    sections: list[cl.SectionChange]
    files: list[cl.ReviewedFile]

    def count(self, status: str) -> int:
        return sum(1 for entry in self.entries if entry.status == status)

    @property
    def lost(self) -> list[cl.EntryChange]:
        return [entry for entry in self.entries if entry.status == cl.LOSS]

    @property
    def conflicts(self) -> list[cl.EntryChange]:
        return [entry for entry in self.entries if entry.status == cl.CONFLICT]
