"""The `--json` output of diff and log (docs/review.md): version 1, declared once and built from the
declaration, never from the dataclasses, so renaming a field inside apm-git cannot change it."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apm_git.model import vocabulary as words
from apm_git.present.declare import Bool, Enum, From, Int, List, Maybe, Obj, Shape, Str
from apm_git.present.parts import SHA, TRAILER

if TYPE_CHECKING:
    from apm_git.review.commits import CommitInfo
    from apm_git.review.result import Review

# One commit as `log --json` prints it (and `diff --json` of a tracked folder, its snapshots).
COMMIT = Obj(
    {
        "commit": From(Str(SHA), "sha"),
        "date": Str(doc="ISO 8601 date and time"),
        "subject": Str(),
        "parents": List(Str(SHA)),
        "merge": Bool(),
        "apm": Bool(),
        "verb": From(Maybe(Str()), lambda commit: commit.verb or None),
        "trigger": From(Maybe(Str()), lambda commit: commit.trailer("Apm-Trigger")),
        "scope": From(Maybe(Str()), lambda commit: commit.trailer("Apm-Scope")),
        "session": From(Maybe(Str()), lambda commit: commit.trailer("Apm-Session")),
        "counts": From(
            Obj(
                {
                    "conflicts": Int(
                        0,
                        doc="Apm-Conflict: entries a sync merge kept in two versions for a person to settle",
                    ),
                    "promoted": Int(0),
                    "archived": Int(0),
                    "superseded": Int(0),
                    "merged": Int(0),
                    "proven": Int(0),
                    "journals": Int(0),
                    "forgotten": Int(0),
                    "imported": Int(0),
                    "findings": Int(0),
                    "withheld": Int(0),
                },
            ),
            lambda commit: commit.counts(),
        ),
        "trailers": From(List(TRAILER), lambda commit: [{"key": key, "value": value}
                                                        for key, value in commit.trailers]),
    },
)

DIFF = Shape(
    "diff",
    "apm-git diff --format json",
    "What happened to each entry, section and file between two states (docs/review.md).",
    Obj(
        {
            "base": From(Obj({"name": From(Str(), "base_name"), "commit": From(Maybe(Str(SHA)), "base")}),
                         lambda review: review),
            "new": From(Obj({"name": From(Str(), "new_name"), "commit": From(Maybe(Str(SHA)), "new")}),
                        lambda review: review),
            "summary": From(Obj(
                {
                    "entries": Obj(
                        {
                            "loss": Int(0),
                            "conflict": Int(0),
                            "added": Int(0),
                            "imported": Int(0),
                            "edited": Int(0),
                            "proven": Int(0),
                            "promoted": Int(0),
                            "moved": Int(0),
                            "archived": Int(0),
                            "superseded": Int(0),
                            "merged": Int(0),
                            "forgotten": Int(0),
                            "removed": Int(0),
                        },
                    ),
                    "sections": Obj({"added": Int(0), "removed": Int(0), "changed": Int(0), "moved": Int(0)}),
                    "files": Int(0),
                    "over_budget": Int(0),
                    "commits": Int(0),
                },
            ), lambda review: _summary(review)),
            "entries": List(
                Obj(
                    {
                        "id": Str(),
                        "title": Str(),
                        "status": Enum(words.EntryStatus),
                        "from": From(Maybe(Str()), "source"),
                        "to": From(Maybe(Str()), "target"),
                        "line": Int(0),
                        "detail": Str(),
                        "changes": List(
                            Obj(
                                {
                                    "field": Str(),
                                    "before": Maybe(Str()),
                                    "after": Maybe(Str()),
                                    "words": List(Obj({"op": Enum(("=", "-", "+",)), "text": Str()})),
                                },
                            ),
                        ),
                    },
                ),
            ),
            "sections": List(
                Obj(
                    {
                        "file": Str(),
                        "heading": Str(),
                        "status": Enum(words.SectionStatus),
                        "from": From(Maybe(Str()), "source"),
                        "lines_before": Int(0),
                        "lines_after": Int(0),
                    },
                ),
            ),
            "files": List(
                Obj(
                    {
                        "path": Str(),
                        "from": From(Maybe(Str()), "old_path"),
                        "status": Enum(words.FileStatus),
                        "lines_before": Maybe(Int(0)),
                        "lines_after": Maybe(Int(0)),
                        "budget": Maybe(Int(0)),
                        "over_budget": Bool(),
                        "entries_moved": Int(0),
                        "note": Str(),
                    },
                ),
            ),
            "commits": List(
                Obj({"commit": COMMIT.fields["commit"], "subject": Str(), "trigger": COMMIT.fields["trigger"],
                     "merge": Bool()}),
            ),
        },
    ),
)

LOG = Shape(
    "log",
    "apm-git log --json",
    "One object per commit, newest first (docs/review.md).",
    Obj(
        {
            "range": Str(),
            "commits": List(COMMIT),
        },
    ),
)


def diff_json(review: Review) -> dict[str, Any]:
    return DIFF.build(review)


def log_json(commits: list[CommitInfo], revision: str) -> dict[str, Any]:
    return LOG.build(None, range=revision, commits=commits)


def _summary(review: Review) -> dict[str, Any]:
    return {
        "entries": {status: review.count(status) for status in words.ENTRY_STATUSES},
        "sections": {status: sum(1 for section in review.sections if section.status == status)
                     for status in words.SECTION_STATUSES},
        "files": len(review.files),
        "over_budget": sum(1 for file in review.files if file.over_budget),
        "commits": len(review.commits),
    }
