"""The `--json` output of the memory commands (init, setup, merge-driver, merge-counters, journal add, flush, index,
status, lint, baseline, allow-secret, load, remember, search, hit): version 1, documented in docs/json.md.

Each shape is built key by key from the command's result, never with `dataclasses.asdict`, so renaming a
field inside apm-git cannot change the output; apm_git/schemas/<command>.schema.json declares each one
and tests/cli/test_json_schemas.py holds the real output to it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from apm_git.commands.hit import HitResult
    from apm_git.commands.index import IndexResult
    from apm_git.commands.init import InitResult
    from apm_git.commands.lint import LintResult
    from apm_git.commands.load import LoadResult
    from apm_git.commands.merge_counters import CountersResult
    from apm_git.commands.merge_driver import DriverResult
    from apm_git.commands.remember import RememberResult
    from apm_git.commands.search import SearchResult
    from apm_git.commands.setup import SetupResult
    from apm_git.commands.status import StatusResult
    from apm_git.model.snapshot import Finding
    from apm_git.model.withhold import WithheldSection
    from apm_git.operations.baseline import BaselineResult
    from apm_git.operations.flush import FlushResult
    from apm_git.operations.journal import JournalEntry

VERSION = 1  # raised when a key is removed or renamed; a new key may come within a version


def finding(item: Finding) -> dict[str, Any]:
    return {"path": item.path, "line": item.line, "hook": item.hook, "message": item.message}


def init_json(result: InitResult) -> dict[str, Any]:
    adoption = result.adoption
    return {
        "version": VERSION,
        "root": str(result.root),
        "created": list(result.created),
        "updated": list(result.updated),
        "commit": result.commit,
        "git_initialized": result.git_initialized,
        "hooks_installed": result.hooks_installed,
        "warning": result.warning,
        "adoption": {
            "commit": adoption.commit,
            "files": list(adoption.files),
            "withheld": list(adoption.withheld),
            "kept": [[was, now] for was, now in adoption.kept],
            "known": adoption.known,
        },
    }


def setup_json(result: SetupResult) -> dict[str, Any]:
    return {"version": VERSION, "root": str(result.root), "registered": list(result.registered),
            "warning": result.warning}


def merge_driver_json(result: DriverResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "path": result.path,
        "wrote": result.wrote,
        "memory_wide": result.memory_wide,
        "conflicts": [{"path": item.path, "what": item.what, "entry": item.entry} for item in result.conflicts],
        "unmerged": list(result.unmerged),
        "over_budget": None if result.over_budget is None else {
            "lines": result.over_budget[0], "budget": result.over_budget[1]},
    }


def merge_counters_json(result: CountersResult) -> dict[str, Any]:
    return {"version": VERSION, "merge": result.merge, "counted": list(result.counted), "commit": result.commit,
            "left": list(result.left), "skipped": result.skipped}


def journal_add_json(entry: JournalEntry) -> dict[str, Any]:
    return {"version": VERSION, "entry_id": entry.entry_id, "file": entry.file, "line": entry.line}


def flush_json(result: FlushResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "trigger": result.trigger,
        "scope": result.scope,
        "session": result.session,
        "commit": result.commit,
        "files": list(result.files),
        "created": list(result.created),
        "findings": list(result.findings),
        "withheld": list(result.withheld),
        "withheld_sections": withheld_json(result.withheld_sections),
        "kept_index": list(result.kept_index),
        "too_large": list(result.too_large),
        "lost": dict(result.lost),
        "unreadable": list(result.unreadable),
        "kept_files": list(result.kept_files),
        "notes": list(result.notes),
        "skipped": result.skipped,
    }


def index_json(result: IndexResult) -> dict[str, Any]:
    return {"version": VERSION, "path": result.path, "changed": result.changed}


def status_json(result: StatusResult, audited: dict[str, object] | None) -> dict[str, Any]:
    found = result.findings
    return {
        "version": VERSION,
        "files": [{"file": item.file, "lines": item.lines, "budget": item.budget} for item in result.files],
        "last_flush": dict(result.last_flush),
        "pending_items": list(result.pending_items),
        "pending_records": [{"entry": item.entry, "file": item.file, "line": item.line, "title": item.title}
                            for item in result.pending_records],
        "due": [{"stage": due.stage, "last_run": due.last_run, "next_due": due.next_due, "due_now": due.due_now}
                for due in result.due],
        "uncommitted": list(result.uncommitted),
        "findings": {
            "new": [finding(item) for item in found.new],
            "new_totals": found.totals(found.new),
            "known_totals": found.totals(found.known),
            "withheld": [finding(item) for item in found.withheld],
            "problem": found.problem,
        },
        "not_set_up": list(result.not_set_up),
        "in_conflict": [{"entry": item.entry, "file": item.file, "line": item.line, "conflicts": item.conflicts}
                        for item in result.in_conflict],
        "last_audit": _last_audit(audited),
    }


def _last_audit(audited: dict[str, object] | None) -> dict[str, Any] | None:
    """The record `apm-git audit` left (.git/apm-git): read from a file, so each value is checked for its type."""
    if audited is None:
        return None
    compaction = audited.get("last_compaction")

    def text(data: dict[Any, Any], key: str) -> str | None:
        value = data.get(key)
        return value if isinstance(value, str) else None

    last = None
    if isinstance(compaction, dict):
        line = compaction.get("line")
        last = {"session": text(compaction, "session"), "transcript": text(compaction, "transcript"),
                "line": line if isinstance(line, int) and not isinstance(line, bool) else None,
                "time": text(compaction, "time"), "trigger": text(compaction, "trigger"),
                "flushed_by": text(compaction, "flushed_by")}
    return {"audited_at": text(audited, "audited_at"), "last_compaction": last}


def lint_json(result: LintResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "base": result.base,
        "new": result.new,
        "checked": list(result.checked),
        "findings": [finding(item) for item in result.findings],
        "known": [finding(item) for item in result.known],
        "merges": list(result.merges),
    }


def baseline_json(result: BaselineResult) -> dict[str, Any]:
    """Of `baseline` and of `allow-secret`: the baseline file, what this run added, how many it knows now."""
    return {"version": VERSION, "path": result.path, "added": list(result.added), "total": result.total}


def load_json(result: LoadResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "mode": result.mode,
        "scope": result.scope,
        "intent": result.intent,
        "budget": result.budget,
        "encoding": result.encoding,
        "session": result.session,
        "group": result.group,
        "room": result.room,
        "routes": [{"file": route.file, "priority": route.priority, "hits": list(route.hits), "reason": route.reason}
                   for route in result.routes],
        "domain": result.domain,
        "domain_hits": list(result.domain_hits),
        "recall": result.recall,
        "guide": result.guide,
        "files": [
            {"path": item.path, "role": item.role, "priority": item.priority, "tokens": item.tokens,
             "file_tokens": item.file_tokens, "text": item.text, "cut": item.cut, "why": item.why}
            for item in result.files
        ],
        "skipped": [{"path": item.path, "role": item.role, "priority": item.priority, "reason": item.reason}
                    for item in result.skipped],
        "warnings": list(result.warnings),
        "last_flush": result.last_flush,
        "tokens": result.tokens,
        "withheld": withheld_json(result.withheld),
    }


def withheld_json(sections: list[WithheldSection]) -> list[dict[str, Any]]:
    """Sections kept uncommitted for a suspected secret (heading null: the heading holds it)."""
    return [{"path": item.path, "line": item.line, "heading": item.heading, "kinds": list(item.kinds)}
            for item in sections]


def remember_json(result: RememberResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "scope": result.scope,
        "action": result.action,
        "file": result.file,
        "line": result.line,
        "entry_id": result.entry_id,
        "detail": result.detail,
        "created": list(result.created),
        "rows_added": list(result.rows_added),
        "rows_deprecated": list(result.rows_deprecated),
    }


def search_json(result: SearchResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "query": result.query,
        "where": result.where,
        "method": result.method,
        "hits": [
            {"entry_id": hit.entry_id, "file": hit.file, "line": hit.line, "last": hit.last, "section": hit.section,
             "heading": hit.heading, "trail": hit.trail, "date": hit.date, "snippet": hit.snippet,
             "archived": hit.archived, "score": hit.score, "matched": list(hit.matched)}
            for hit in result.hits
        ],
        "total": result.total,
        "files_searched": result.files_searched,
        "skipped": list(result.skipped),
    }


def hit_json(result: HitResult) -> dict[str, Any]:
    return {
        "version": VERSION,
        "hits": [
            {"entry_id": item.entry_id, "file": item.file, "line": item.line, "hit_count": item.hit_count,
             "last_referenced": item.last_referenced, "previous_hit_count": item.previous_hit_count,
             "previous_last_referenced": item.previous_last_referenced}
            for item in result.hits
        ],
        "misses": [{"entry_id": miss.entry_id, "reason": miss.reason} for miss in result.misses],
        "warnings": list(result.warnings),
    }
