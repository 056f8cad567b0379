"""The `--json` output of deep-sleep, rem, dream, import, history, forget and resolve: version 1 (docs/json.md).

Declared once and built from the declaration (see apm_git/present/shapes.py).  A stage's `plan` is the
plan as apm_git/present/shapes_plans.py builds it, the same JSON that `deep-sleep --plan` and `import --plan`
print and `--apply` reads.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apm_git.model import vocabulary as words
from apm_git.present.declare import Bool, Enum, List, Maybe, Num, Obj, Ref, Shape, Str, Variants
from apm_git.present.parts import SHA, TRAILER, TRAILERS
from apm_git.present.shapes_loading import EMBEDDED

if TYPE_CHECKING:
    from apm_git.commands.dream import DreamResult
    from apm_git.commands.forget import ForgetResult
    from apm_git.commands.history import HistoryEvent
    from apm_git.commands.resolve import ResolveResult
    from apm_git.operations.consolidation import StageResult


STAGE_RUN = Obj(
    {
        "stage": Enum(words.StageName),
        "subject": Str(),
        "plan": Variants(Ref("deep-sleep-plan"), Ref("rem-plan"), Ref("import-plan")),
        "trailers": TRAILERS,
        "commit": Maybe(Str(SHA)),
        "flushed": Maybe(Str(SHA)),
        "dry_run": Bool(),
        "elapsed": Num(doc="seconds"),
        "refused": Maybe(Str()),
        "left_out": List(Str()),
    },
)

STAGE = Shape(
    "stage",
    "apm-git deep-sleep|rem|import --apply --json",
    "One consolidation run: its plan, trailers and commit.",
    STAGE_RUN,
)

DREAM = Shape(
    "dream",
    "apm-git dream --json",
    "The stages that were due and ran, each as in stage.schema.json.",
    Obj({"ran": List(Obj({**STAGE_RUN.fields, "stage": Enum(("deep-sleep", "rem", "import"))})),
         "refused": Maybe(Str()),
         "vectors": List(EMBEDDED, doc="The meaning layer's vectors brought up to date, each as in "
                                                 "embed.schema.json: only where `apm-git embed` made them."),
         "vectors_note": Maybe(Str(), doc="Why vectors there were not brought up to date (the extra is missing), "
                                          "or null.")}),
)

HISTORY = Shape(
    "history",
    "apm-git history --json",
    "Every commit that touched the entry, oldest first.",
    Obj(
        {
            "entry": Str(),
            "events": List(
                Obj(
                    {
                        "date": Str(doc="ISO 8601 date and time"),
                        "commit": Str(doc="short"),
                        "trigger": Str(doc="Apm-Trigger, or - for a commit apm-git did not make"),
                        "what": Enum(words.HistoryWhat),
                        "file": Str(),
                        "source": Maybe(Str()),
                        "detail": Str(),
                        "subject": Str(),
                    },
                ),
            ),
        },
    ),
)

FORGET = Shape(
    "forget",
    "apm-git forget --json",
    "The deletion commit and the entries it deleted.",
    Obj({"commit": Str(SHA), "reason": Str(), "forgotten": List(Obj({"entry_id": Str(), "file": Str()}))}),
)

RESOLVE = Shape(
    "resolve",
    "apm-git resolve --json",
    "A conflict settled: which version stayed, what became of the other, and the commit.",
    Obj(
        {
            "entry": Str(doc="the ENTRY-ID given"),
            "other": Str(doc="the entry it was in conflict with"),
            "keep": Enum(words.Keep),
            "kept": Str(doc="the id that stays live"),
            "gone": Maybe(Str(), doc="the id that went (null: it was no longer there, only the link was dropped)"),
            "how": Maybe(Enum(("superseded", "merged",))),
            "file": Str(doc="repo-relative: where the kept version is"),
            "archive": Maybe(Str(), doc="repo-relative: the archive the superseded version went to (null: none)"),
            "commit": Maybe(Str(SHA)),
            "flushed": Maybe(Str(SHA)),
            "trailers": List(TRAILER),
        },
    ),
)



def stage_json(result: StageResult) -> dict[str, Any]:
    return STAGE.build(result)


def dream_json(result: DreamResult) -> dict[str, Any]:
    return DREAM.build(result)


def history_json(entry_id: str, events: list[HistoryEvent]) -> dict[str, Any]:
    return HISTORY.build(None, entry=entry_id, events=events)


def forget_json(result: ForgetResult) -> dict[str, Any]:
    return FORGET.build(result)


def resolve_json(result: ResolveResult, prefix: str) -> dict[str, Any]:
    settled = result.settled
    return RESOLVE.build(
        settled, file=f"{prefix}/{settled.kept_file}",
        archive=None if settled.archive is None else f"{prefix}/{settled.archive}", commit=result.commit,
        flushed=result.flushed, trailers=[{"key": key, "value": value} for key, value in result.trailers])

