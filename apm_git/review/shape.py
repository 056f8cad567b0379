"""The JSON of `apm-git diff --format json` and `apm-git log --json`: version 1, documented in docs/review.md.

Built key by key, never from the dataclasses, so renaming a field inside apm-git cannot change it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apm_git.model.vocabulary import ENTRY_STATUSES, SECTION_STATUSES
from apm_git.review import classify as cl
from apm_git.review.commits import COUNTED, CommitInfo

if TYPE_CHECKING:
    from apm_git.review.result import Review

VERSION = 1


def diff_json(review: Review) -> dict[str, Any]:
    return {
        "version": VERSION,
        "base": {"name": review.base_name, "commit": review.base},
        "new": {"name": review.new_name, "commit": review.new},
        "summary": summary(review),
        "entries": [_entry(entry) for entry in review.entries],
        "sections": [_section(section) for section in review.sections],
        "files": [_file(file) for file in review.files],
        "commits": [_commit_brief(commit) for commit in review.commits],
    }


def summary(review: Review) -> dict[str, Any]:
    return {
        "entries": {status: review.count(status) for status in ENTRY_STATUSES},
        "sections": {status: sum(1 for section in review.sections if section.status == status)
                     for status in SECTION_STATUSES},
        "files": len(review.files),
        "over_budget": sum(1 for file in review.files if over_budget(file)),
        "commits": len(review.commits),
    }


def over_budget(file: cl.ReviewedFile) -> bool:
    return file.budget is not None and file.lines_after is not None and file.lines_after > file.budget


def _entry(entry: cl.EntryChange) -> dict[str, Any]:
    return {
        "id": entry.id,
        "title": entry.title,
        "status": entry.status,
        "from": entry.source,
        "to": entry.target,
        "line": entry.line,
        "detail": entry.detail,
        "changes": [
            {"field": change.field, "before": change.before, "after": change.after,
             "words": [{"op": piece.op, "text": piece.text} for piece in change.words]}
            for change in entry.changes
        ],
    }


def _section(section: cl.SectionChange) -> dict[str, Any]:
    return {
        "file": section.file,
        "heading": section.heading,
        "status": section.status,
        "from": section.source,
        "lines_before": section.lines_before,
        "lines_after": section.lines_after,
    }


def _file(file: cl.ReviewedFile) -> dict[str, Any]:
    return {
        "path": file.path,
        "from": file.old_path,
        "status": file.status,
        "lines_before": file.lines_before,
        "lines_after": file.lines_after,
        "budget": file.budget,
        "over_budget": over_budget(file),
        "entries_moved": file.entries_moved,
        "note": file.note,
    }


def _commit_brief(commit: CommitInfo) -> dict[str, Any]:
    return {"commit": commit.sha, "subject": commit.subject, "trigger": commit.trailer("Apm-Trigger"),
            "merge": commit.merge}


def log_json(commits: list[CommitInfo], revision: str) -> dict[str, Any]:
    return {"version": VERSION, "range": revision, "commits": [commit_json(commit) for commit in commits]}


def commit_json(commit: CommitInfo) -> dict[str, Any]:
    counts = commit.counts()
    return {
        "commit": commit.sha,
        "date": commit.date,
        "subject": commit.subject,
        "parents": list(commit.parents),
        "merge": commit.merge,
        "apm": commit.apm,
        "verb": commit.verb or None,
        "trigger": commit.trailer("Apm-Trigger"),
        "scope": commit.trailer("Apm-Scope"),
        "session": commit.trailer("Apm-Session"),
        "counts": {key: counts[key] for key in COUNTED},
        "trailers": [{"key": key, "value": value} for key, value in commit.trailers],
    }
