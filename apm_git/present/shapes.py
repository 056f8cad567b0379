"""The `--json` output of the memory commands (init, setup, merge-driver, merge-counters, journal add, flush, index,
status, lint, baseline, allow-secret, and the shared parts): version 1, documented in docs/json.md.

Each output is declared once, as a `Shape` (apm_git/present/declare.py): its JSON Schema,
apm_git/schemas/<name>.schema.json, is generated from the declaration (`python -m
apm_git.present.generate_schemas`), and the output is built from it, each field read from the result's
attribute of that name, never with `dataclasses.asdict`: renaming a field inside apm-git fails loudly
instead of changing the output.  tests/cli/test_json_schemas.py holds the real output to the schemas.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apm_git.model import vocabulary as words
from apm_git.present.declare import Anything, Bool, Enum, Int, List, Map, Maybe, Obj, Shape, Str
from apm_git.present.parts import DATE, FINDING, PAIRS, SCOPE, SHA, WITHHELD_SECTIONS

if TYPE_CHECKING:
    from apm_git.commands.index import IndexResult
    from apm_git.commands.init import InitResult
    from apm_git.commands.lint import LintResult
    from apm_git.commands.merge_counters import CountersResult
    from apm_git.commands.merge_driver import DriverResult
    from apm_git.commands.setup import SetupResult
    from apm_git.commands.status import StatusResult
    from apm_git.model.withhold import WithheldSection
    from apm_git.operations.baseline import BaselineResult
    from apm_git.operations.flush import FlushResult
    from apm_git.operations.journal import JournalEntry



INIT = Shape(
    "init",
    "apm-git init --json",
    "What init created, updated and committed; what it adopted as found.",
    Obj(
        {
            "root": Str(doc="the memory repository, absolute"),
            "created": List(Str()),
            "updated": List(Str()),
            "commit": Maybe(Str(SHA)),
            "git_initialized": Bool(),
            "hooks_installed": Bool(),
            "warning": Maybe(Str()),
            "adoption": Obj(
                {
                    "commit": Maybe(Str(SHA)),
                    "files": List(Str()),
                    "withheld": List(Str()),
                    "kept": PAIRS.about("[was, now]: a file of yours moved aside"),
                    "known": Int(0),
                },
            ),
        },
    ),
)

SETUP = Shape(
    "setup",
    "apm-git setup --json",
    "What setup registered in .git/config (empty: set up already).",
    Obj({"root": Str(), "registered": List(Str()), "warning": Maybe(Str())}),
)

MERGE_DRIVER = Shape(
    "merge-driver",
    "apm-git merge-driver --json",
    "The entry-level merge of one file, as git's merge driver.",
    Obj(
        {
            "path": Str(),
            "wrote": Bool(),
            "memory_wide": Bool(),
            "conflicts": List(Obj({"path": Str(), "what": Str(), "entry": Maybe(Str())})),
            "unmerged": List(Str()),
            "over_budget": Maybe(
                Obj({"lines": Int(), "budget": Int()}),
                doc="Set when the merge put the file over its line budget: the next REM (or sync) archives.",
            ),
        },
    ),
)

MERGE_COUNTERS = Shape(
    "merge-counters",
    "apm-git merge-counters --json",
    "After a git merge: the hit counts both sides changed alike, added up in a commit of their own.",
    Obj(
        {
            "merge": Maybe(
                Str(),
                doc="The merge commit looked at (HEAD); null when HEAD is not a merge of two commits.",
            ),
            "counted": List(Str(), doc="Files whose counts were added up."),
            "commit": Maybe(Str(), doc="The commit that holds them; null when nothing was counted."),
            "left": List(Str(), doc="Files to count that hold an uncommitted edit of the user's: left as they were."),
            "skipped": Maybe(Str(), doc="Why nothing was counted, when nothing could be."),
        },
    ),
)

JOURNAL_ADD = Shape(
    "journal-add",
    "apm-git journal add --json",
    "The record appended to today's journal.",
    Obj({"entry_id": Str(), "file": Str(), "line": Int(0)}),
)

FLUSH = Shape(
    "flush",
    "apm-git flush --json",
    "One flush: the commit, its files, and what was kept out and why.",
    Obj(
        {
            "trigger": Enum(words.FlushTrigger),
            "scope": Str(SCOPE),
            "session": Maybe(Str()),
            "commit": Maybe(Str(SHA)),
            "files": List(Str()),
            "created": List(Str()),
            "findings": List(Str(), doc="one `path:line: hook: message` each"),
            "withheld": List(Str()),
            "withheld_sections": WITHHELD_SECTIONS,
            "kept_index": List(Str()),
            "too_large": List(Str()),
            "lost": Map(Str(), doc="entry id -> the file HEAD keeps it in"),
            "unreadable": List(Str()),
            "kept_files": List(Str()),
            "notes": List(Str()),
            "skipped": Maybe(Str(), doc="why nothing was committed (null: a commit was made)"),
        },
    ),
)

INDEX = Shape("index", "apm-git index --json", "The rebuilt INDEX.md.", Obj({"path": Str(), "changed": Bool()}))

STATUS = Shape(
    "status",
    "apm-git status --json",
    "Budgets, findings, last flushes, pending items, what is due, the last audit.",
    Obj(
        {
            "files": List(Obj({"file": Str(), "lines": Int(0), "budget": Maybe(Int(0))})),
            "last_flush": Map(Maybe(Str()), doc="scope (main, group:NAME) -> ISO time or null"),
            "pending_items": List(Anything(), doc="as flush-state.json holds them"),
            "pending_records": List(
                Obj({"entry": Str(), "file": Str(doc="repo-relative"), "line": Int(1), "title": Str()}),
                doc=(
                    "the pending items of the live journals (`journal add --kind pending`, `- **Pending:**` note "
                    "lines)"
                ),
            ),
            "due": List(
                Obj(
                    {"stage": Enum(words.DueStage), "last_run": Maybe(Str()), "next_due": Str(DATE), "due_now": Bool()},
                ),
            ),
            "uncommitted": List(Str()),
            "findings": Obj(
                {
                    "new": List(FINDING),
                    "new_totals": Map(Int(0), keys=words.CheckId),
                    "known_totals": Map(Int(0), keys=words.CheckId),
                    "withheld": List(FINDING),
                    "problem": Maybe(Str()),
                },
            ),
            "not_set_up": List(Str()),
            "in_conflict": List(Obj({"entry": Str(), "file": Str(), "line": Int(0), "conflicts": Str()})),
            "vectors": List(
                Obj({"where": Str(doc="'memory' or 'group NAME'"), "passages": Int(0),
                     "without_vector": Int(0, doc="passages written since the last `embed` or `dream`"),
                     "note": Maybe(Str(), doc="why the vectors cannot be used, or what they lack, or null")}),
                doc="the meaning layer's vectors, where `apm-git embed` made them",
            ),
            "last_audit": Maybe(
                Obj(
                    {
                        "audited_at": Maybe(Str()),
                        "last_compaction": Maybe(
                            Obj(
                                {
                                    "session": Maybe(Str()),
                                    "transcript": Maybe(Str()),
                                    "line": Maybe(Int(0)),
                                    "time": Maybe(Str()),
                                    "trigger": Maybe(Str()),
                                    "flushed_by": Maybe(Str()),
                                },
                            ),
                        ),
                    },
                ),
            ),
        },
    ),
)

LINT = Shape(
    "lint",
    "apm-git lint --json",
    "Every finding of the checks (and those the baseline knows).",
    Obj(
        {
            "base": Str(),
            "new": Str(),
            "checked": List(Str()),
            "findings": List(FINDING),
            "known": List(FINDING),
            "merges": List(Str()),
        },
    ),
)

BASELINE = Shape(
    "baseline",
    "apm-git baseline --json, apm-git allow-secret --json",
    "The findings baseline file, what this run recorded, and how many findings it knows.",
    Obj({"path": Str(), "added": List(Str(), doc="`path:line: hook: message` each"), "total": Int(0)}),
)


def init_json(result: InitResult) -> dict[str, Any]:
    return INIT.build(result, root=str(result.root))


def setup_json(result: SetupResult) -> dict[str, Any]:
    return SETUP.build(result, root=str(result.root))


def merge_driver_json(result: DriverResult) -> dict[str, Any]:
    over = result.over_budget
    return MERGE_DRIVER.build(result, over_budget=None if over is None else {"lines": over[0], "budget": over[1]})


def merge_counters_json(result: CountersResult) -> dict[str, Any]:
    return MERGE_COUNTERS.build(result)


def journal_add_json(entry: JournalEntry) -> dict[str, Any]:
    return JOURNAL_ADD.build(entry)


def flush_json(result: FlushResult) -> dict[str, Any]:
    return FLUSH.build(result)


def index_json(result: IndexResult) -> dict[str, Any]:
    return INDEX.build(result)


def status_json(result: StatusResult, audited: dict[str, object] | None) -> dict[str, Any]:
    found = result.findings
    findings = {"new": found.new, "new_totals": found.totals(found.new), "known_totals": found.totals(found.known),
                "withheld": found.withheld, "problem": found.problem}
    return STATUS.build(result, findings=findings, last_audit=_last_audit(audited))


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
    return LINT.build(result)


def baseline_json(result: BaselineResult) -> dict[str, Any]:
    """Of `baseline` and of `allow-secret`: the baseline file, what this run added, how many it knows now."""
    return BASELINE.build(result)


def withheld_json(sections: list[WithheldSection]) -> list[dict[str, Any]]:
    """Sections kept uncommitted for a suspected secret (heading null: the heading holds it)."""
    return WITHHELD_SECTIONS.build(sections)  # type: ignore[no-any-return]
