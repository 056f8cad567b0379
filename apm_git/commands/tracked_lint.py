"""`apm-git lint` on a tracked folder: the checks a snapshot makes, over every memory file of the folder as it is
now (a suspected secret, a file too large or unreadable to scan; MEMORY.md past the loading cap), without a
snapshot (docs/tracking.md, "Lint").  It only reads."""
from __future__ import annotations

import dataclasses

from apm_git import git
from apm_git.operations import snapshot as taking
from apm_git.store import tracked as store
from apm_git.tracking.agents import PROFILES


@dataclasses.dataclass
class TrackedLint:
    tracked: store.Tracked
    checked: list[str]  # the memory files of the folder, relative to it
    findings: list[taking.TrackedFinding]


def lint(tracked: store.Tracked) -> TrackedLint:
    folder = taking.open_history(tracked)
    memory = list(PROFILES[tracked.agent].memory)
    files = sorted({*git.tracked(folder, memory), *git.untracked(folder, memory)})
    present = [name for name in files if (folder / name).is_file() and not git.is_temporary(name)]
    withheld = taking.withheld_of(folder, present, tracked.allowed)
    return TrackedLint(tracked, present, taking.findings_of(withheld, taking.cap_of(tracked)))
