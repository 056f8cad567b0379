"""The `--json` output of tracked folders: track, track --list, untrack, snapshot, restore, and diff, status and
sync on a tracked folder; version 1 (docs/json.md, docs/tracking.md).  Declared once and built from the
declaration (see apm_git/present/shapes.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from apm_git.model import vocabulary as words
from apm_git.present.declare import Bool, Enum, From, Int, List, Maybe, Obj, Ref, Shape, Str, within
from apm_git.present.parts import CAP, HOOKS_WIRED, SHA, SNAPSHOT_WITHHELD, TRACKED

if TYPE_CHECKING:
    from apm_git.commands.restore import RestoreResult
    from apm_git.commands.snapshot import Outcome
    from apm_git.commands.track import Listed, TrackResult
    from apm_git.commands.tracked_lint import TrackedLint
    from apm_git.commands.tracked_status import TrackedStatus
    from apm_git.operations.snapshot import SnapshotWithheld, TrackedSnapshot
    from apm_git.operations.tracked_diff import TrackedReview
    from apm_git.operations.tracked_sync import TrackedSync
    from apm_git.review.commits import CommitInfo
    from apm_git.store.tracked import Tracked


# One snapshot taken: in `track` (its first) and, with its error, in `snapshot`.
SNAPSHOT_TAKEN = Obj({
    "id": From(Str(), lambda shot: shot.tracked.id), "folder": From(Str(), lambda shot: shot.tracked.folder),
    "trigger": Enum(words.SnapshotTrigger), "session": Maybe(Str()),
    "commit": Maybe(Str(SHA)), "files": List(Str()), "withheld": SNAPSHOT_WITHHELD, "cap": CAP, "background": Bool(),
    "skipped": Maybe(Str()),
})

TRACK = Shape(
    "track",
    "apm-git track --json",
    "The folder now tracked, its first snapshot, the hooks wired (docs/tracking.md).",
    Obj(
        {
            "tracked": TRACKED,
            "created": Bool(),
            "snapshot": SNAPSHOT_TAKEN,
            "hooks": HOOKS_WIRED,
            "notes": List(Str()),
        },
    ),
)

TRACK_LIST = Shape(
    "track-list",
    "apm-git track --list --json",
    "Every tracked folder on this machine (docs/tracking.md).",
    Obj(
        {
            "tracked": List(Obj({
                **within(lambda listed: listed.tracked, TRACKED.fields), "snapshots": Int(0), "last": Maybe(Str()),
                "last_trigger": Maybe(Enum(words.SnapshotTrigger)), "problem": Maybe(Str()),
            })),
            "unreadable": List(Str()),
        },
    ),
)

UNTRACK = Shape(
    "untrack",
    "apm-git untrack --json",
    "The folder no longer tracked (its history kept), and the hooks taken out.",
    Obj(
        {
            "tracked": TRACKED,
            "hooks": HOOKS_WIRED,
        },
    ),
)

NOT_TAKEN: dict[str, Any] = {"trigger": None, "session": None, "commit": None, "files": [], "withheld": [], "cap": None,
                             "background": False, "skipped": None}  # a folder `snapshot --all` could not snapshot


SNAPSHOT = Shape(
    "snapshot",
    "apm-git snapshot --json",
    "One object per tracked folder snapshotted (docs/tracking.md).",
    Obj(
        {
            "snapshots": List(Obj({
                **within(lambda outcome: outcome.snapshot, {
                    **SNAPSHOT_TAKEN.fields, "trigger": Maybe(Enum(words.SnapshotTrigger)),
                }, NOT_TAKEN),
                **within(lambda outcome: outcome.tracked, {"id": Str(), "folder": Str()}),
                "error": Maybe(Str()),
            })),
        },
    ),
)

RESTORE = Shape(
    "restore",
    "apm-git restore --json",
    "What came back, from which snapshot, and the snapshots before and after.",
    Obj(
        {
            "tracked": TRACKED,
            "restored": List(Obj({"path": Str(), "source": Str(SHA), "section": Maybe(Str())})),
            "unchanged": List(Str()),
            "before": Maybe(Str(SHA)),
            "after": Maybe(Str(SHA)),
        },
    ),
)

TRACKED_STATUS = Shape(
    "tracked-status",
    "apm-git status --json on a tracked folder",
    "Its snapshots, what changed since the newest, what a snapshot withholds, the loading cap (docs/tracking.md).",
    Obj(
        {
            "tracked": TRACKED,
            "snapshots": Int(0),
            "last": From(
                Maybe(Obj({
                    "commit": From(Str(SHA), "last_commit"), "date": From(Str(), "last_date"),
                    "trigger": From(Maybe(Enum(words.SnapshotTrigger)), "last_trigger"),
                })),
                lambda status: status if status.last_commit else None,
            ),
            "changed": List(Str()),
            "withheld": SNAPSHOT_WITHHELD,
            "cap": CAP,
            "sessions": Int(0),
            "branch": Maybe(Str()),
        },
    ),
)

TRACKED_SYNC = Shape(
    "tracked-sync",
    "apm-git sync --json on a tracked folder",
    (
        "The remote branch of the project's identity, what came in and how, what was written into the folder "
        "(docs/tracking.md)."
    ),
    Obj(
        {
            "tracked": TRACKED,
            "remote": Str(),
            "branch": Str(),
            "before": Maybe(Str(SHA)),
            "after": Maybe(Str(SHA)),
            "snapshot": Maybe(Str(SHA)),
            "withheld": List(Str()),
            "kind": Maybe(Enum(words.SyncStep)),
            "incoming": Maybe(Str(SHA)),
            "written": List(Str()),
            "conflicts": List(Str()),
            "pushed": Bool(),
            "push_attempts": Int(0),
            "created_branch": Bool(),
            "up_to_date": Bool(),
        },
    ),
)

TRACKED_DIFF = Shape(
    "tracked-diff",
    "apm-git diff --json on a tracked folder",
    "Facts and sections removed, rewritten, moved or added between two states of a tracked folder (docs/tracking.md).",
    Obj(
        {
            "tracked": TRACKED,
            "base": Maybe(Str(SHA)),
            "base_name": Str(),
            "new": Maybe(Str(SHA)),
            "new_name": Str(),
            "facts": List(
                Obj(
                    {
                        "file": Str(),
                        "section": Str(),
                        "status": Enum(words.FactStatus),
                        "text": Str(),
                        "before": Maybe(Str()),
                        "source": Maybe(Str()),
                        "line": Int(0),
                        "commit": Maybe(Str(SHA)),
                        "background": Bool(),
                    },
                ),
            ),
            "sections": List(
                Obj(
                    {
                        "file": Str(),
                        "heading": Str(),
                        "status": Enum(words.TrackedSectionStatus),
                        "source": Maybe(Str()),
                        "line": Int(0),
                        "facts_before": Int(0),
                        "facts_after": Int(0),
                        "commit": Maybe(Str(SHA)),
                        "background": Bool(),
                    },
                ),
            ),
            "files": List(
                Obj(
                    {
                        "path": Str(),
                        "old_path": Maybe(Str()),
                        "status": Enum(words.FileStatus),
                        "lines_before": Maybe(Int(0)),
                        "lines_after": Maybe(Int(0)),
                    },
                ),
            ),
            "snapshots": From(
                List(
                    Ref("log", "#/properties/commits/items"),
                    doc="The snapshots between the two states, newest first, as `apm-git log --json` prints each.",
                ),
                lambda review: _commits(review.snapshots),
            ),
            "summary": From(Obj(
                {
                    "facts": Obj({"removed": Int(0), "rewritten": Int(0), "moved": Int(0), "added": Int(0)}),
                    "sections": Obj(
                        {"removed": Int(0), "added": Int(0), "changed": Int(0), "moved": Int(0), "renamed": Int(0)},
                    ),
                    "files": Int(0),
                    "background": Int(0),
                },
            ), lambda review: _summary(review)),
        },
    ),
)

TRACKED_LINT = Shape(
    "tracked-lint",
    "apm-git lint --json (a tracked folder)",
    (
        "The checks of a tracked folder on every memory file of it as it is now: a suspected secret or a file that "
        "cannot be scanned (apm-no-secrets), MEMORY.md past the loading cap (apm-load-cap)."
    ),
    Obj(
        {
            "tracked": TRACKED,
            "checked": List(Str()),
            "findings": List(
                Obj({"path": Str(), "line": Int(0), "hook": From(Enum(words.TrackedCheckId), "check"),
                     "message": Str()}),
            ),
        },
    ),
)



def tracked_json(tracked: Tracked) -> dict[str, Any]:
    return TRACKED.build(tracked)


def withheld_json(items: Sequence[SnapshotWithheld]) -> list[dict[str, Any]]:
    return SNAPSHOT_WITHHELD.build(items)  # type: ignore[no-any-return]


def snapshot_json(shot: TrackedSnapshot) -> dict[str, Any]:
    return SNAPSHOT_TAKEN.build(shot)


def track_json(result: TrackResult, hooks: list[dict[str, Any]]) -> dict[str, Any]:
    return TRACK.build(result, hooks=hooks)


def listing_json(listed: Sequence[Listed], broken: Sequence[str]) -> dict[str, Any]:
    return TRACK_LIST.build(None, tracked=listed, unreadable=broken)


def untrack_json(tracked: Tracked, hooks: list[dict[str, Any]]) -> dict[str, Any]:
    return UNTRACK.build(None, tracked=tracked, hooks=hooks)


def outcomes_json(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    return SNAPSHOT.build(None, snapshots=outcomes)


def restore_json(result: RestoreResult) -> dict[str, Any]:
    return RESTORE.build(result, before=result.before.commit, after=result.after.commit)


def status_json(result: TrackedStatus) -> dict[str, Any]:
    return TRACKED_STATUS.build(result)


def sync_json(result: TrackedSync) -> dict[str, Any]:
    return TRACKED_SYNC.build(result)


def diff_json(review: TrackedReview) -> dict[str, Any]:
    return TRACKED_DIFF.build(review)


def lint_json(result: TrackedLint) -> dict[str, Any]:
    return TRACKED_LINT.build(result)


def _commits(commits: Sequence[CommitInfo]) -> list[dict[str, Any]]:
    from apm_git.present.shapes_review import COMMIT

    return [COMMIT.build(commit) for commit in commits]


def _summary(review: TrackedReview) -> dict[str, Any]:
    return {"facts": {status: sum(1 for fact in review.facts if fact.status == status)
                      for status in words.FACT_STATUSES},
            "sections": {status: sum(1 for section in review.sections if section.status == status)
                         for status in words.TRACKED_SECTION_STATUSES},
            "files": len(review.files), "background": len(review.background)}
