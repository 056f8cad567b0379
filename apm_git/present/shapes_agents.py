"""The `--json` output of recall, hooks, audit, ci and sync: version 1 (docs/json.md, docs/sync.md).

Declared once and built from the declaration (see apm_git/present/shapes.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apm_git.model import vocabulary as words
from apm_git.present.declare import Bool, Const, Enum, Int, List, Maybe, Obj, Shape, Str
from apm_git.present.parts import OVER_BUDGET, SHA, WITHHELD_SECTIONS

if TYPE_CHECKING:
    from apm_git.agents.audit import AuditResult
    from apm_git.agents.hooks import InstallResult, Location, UninstallResult
    from apm_git.agents.timers import TimerResult
    from apm_git.commands.ci import CiResult
    from apm_git.commands.recall import RecallResult
    from apm_git.commands.sync import SyncResult


RECALL = Shape(
    "recall",
    "apm-git recall --json",
    "The passages recalled for a prompt, by section.",
    Obj(
        {
            "prompt": Str(),
            "sections": List(
                Obj(
                    {
                        "file": Str(),
                        "line": Int(0, doc="The first passage's first line."),
                        "entry_id": Maybe(Str()),
                        "heading": Str(),
                        "trail": Str(doc="The headings above the section, outermost first, joined by ' › '."),
                        "date": Maybe(Str(), doc="The nearest date above the passages (YYYY-MM-DD), or null."),
                        "lines": List(
                            List(Int(0), size=2),
                            doc="Each passage's first and last line, in the file's order.",
                        ),
                        "matched": List(Str()),
                        "text": Str(doc="The passages, '…' between two that are not adjacent."),
                    },
                ),
            ),
            "tokens": Int(0),
            "budget": Int(0),
            "method": Enum(words.RecallMethod),
            "withheld": WITHHELD_SECTIONS.about(
                (
                    "Sections that matched the prompt and were left out for a suspected secret; never the secret "
                    "(heading null: the heading holds it; line: the first line that holds one)."
                ),
            ),
        },
    ),
)

# `hooks install timer` and `hooks uninstall timer` print the same object.
TIMER = Obj({"agent": Const("timer"), "kind": Enum(words.TimerKind), "where": Str(), "changed": List(Str()),
             "next_step": Maybe(Str())})

HOOKS_INSTALL = Shape(
    "hooks-install",
    "apm-git hooks install --json",
    "claude-code: the settings file and the events added; timer: the units or crontab lines.",
    Obj(
        {
            "agent": Const("claude-code"),
            "path": Str(),
            "memory": Maybe(Str()),
            "added": List(Str()),
            "written": Bool(),
            "notes": List(
                Str(),
                doc="the user's own hooks that already run apm-git: left as they are, nothing added beside them",
            ),
            "warnings": List(Str(), doc="e.g. the PATH lacks apm-git, so the commands name its full path"),
        },
    ),
    TIMER,
)

HOOKS_UNINSTALL = Shape(
    "hooks-uninstall",
    "apm-git hooks uninstall --json",
    "claude-code: the settings file and the events removed; timer: the units or crontab lines.",
    Obj({"agent": Const("claude-code"), "path": Str(), "removed": List(Str()), "written": Bool()}),
    TIMER,
)

HOOKS_STATUS = Shape(
    "hooks-status",
    "apm-git hooks status --json",
    "Each place hooks can be installed (project, user, timers) and each hook's check.",
    Obj(
        {
            "places": List(
                Obj(
                    {
                        "where": Enum(words.HookPlace),
                        "path": Str(),
                        "exists": Bool(),
                        "hooks": List(
                            Obj(
                                {
                                    "event": Str(),
                                    "command": Str(),
                                    "passed": Maybe(
                                        Bool(),
                                        doc="null: not run (--no-run, or a hook of the user's own that calls apm-git)",
                                    ),
                                    "detail": Str(),
                                },
                            ),
                        ),
                    },
                ),
            ),
        },
    ),
)

AUDIT = Shape(
    "audit",
    "apm-git audit --json",
    "Compactions and session ends, each with the flush that covered it (null: none).",
    Obj(
        {
            "transcripts": Int(0),
            "compactions": List(
                Obj(
                    {
                        "session": Str(),
                        "transcript": Str(),
                        "line": Int(0),
                        "time": Str(doc="ISO 8601 date and time"),
                        "trigger": Maybe(Str()),
                        "flushed_by": Maybe(Str()),
                    },
                ),
            ),
            "session_ends": List(
                Obj(
                    {
                        "session": Str(),
                        "transcript": Str(),
                        "time": Str(doc="ISO 8601 date and time"),
                        "flushed_by": Maybe(Str()),
                    },
                ),
            ),
            "running": List(Str()),
            "missing": Int(0),
        },
    ),
)

CI = Shape(
    "ci",
    "apm-git ci github|gitlab --json",
    "The CI file written.",
    Obj(
        {
            "provider": Enum(words.CiProvider),
            "path": Str(),
            "action": Enum(words.CiAction),
            "install_spec": Str(),
            "include": Maybe(Str()),
        },
    ),
)

SYNC = Shape(
    "sync",
    "apm-git sync --json",
    "What sync did (docs/sync.md).",
    Obj(
        {
            "remote": Str(),
            "branch": Str(),
            "local_branch": Str(),
            "before": Maybe(Str(SHA)),
            "after": Maybe(Str(SHA)),
            "flushed": Maybe(Str(SHA)),
            "flush_notes": List(Str()),
            "withheld": List(
                Str(),
                doc="Files its flush did not commit as the work tree has them (a withheld section, or too large).",
            ),
            "withheld_sections": WITHHELD_SECTIONS.about(
                (
                    "The sections its flush kept uncommitted for a suspected secret, as flush's withheld_sections; "
                    "never the secret (heading null: the heading holds it, \"\": the text before the first "
                    "heading)."
                ),
            ),
            "too_large": List(Str(), doc="Files its flush left out whole: too large to check."),
            "pushed": Bool(),
            "push_attempts": Int(0),
            "set_upstream": Bool(),
            "created_branch": Bool(),
            "up_to_date": Bool(),
            "integrated": List(
                Obj(
                    {
                        "source": Str(),
                        "kind": Enum(words.SyncStep),
                        "commit": Str(SHA),
                        "incoming": Str(SHA),
                        "backup": Maybe(Str()),
                        "conflicts": List(Str()),
                        "archived": List(
                            Str(),
                            doc="`<id> <from> -> <to> (score N)` per entry archived for a line budget the merge passed",
                        ),
                        "unmerged": List(Str()),
                        "left": List(Str()),
                        "notes": List(Str(), doc="warnings of the merge: a merged apm.yaml that does not read, …"),
                        "journals_over_budget": OVER_BUDGET.about(
                            "journals the merge put over their line budget, kept whole",
                        ),
                    },
                ),
            ),
            "conflicts": List(Str()),
            "unmerged": List(Str()),
            "left": List(Str()),
            "notes": List(Str(), doc="the notes of every merge"),
            "journals_over_budget": OVER_BUDGET,
        },
    ),
)



def recall_json(result: RecallResult) -> dict[str, Any]:
    return RECALL.build(result)


def install_json(result: InstallResult) -> dict[str, Any]:
    return HOOKS_INSTALL.build(result)


def uninstall_json(result: UninstallResult) -> dict[str, Any]:
    return HOOKS_UNINSTALL.build(result)


def timer_json(result: TimerResult) -> dict[str, Any]:
    """`hooks install timer` and `hooks uninstall timer`: the second variant of both is `TIMER`."""
    return HOOKS_INSTALL.build(result, variant=1)


def hooks_status_json(places: list[Location]) -> dict[str, Any]:
    return HOOKS_STATUS.build(None, places=places)


def audit_json(result: AuditResult) -> dict[str, Any]:
    return AUDIT.build(result)


def ci_json(result: CiResult) -> dict[str, Any]:
    return CI.build(result)


def sync_json(result: SyncResult) -> dict[str, Any]:
    """The shape docs/sharing.md and docs/sync.md describe."""
    return SYNC.build(result)
