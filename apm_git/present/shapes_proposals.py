"""The `--json` output of proposals, accept, reject, what `--propose` prints, and a person's curation."""
from __future__ import annotations

from apm_git.model import vocabulary as words
from apm_git.present.declare import Bool, Enum, Int, List, Maybe, Obj, Shape, Str
from apm_git.present.parts import SHA, TRAILERS

PROPOSALS = Shape(
    "proposals",
    "apm-git proposals --json",
    "The open proposals, each with its items.",
    Obj(
        {
            "proposals": List(
                Obj(
                    {
                        "name": Str(),
                        "branch": Str(),
                        "commit": Str(SHA),
                        "base": Str(SHA),
                        "stage": Enum(words.DueStage),
                        "date": Str(),
                        "subject": Str(),
                        "behind": Int(0),
                        "items": List(Obj({"id": Str(), "verb": Str(), "detail": Str()})),
                    },
                ),
            ),
        },
    ),
)

PROPOSED = Shape(
    "proposed",
    "apm-git deep-sleep|rem|dream --propose --json",
    "The proposals a run made: one per stage that ran; `proposal` null when there was nothing to propose.",
    Obj(
        {
            "proposed": List(
                Obj(
                    {
                        "stage": Enum(words.DueStage),
                        "subject": Str(),
                        "proposal": Maybe(Str()),
                        "commit": Maybe(Str(SHA)),
                        "kept": Bool(),
                        "replaced": List(Str()),
                        "flushed": Maybe(Str()),
                        "trailers": TRAILERS,
                    },
                ),
            ),
            "refused": Maybe(Str()),
        },
    ),
)

ACCEPT = Shape(
    "accept",
    "apm-git accept --json",
    "The commit that landed the accepted items of a proposal.",
    Obj(
        {
            "proposal": Str(),
            "commit": Maybe(Str(SHA)),
            "subject": Str(),
            "accepted": List(Str()),
            "dropped": List(Str()),
            "flushed": Maybe(Str()),
            "trailers": TRAILERS,
        },
    ),
)

REJECT = Shape(
    "reject",
    "apm-git reject --json",
    "The proposal dropped, and the commit its branch held.",
    Obj({"rejected": Str(), "commit": Str(SHA)}),
)

CURATE = Shape(
    "curate",
    "apm-git edit|restore|hit --commit --json",
    "A person's change to entries as one commit (`edit` without --from: the record shown, no commit).",
    Obj(
        {
            "verb": Enum(("edit", "hit", "restore", "show",)),
            "entries": List(Str()),
            "files": List(Str()),
            "commit": Maybe(Str(SHA)),
        },
    ),
)
