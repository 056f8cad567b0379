"""The plans of a consolidation as `deep-sleep --plan` and `import --plan` print them, a stage's `plan` in
`--json`, and what `--apply` reads back (apm_git/dreaming/plan_shape.py): version 1 (docs/json.md).

Declared once and built from the declaration, with their memory-relative paths shown relative to the
repository.  Apart from the other shapes of the stages (shapes_dreaming.py) because the stages build their
plan's JSON themselves (operations/stages.py): this module names no command, not even as a type.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from apm_git.model import vocabulary as words
from apm_git.model.names import repo_rel
from apm_git.present.declare import Const, Enum, From, Int, List, Obj, Shape, Str
from apm_git.present.parts import DATE

if TYPE_CHECKING:
    from apm_git.dreaming.importing import ImportPlan
    from apm_git.dreaming.plan import DeepSleepPlan, RemPlan


def _plans(at: Callable[[str], str] = str) -> tuple[Shape, Shape, Shape]:
    """The three plans (deep sleep, REM, import), their memory-relative paths shown by `at` (relative to the
    repository, as git shows them: `plan_json` gives it)."""

    def path(read: str) -> From:
        return From(Str(), lambda item: at(getattr(item, read)))

    date = From(Str(DATE), lambda plan: plan.day.isoformat())
    archive = From(List(Obj({"id": From(Str(), "entry_id"), "from": path("source"), "to": path("target"),
                             "reason": Str(), "score": Int(0)})), "archivals")
    journals = From(List(Obj({"from": path("source"), "to": path("target")})), "journal_moves")
    deep_sleep = Shape(
        "deep-sleep-plan",
        "apm-git deep-sleep --plan",
        (
            "The deep-sleep plan as printed; --apply reads it back by apm_git/dreaming/plan_shape.py (version, stage, "
            "the lists, reason, copies and score may be left out; date and kept are not read)."
        ),
        Obj(
            {
                "stage": Const("deep-sleep"),
                "date": date,
                "promote": From(List(Obj({
                    "id": From(Str(), "entry_id"), "from": path("source"), "to": path("target"), "reason": Str(),
                    "copies": From(List(Str()), lambda promotion: [at(copy) for copy in promotion.copies]),
                })), "promotions"),
                "archive": archive,
                "journals": journals,
                "kept": List(Obj({"id": From(Str(), "entry_id"), "from": path("source"), "reason": Str()})),
            },
        ),
    )
    rem = Shape(
        "rem-plan",
        "the plan of an apm-git rem run",
        "What a REM run does (the plan inside `rem --json`).",
        Obj(
            {
                "stage": Const("rem"),
                "date": date,
                "live": Int(0),
                "proven": List(Obj({"id": From(Str(), "entry_id"), "file": path("file")})),
                "merge": From(List(Obj({
                    "id": From(Str(), "survivor"), "file": path("file"),
                    "merged": From(List(Obj({"id": From(Str(), lambda pair: pair[0]),
                                             "from": From(Str(), lambda pair: at(pair[1]))})), "folded"),
                })), "folds"),
                "supersede": From(List(
                    Obj({"old": Str(), "old_file": path("old_file"), "new": Str(), "new_file": path("new_file"),
                         "summary": Str()}),
                ), "supersessions"),
                "archive": archive,
                "journals": journals,
                "over_budget": List(
                    Obj(
                        {
                            "file": path("file"),
                            "lines": Int(0),
                            "budget": Int(0),
                            "prose": Int(0),
                            "protected": Int(0),
                            "fresh": Int(0),
                        },
                    ),
                ),
            },
        ),
    )
    imported = Shape(
        "import-plan",
        "apm-git import --plan",
        (
            "The import plan as printed; --apply reads it back by apm_git/dreaming/plan_shape.py (items may be dropped "
            "or their kind changed; version, stage, line, form and title may be left out; date and skipped are not "
            "read)."
        ),
        Obj(
            {
                "stage": Const("import"),
                "date": date,
                "import": From(List(
                    Obj(
                        {
                            "id": From(Str(), "entry_id"),
                            "file": path("file"),
                            "line": Int(0),
                            "form": Str(),
                            "kind": Enum(words.EntryKind),
                            "title": Str(),
                        },
                    ),
                ), "items"),
                "skipped": List(Obj({"file": path("file"), "line": Int(0), "reason": Str()})),
            },
        ),
    )
    return deep_sleep, rem, imported


DEEP_SLEEP_PLAN, REM_PLAN, IMPORT_PLAN = _plans()

def plan_json(plan: DeepSleepPlan | RemPlan | ImportPlan, prefix: str) -> dict[str, Any]:
    """A plan as `--plan` prints it, and as a stage's `plan`: its paths relative to the repository."""
    from apm_git.dreaming.importing import ImportPlan
    from apm_git.dreaming.plan import DeepSleepPlan

    deep_sleep, rem, imported = _plans(functools.partial(repo_rel, prefix))
    shape = deep_sleep if isinstance(plan, DeepSleepPlan) else imported if isinstance(plan, ImportPlan) else rem
    return shape.build(plan)
