"""The commits of a range with their `Apm-*` trailers (one `git log`), and what each one did."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from apm_git import git
from apm_git.errors import UsageError
from apm_git.model import trailers as trailer_model

# What `apm-git log` counts per commit: the trailer, and for `Apm-Move` which kind of move.
COUNTED = ("conflicts", "promoted", "archived", "superseded", "merged", "proven", "journals", "forgotten", "imported",
           "findings", "withheld")
_COUNT_OF = {
    "Apm-Conflict": "conflicts",  # a sync merge that kept two versions of an entry for a person to settle
    "Apm-Promote": "promoted", "Apm-Archive": "archived", "Apm-Supersede": "superseded",
    "Apm-Proven": "proven", trailer_model.FORGET: "forgotten", "Apm-Import": "imported",
    "Apm-Finding": "findings", "Apm-Withheld": "withheld",
}


@dataclasses.dataclass(frozen=True)
class CommitInfo:
    sha: str
    date: str  # committer date, ISO 8601
    parents: tuple[str, ...]
    subject: str
    trailers: tuple[tuple[str, str], ...]

    @property
    def apm(self) -> bool:
        """Whether apm-git made it: every commit apm-git makes carries `Apm-Trigger`."""
        return any(key == "Apm-Trigger" for key, _ in self.trailers)

    @property
    def merge(self) -> bool:
        return len(self.parents) > 1

    def trailer(self, key: str) -> str | None:
        return next((value for name, value in self.trailers if name == key), None)

    @property
    def verb(self) -> str:
        """The word after `memory: ` in the subject (flush, rem, deep-sleep, forget …); "" for other commits."""
        if not self.apm or not self.subject.startswith(trailer_model.SUBJECT_PREFIX):
            return ""
        words = self.subject.removeprefix(trailer_model.SUBJECT_PREFIX).split()
        return words[0].rstrip(":") if words else ""  # `memory: flush: <the user's message>` (flush -m)

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(COUNTED, 0)
        for key, value in self.trailers:
            if key == "Apm-Move":
                counts["merged" if "(merged into " in value else "journals"] += 1
            elif key in _COUNT_OF:
                counts[_COUNT_OF[key]] += 1
        return counts


def check_range(root: Path, spec: str) -> list[str]:
    """The ends of a revision (`REV`, `A..B`, `A...B`; an empty end is HEAD), each checked to name a commit."""
    if spec.startswith("-"):
        raise UsageError(f"{spec!r} is not a revision; give a commit or a range such as main..HEAD")
    ends = spec.split("...", 1) if "..." in spec else spec.split("..", 1)
    for end in ends:
        if end and git.commit_id(root, end) is None:
            raise UsageError(
                f"{end!r} names no commit here; fetch it first (in CI: the whole history, e.g. `fetch-depth: 0`)",
            )
    return [end or "HEAD" for end in ends]


def read_commits(root: Path, revisions: Sequence[str], *, max_count: int | None = None,
                 grep: str | None = None) -> list[CommitInfo]:
    """The commits `git log REVISIONS` lists (merges included), newest first; with `grep`, those whose
    message holds that fixed string."""
    if git.head(root) is None:
        return []
    return [CommitInfo(commit.sha, commit.date, commit.parents, commit.subject,
                       tuple(trailer_model.parse(commit.message)))
            for commit in git.log(root, revisions, max_count=max_count, grep=grep)]
