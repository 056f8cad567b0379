"""The `--json` output of recall, hooks, audit, ci and sync: version 1 (docs/json.md, docs/sync.md).

Built key by key (see apm_git/present/shapes.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apm_git.model import vocabulary as words
from apm_git.present.declare import VERSION, Bool, Const, Enum, Int, List, Maybe, Obj, Shape, Str
from apm_git.present.parts import OVER_BUDGET, SHA, WITHHELD_SECTIONS
from apm_git.present.shapes import withheld_json

if TYPE_CHECKING:
    from apm_git.agents.audit import AuditResult
    from apm_git.agents.hooks import InstallResult, Location, UninstallResult
    from apm_git.agents.timers import TimerResult
    from apm_git.commands.ci import CiResult
    from apm_git.commands.recall import RecallResult
    from apm_git.commands.sync import SyncResult
    from apm_git.operations.sync_land import JournalOverBudget


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
            "method": Enum(words.SearchMethod),
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
