"""The closed sets of words apm-git writes into records, commits and its `--json` output.

Each set is a `Literal` type, so `mypy --strict` refuses a misspelt kind, trigger or mode wherever one is
passed or compared, and the tuple of its values (taken from the type, never written twice) serves the
parsers, click's choices and the enums of apm_git/schemas/ (tests/cli/test_json_schemas.py holds the
schemas to these types).  Words read from outside (a command line, a payload, a plan file) become one of
these only through `one_of`, which says what is allowed when the word is not.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeVar, get_args

# The checks: each a pre-commit hook id and the `hook` of a finding (`lint`, `status`, `flush`, the baseline).
CheckId = Literal["apm-no-secrets", "apm-no-loss", "apm-append-only", "apm-state-json", "apm-budget", "apm-index-fresh",
                  "apm-record-format"]
CHECK_IDS: tuple[CheckId, ...] = get_args(CheckId)
# What `diff` says happened to an entry, in the order a reviewer reads them (loss first; docs/review.md).
EntryStatus = Literal["loss", "conflict", "added", "imported", "edited", "proven", "promoted", "moved", "archived",
                      "superseded", "merged", "forgotten", "removed"]
ENTRY_STATUSES: tuple[EntryStatus, ...] = get_args(EntryStatus)
# What `diff` says happened to a free-form section, and to a file.
SectionStatus = Literal["added", "removed", "changed", "moved"]
SECTION_STATUSES: tuple[SectionStatus, ...] = get_args(SectionStatus)
FileStatus = Literal["added", "deleted", "modified", "renamed"]
# A journal record's first tag (docs/design.md 2.1): what the item is, and so where deep sleep routes it.
EntryKind = Literal["decision", "lesson", "context", "person", "tool", "pending", "anchor"]
ENTRY_KINDS: tuple[EntryKind, ...] = get_args(EntryKind)
# `decision_value` in a record's Fitness field.
DecisionValue = Literal["HIGH", "MEDIUM", "LOW"]
DECISION_VALUES: tuple[DecisionValue, ...] = get_args(DecisionValue)
# What asked for a flush (`Apm-Trigger` of a flush commit).
FlushTrigger = Literal["manual", "pre-compact", "session-end", "idle"]
FLUSH_TRIGGERS: tuple[FlushTrigger, ...] = get_args(FlushTrigger)
# A flush scope: all, main, or group:NAME (the kind; the name is kept beside it).
ScopeKind = Literal["all", "main", "group"]
# The consolidation stages, each one commit (`memory: <stage> …`).
StageName = Literal["deep-sleep", "rem", "import", "resolve"]
# The stages `dream` runs when due (`status` says when).
DueStage = Literal["deep-sleep", "rem"]
DUE_STAGES: tuple[DueStage, ...] = get_args(DueStage)
# How sync brought a fetched branch in.
SyncStep = Literal["fast-forward", "merge"]
# What `load` loads: a group's memory, the DM memory, or the Dreaming mount.
LoadMode = Literal["group", "main", "dreaming"]
# Why `load` took a file.
LoadRole = Literal["index", "routed", "conventions", "journal", "L1", "L2", "L2 section", "hot"]
# How search and recall found the sections: the full-text index, or reading every file.
SearchMethod = Literal["index", "scan"]
# What `remember` wrote.
RememberAction = Literal["decision", "task", "route", "deprecate"]
# The agents `hooks install` wires apm-git into.
Agent = Literal["claude-code", "timer"]
AGENTS: tuple[Agent, ...] = get_args(Agent)
TimerKind = Literal["systemd", "cron"]
# Where `hooks status` looks.
HookPlace = Literal["project", "user", "timer (systemd)", "timer (cron)"]
CiProvider = Literal["github", "gitlab"]
CI_PROVIDERS: tuple[CiProvider, ...] = get_args(CiProvider)
CiAction = Literal["written", "unchanged", "rewritten"]
# What a commit did to an entry (`apm-git history`).
HistoryWhat = Literal["created", "changed", "promoted", "moved", "superseded", "archived", "proven", "merged",
                      "lost", "forgotten"]
# `apm-git resolve ID --keep …`: which version of an entry in conflict stays (docs/conflicts.md).
Keep = Literal["this", "other", "both"]
KEEPS: tuple[Keep, ...] = get_args(Keep)
RESOLVE = f"apm-git resolve ID --keep {'|'.join(KEEPS)}"  # the command that settles a conflict, as messages name it

Word = TypeVar("Word", bound=str)


def one_of(allowed: Sequence[Word], text: str) -> Word | None:
    """`text` as a word of `allowed` (a tuple of a Literal's values), or None when it is not one."""
    for word in allowed:
        if word == text:
            return word
    return None
