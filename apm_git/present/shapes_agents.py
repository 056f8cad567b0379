"""The `--json` output of recall, hooks, audit, ci and sync: version 1 (docs/json.md, docs/sync.md).

Built key by key (see apm_git/present/shapes.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apm_git.present.shapes import VERSION, withheld_json

if TYPE_CHECKING:
    from apm_git.agents.audit import AuditResult
    from apm_git.agents.hooks import InstallResult, Location, UninstallResult
    from apm_git.agents.timers import TimerResult
    from apm_git.commands.ci import CiResult
    from apm_git.commands.recall import RecallResult
    from apm_git.commands.sync import SyncResult
    from apm_git.operations.sync_land import JournalOverBudget


def recall_json(result: RecallResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "prompt": result.prompt,
        "sections": [{"file": item.file, "line": item.line, "entry_id": item.entry_id, "heading": item.heading,
                      "trail": item.trail, "date": item.date, "lines": [list(span) for span in item.lines],
                      "matched": list(item.matched), "text": item.text} for item in result.sections],
        "tokens": result.tokens,
        "budget": result.budget,
        "method": result.method,
        "withheld": withheld_json(result.withheld),
    }


def install_json(result: InstallResult) -> dict[str, Any]:
    return {"version": VERSION, "agent": "claude-code", "path": result.path, "memory": result.memory,
            "added": list(result.added), "written": result.written, "notes": list(result.notes),
            "warnings": list(result.warnings)}


def uninstall_json(result: UninstallResult) -> dict[str, Any]:
    return {"version": VERSION, "agent": "claude-code", "path": result.path, "removed": list(result.removed),
            "written": result.written}


def timer_json(result: TimerResult) -> dict[str, Any]:
    """`hooks install timer` and `hooks uninstall timer`."""
    return {"version": VERSION, "agent": "timer", "kind": result.kind, "where": result.where,
            "changed": list(result.changed), "next_step": result.next_step}


def hooks_status_json(places: list[Location]) -> dict[str, Any]:
    return {
        "version": VERSION,
        "places": [
            {"where": place.where, "path": place.path, "exists": place.exists,
             "hooks": [{"event": check.event, "command": check.command, "passed": check.passed,
                        "detail": check.detail} for check in place.hooks]}
            for place in places
        ],
    }


def audit_json(result: AuditResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "transcripts": result.transcripts,
        "compactions": [
            {"session": item.session, "transcript": item.transcript, "line": item.line, "time": item.time,
             "trigger": item.trigger, "flushed_by": item.flushed_by}
            for item in result.compactions
        ],
        "session_ends": [{"session": end.session, "transcript": end.transcript, "time": end.time,
                          "flushed_by": end.flushed_by} for end in result.session_ends],
        "running": list(result.running),
        "missing": result.missing,
    }


def ci_json(result: CiResult) -> dict[str, Any]:
    return {"version": VERSION, "provider": result.provider, "path": result.path, "action": result.action,
            "install_spec": result.install_spec, "include": result.include}


def _over_budget(over: JournalOverBudget) -> dict[str, Any]:
    return {"path": over.path, "lines": over.lines, "budget": over.budget}


def sync_json(result: SyncResult) -> dict[str, Any]:
    """The shape docs/sharing.md and docs/sync.md describe."""
    return {
        "version": VERSION,
        "remote": result.remote,
        "branch": result.branch,
        "local_branch": result.local_branch,
        "before": result.before,
        "after": result.after,
        "flushed": result.flushed,
        "flush_notes": list(result.flush_notes),
        "withheld": list(result.withheld),
        "withheld_sections": withheld_json(result.withheld_sections),
        "too_large": list(result.too_large),
        "pushed": result.pushed,
        "push_attempts": result.push_attempts,
        "set_upstream": result.set_upstream,
        "created_branch": result.created_branch,
        "up_to_date": result.up_to_date,
        "integrated": [
            {"source": step.source, "kind": step.kind, "commit": step.commit, "incoming": step.incoming,
             "backup": step.backup, "conflicts": list(step.conflicts), "archived": list(step.archived),
             "unmerged": list(step.unmerged), "left": list(step.left), "notes": list(step.notes),
             "journals_over_budget": [_over_budget(over) for over in step.journals_over_budget]}
            for step in result.integrated
        ],
        "conflicts": result.conflicts,
        "unmerged": result.unmerged,
        "left": result.left,
        "notes": result.notes,
        "journals_over_budget": [_over_budget(over) for over in result.journals_over_budget],
    }
