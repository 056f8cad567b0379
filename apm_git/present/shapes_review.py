"""The `--json` output of diff and log (docs/review.md), declared here; apm_git/review/shape.py builds it."""
from __future__ import annotations

from apm_git.model import vocabulary as words
from apm_git.present.declare import Bool, Enum, Int, List, Maybe, Obj, Shape, Str
from apm_git.present.parts import SHA, TRAILER

DIFF = Shape(
    "diff",
    "apm-git diff --format json",
    "What happened to each entry, section and file between two states (docs/review.md).",
    Obj(
        {
            "base": Obj({"name": Str(), "commit": Maybe(Str(SHA))}),
            "new": Obj({"name": Str(), "commit": Maybe(Str(SHA))}),
            "summary": Obj(
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
            ),
            "entries": List(
                Obj(
                    {
                        "id": Str(),
                        "title": Str(),
                        "status": Enum(words.EntryStatus),
                        "from": Maybe(Str()),
                        "to": Maybe(Str()),
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
                        "from": Maybe(Str()),
                        "lines_before": Int(0),
                        "lines_after": Int(0),
                    },
                ),
            ),
            "files": List(
                Obj(
                    {
                        "path": Str(),
                        "from": Maybe(Str()),
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
            "commits": List(Obj({"commit": Str(SHA), "subject": Str(), "trigger": Maybe(Str()), "merge": Bool()})),
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
            "commits": List(
                Obj(
                    {
                        "commit": Str(SHA),
                        "date": Str(doc="ISO 8601 date and time"),
                        "subject": Str(),
                        "parents": List(Str(SHA)),
                        "merge": Bool(),
                        "apm": Bool(),
                        "verb": Maybe(Str()),
                        "trigger": Maybe(Str()),
                        "scope": Maybe(Str()),
                        "session": Maybe(Str()),
                        "counts": Obj(
                            {
                                "conflicts": Int(
                                    0,
                                    doc=(
                                        "Apm-Conflict: entries a sync merge kept in two versions for a person to "
                                        "settle"
                                    ),
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
                        "trailers": List(TRAILER),
                    },
                ),
            ),
        },
    ),
)
