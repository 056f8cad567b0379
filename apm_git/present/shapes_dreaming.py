"""The `--json` output of deep-sleep, rem, dream, import, history, forget and resolve: version 1 (docs/json.md).

Built key by key (see apm_git/present/shapes.py).  A stage's `plan` is the plan the planners already write
key by key, the same JSON that `deep-sleep --plan` and `import --plan` print and `--apply` reads.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apm_git.present.shapes import VERSION

if TYPE_CHECKING:
    from apm_git.commands.dream import DreamResult
    from apm_git.commands.forget import ForgetResult
    from apm_git.commands.history import HistoryEvent
    from apm_git.commands.resolve import ResolveResult
    from apm_git.operations.consolidation import StageResult


def stage(result: StageResult) -> dict[str, Any]:
    """One run of a stage (deep-sleep, rem, import), without the version: `dream` lists several."""
    return {
        "stage": result.stage,
        "subject": result.subject,
        "plan": result.plan,
        "trailers": [[key, value] for key, value in result.trailers],
        "commit": result.commit,
        "flushed": result.flushed,
        "dry_run": result.dry_run,
        "elapsed": result.elapsed,
        "refused": result.refused,
        "left_out": list(result.left_out),
    }


def stage_json(result: StageResult) -> dict[str, Any]:
    return {"version": VERSION, **stage(result)}


def dream_json(result: DreamResult) -> dict[str, Any]:
    return {"version": VERSION, "ran": [stage(item) for item in result.ran], "refused": result.refused}


def history_json(entry_id: str, events: list[HistoryEvent]) -> dict[str, Any]:
    return {
        "version": VERSION,
        "entry": entry_id,
        "events": [
            {"date": event.date, "commit": event.commit, "trigger": event.trigger, "what": event.what,
             "file": event.file, "source": event.source, "detail": event.detail, "subject": event.subject}
            for event in events
        ],
    }


def forget_json(result: ForgetResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "commit": result.commit,
        "reason": result.reason,
        "forgotten": [{"entry_id": item.entry_id, "file": item.file} for item in result.forgotten],
    }


def resolve_json(result: ResolveResult, prefix: str) -> dict[str, Any]:
    settled = result.settled
    return {
        "version": VERSION,
        "entry": settled.entry,
        "other": settled.other,
        "keep": settled.keep,
        "kept": settled.kept,
        "gone": settled.gone,
        "how": settled.how,
        "file": f"{prefix}/{settled.kept_file}",
        "archive": None if settled.archive is None else f"{prefix}/{settled.archive}",
        "commit": result.commit,
        "flushed": result.flushed,
        "trailers": [{"key": key, "value": value} for key, value in result.trailers],
    }
