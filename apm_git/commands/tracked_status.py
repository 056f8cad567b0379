"""`apm-git status` on a tracked folder: its snapshots, what changed since the last one, what a snapshot
withholds, and (Claude Code) whether MEMORY.md passes the loading cap (docs/tracking.md)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from apm_git import git
from apm_git.model import trailers as trailer_model
from apm_git.operations import snapshot as taking
from apm_git.store import tracked as store
from apm_git.tracking import identity
from apm_git.tracking.agents import PROFILES
from apm_git.tracking.cap import CapReport


@dataclasses.dataclass
class TrackedStatus:
    tracked: store.Tracked
    snapshots: int
    last_commit: str | None
    last_date: str | None
    last_trigger: str | None
    changed: list[str]  # files that differ from the newest snapshot
    withheld: list[taking.SnapshotWithheld]  # what the next snapshot would leave out
    cap: CapReport | None
    sessions: int  # sessions of the agent running now
    branch: str | None  # the remote branch sync uses


def status(spec: str | None, where: Path) -> TrackedStatus:
    tracked = store.find(spec, where)
    folder = taking.open_history(tracked)
    changes = git.status(folder, list(PROFILES[tracked.agent].memory))
    withheld = taking.withheld_of(folder, [change.path for change in changes if "D" not in change.xy],
                                  tracked.allowed)
    newest = git.log(folder, ["HEAD"], max_count=1) if git.head(folder) else []
    trigger = next((value for key, value in trailer_model.parse(newest[0].message) if key == "Apm-Trigger"), None) \
        if newest else None
    running = len(taking.sessions_running(tracked))
    return TrackedStatus(
        tracked, len(git.rev_list(folder, "HEAD")) if newest else 0, newest[0].sha if newest else None,
        newest[0].date if newest else None, trigger, [change.path for change in changes], withheld,
        taking.cap_of(tracked), running,
        identity.branch(tracked.agent, tracked.identity) if tracked.identity else None,
    )
