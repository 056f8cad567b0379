"""The `--json` output of tracked folders: track, track --list, untrack, snapshot, restore, and diff, status and
sync on a tracked folder; version 1 (docs/json.md, docs/tracking.md).  Built key by key (see apm_git/present/shapes.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from apm_git.present.shapes import VERSION

if TYPE_CHECKING:
    from apm_git.commands.restore import RestoreResult
    from apm_git.commands.snapshot import Outcome
    from apm_git.commands.track import Listed, TrackResult
    from apm_git.commands.tracked_lint import TrackedLint
    from apm_git.commands.tracked_status import TrackedStatus
    from apm_git.operations.snapshot import SnapshotWithheld, TrackedSnapshot
    from apm_git.operations.tracked_diff import TrackedReview
    from apm_git.operations.tracked_sync import TrackedSync
    from apm_git.store.tracked import Tracked
    from apm_git.tracking.cap import CapReport


def tracked_json(tracked: Tracked) -> dict[str, Any]:
    return {"id": tracked.id, "agent": tracked.agent, "folder": tracked.folder, "project": tracked.project,
            "identity": tracked.identity, "remote": tracked.remote, "active": tracked.active,
            "history": str(tracked.git_dir)}


def cap_json(cap: CapReport | None) -> dict[str, Any] | None:
    if cap is None:
        return None
    return {"file": cap.file, "lines": cap.lines, "bytes": cap.bytes, "max_lines": cap.limits.lines,
            "max_bytes": cap.limits.bytes, "loaded_lines": cap.loaded_lines, "over": cap.over,
            "cut": [{"heading": cut.heading, "line": cut.line, "partly": cut.partly} for cut in cap.cut]}


def withheld_json(items: Sequence[SnapshotWithheld]) -> list[dict[str, Any]]:
    return [{"path": item.path, "line": item.line, "why": item.why} for item in items]


def snapshot_json(shot: TrackedSnapshot) -> dict[str, Any]:
    return {"id": shot.tracked.id, "folder": shot.tracked.folder, "trigger": shot.trigger, "session": shot.session,
            "commit": shot.commit, "files": list(shot.files), "withheld": withheld_json(shot.withheld),
            "cap": cap_json(shot.cap), "background": shot.background, "skipped": shot.skipped}


def track_json(result: TrackResult, hooks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": VERSION, "tracked": tracked_json(result.tracked), "created": result.created,
            "snapshot": snapshot_json(result.snapshot), "hooks": hooks, "notes": list(result.notes)}


def listing_json(listed: Sequence[Listed], broken: Sequence[str]) -> dict[str, Any]:
    return {"version": VERSION, "tracked": [
        {**tracked_json(item.tracked), "snapshots": item.snapshots, "last": item.last,
         "last_trigger": item.last_trigger, "problem": item.problem} for item in listed], "unreadable": list(broken)}


def untrack_json(tracked: Tracked, hooks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": VERSION, "tracked": tracked_json(tracked), "hooks": hooks}


def outcomes_json(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    return {"version": VERSION, "snapshots": [
        {**(snapshot_json(outcome.snapshot) if outcome.snapshot else
            {"id": outcome.tracked.id, "folder": outcome.tracked.folder, "trigger": None, "session": None,
             "commit": None, "files": [], "withheld": [], "cap": None, "background": False, "skipped": None}),
         "error": outcome.error} for outcome in outcomes]}


def restore_json(result: RestoreResult) -> dict[str, Any]:
    return {"version": VERSION, "tracked": tracked_json(result.tracked),
            "restored": [{"path": item.path, "source": item.source, "section": item.section}
                         for item in result.restored],
            "unchanged": list(result.unchanged), "before": result.before.commit, "after": result.after.commit}


def status_json(result: TrackedStatus) -> dict[str, Any]:
    return {"version": VERSION, "tracked": tracked_json(result.tracked), "snapshots": result.snapshots,
            "last": {"commit": result.last_commit, "date": result.last_date, "trigger": result.last_trigger}
            if result.last_commit else None,
            "changed": list(result.changed), "withheld": withheld_json(result.withheld), "cap": cap_json(result.cap),
            "sessions": result.sessions, "branch": result.branch}


def sync_json(result: TrackedSync) -> dict[str, Any]:
    return {"version": VERSION, "tracked": tracked_json(result.tracked), "remote": result.remote,
            "branch": result.branch, "before": result.before, "after": result.after, "snapshot": result.snapshot,
            "withheld": list(result.withheld), "kind": result.kind, "incoming": result.incoming,
            "written": list(result.written), "conflicts": list(result.conflicts), "pushed": result.pushed,
            "push_attempts": result.push_attempts, "created_branch": result.created_branch,
            "up_to_date": result.up_to_date}


def diff_json(review: TrackedReview) -> dict[str, Any]:
    from apm_git.model.vocabulary import FACT_STATUSES, TRACKED_SECTION_STATUSES
    from apm_git.review.shape import commit_json

    return {
        "version": VERSION, "tracked": tracked_json(review.tracked), "base": review.base,
        "base_name": review.base_name, "new": review.new, "new_name": review.new_name,
        "facts": [{"file": fact.file, "section": fact.section, "status": fact.status, "text": fact.text,
                   "before": fact.before, "source": fact.source, "line": fact.line, "commit": fact.commit,
                   "background": fact.background} for fact in review.facts],
        "sections": [{"file": section.file, "heading": section.heading, "status": section.status,
                      "source": section.source, "line": section.line, "facts_before": section.facts_before,
                      "facts_after": section.facts_after, "commit": section.commit,
                      "background": section.background} for section in review.sections],
        "files": [{"path": stat.path, "old_path": stat.old_path, "status": stat.status,
                   "lines_before": stat.lines_before, "lines_after": stat.lines_after} for stat in review.files],
        "snapshots": [commit_json(commit) for commit in review.snapshots],
        "summary": {"facts": {status: sum(1 for fact in review.facts if fact.status == status)
                              for status in FACT_STATUSES},
                    "sections": {status: sum(1 for section in review.sections if section.status == status)
                                 for status in TRACKED_SECTION_STATUSES},
                    "files": len(review.files), "background": len(review.background)},
    }


def lint_json(result: TrackedLint) -> dict[str, Any]:
    return {"version": VERSION, "tracked": tracked_json(result.tracked), "checked": list(result.checked),
            "findings": [{"path": item.path, "line": item.line, "hook": item.check, "message": item.message}
                         for item in result.findings]}
