"""The tools of `apm-git mcp`: what each takes (mcp_args), what it tells the model, and the work it does.

The bodies run in a worker process (apm_git/agents/mcp_worker.py), never in the server's own, so a
call that passes its time limit can be stopped.  Each calls the same function as the command line
and answers with the command's `--json` shape (apm_git/present/shapes.py, docs/json.md), except `load`,
which answers with the Markdown an agent reads.

Bounds (docs/agents.md): an entry id, a session, a room, a group or a scope is at most 200
characters, an intent or a query 2,000; a budget is 1 to 1,000,000 tokens, a search limit 1 to 1,000,
and `hit` takes 1 to 1,000 ids.  The size of what is written (a journal item, a flush message) is
bounded by the shared operations, as on the command line.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from apm_git.agents.mcp_args import Param
from apm_git.model.config import KINDS
from apm_git.model.vocabulary import DECISION_VALUES, FLUSH_TRIGGERS, DecisionValue, EntryKind, FlushTrigger

if TYPE_CHECKING:
    from apm_git.store.repo import MemoryRepo

ID_CHARS = 200
INTENT_CHARS = 2_000
MAX_BUDGET = 1_000_000  # tokens: the largest context windows in use
MAX_LIMIT = 1_000
MAX_IDS = 1_000

INSTRUCTIONS = ("Markdown memory in git. Call `load` with an intent at the start of a task, `search` for single "
                "entries, `journal_add` or `remember` to write, `hit` when an entry helped, `flush` to commit.")
INDEX_URI = "apm-git://memory/INDEX.md"


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    about: str
    params: tuple[Param, ...]
    body: Callable[..., str]


def _as_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def _load(repo: MemoryRepo, *, intent: str | None, budget: int | None, group: str | None, room: str | None,
          main: bool, session: str | None) -> str:
    from apm_git.commands.load import Target, load
    from apm_git.present.load_format import markdown

    return markdown(load(repo, Target(group=group, room=room, main=main), intent=intent, budget=budget,
                         session=session))


def _search(repo: MemoryRepo, *, query: str, limit: int, archive: bool, archive_only: bool, meaning: bool) -> str:
    from apm_git.commands.search import search
    from apm_git.errors import UsageError
    from apm_git.present.shapes_loading import search_json

    if archive and archive_only:
        raise UsageError("archive and archive_only exclude each other: give one")
    return _as_json(search_json(search(repo, query, archive_alike=archive, archive_only=archive_only, limit=limit,
                                       meaning=meaning)))


@contextlib.contextmanager
def _secret_refusal_for_mcp() -> Iterator[None]:
    """A refused secret names the tool's parameter (`allow_secret`), not the command line's flag."""
    from apm_git.errors import SecretRefused

    try:
        yield
    except SecretRefused as error:
        raise SecretRefused(str(error).replace("--allow-secret", "allow_secret: true")) from None


def _journal_add(repo: MemoryRepo, *, text: str, kind: EntryKind, title: str | None, tags: list[str] | None,
                 value: DecisionValue, allow_secret: bool) -> str:
    from apm_git.commands.journal import add
    from apm_git.present.shapes import journal_add_json

    with _secret_refusal_for_mcp():
        entry = add(repo, text, kind=kind, title=title, tags=tags or [], value=value, allow_secret=allow_secret)
    return _as_json(journal_add_json(entry))


def _remember(repo: MemoryRepo, *, scope: str, decision: str | None, task: str | None, status: str | None,
              title: str | None, value: DecisionValue, allow_secret: bool) -> str:
    from apm_git.commands import remember as rm
    from apm_git.errors import UsageError
    from apm_git.present.shapes_loading import remember_json
    from apm_git.store.scope import require_known_group

    chosen = require_known_group(repo, rm.memory_scope(scope), create=False)
    with _secret_refusal_for_mcp():
        if decision is not None and task is None and status is None:
            return _as_json(remember_json(rm.remember_decision(repo, chosen, decision, title=title, value=value,
                                                               allow_secret=allow_secret)))
        if task is not None and status is not None and decision is None:
            return _as_json(remember_json(rm.remember_task(repo, chosen, task, status, allow_secret=allow_secret)))
    raise UsageError("give either decision, or task and status")


def _hit(repo: MemoryRepo, *, entry_ids: list[str]) -> str:
    from apm_git.commands.hit import hit
    from apm_git.present.shapes_loading import hit_json

    return _as_json(hit_json(hit(repo, entry_ids)))


def _flush(repo: MemoryRepo, *, message: str | None, session: str | None, trigger: FlushTrigger) -> str:
    from apm_git.commands.flush import flush
    from apm_git.present.shapes import flush_json

    return _as_json(flush_json(flush(repo, trigger=trigger, session=session, message=message)))


def _history(repo: MemoryRepo, *, entry_id: str) -> str:
    from apm_git.commands.history import history
    from apm_git.present.shapes_dreaming import history_json

    return _as_json(history_json(entry_id, history(repo, entry_id)))


def _status(repo: MemoryRepo) -> str:
    from apm_git.agents.audit import last_audited
    from apm_git.commands.status import status
    from apm_git.present.shapes import status_json

    return _as_json(status_json(status(repo), last_audited(repo)))


def read_index(repo: MemoryRepo) -> str:
    """The index resource: memory/INDEX.md as it is on disk."""
    from apm_git.model import names

    return repo.read(names.INDEX) or ""


def _id(name: str, about: str, *, required: bool = False) -> Param:
    return Param(name, "string", about, required=required, max_chars=ID_CHARS)


_VALUE = Param("value", "string", "decision_value of the record.", default="MEDIUM", choices=DECISION_VALUES)
_SESSION = _id("session", "The agent's session id.")
_ALLOW_SECRET = Param("allow_secret", "boolean", "Write it although it looks like a credential: a deliberate "
                      "false positive (CLI --allow-secret). Each flagged line of the text gets the scanner's pragma, "
                      "so no flush withholds it; a title or tags that look like one are refused anyway. Without "
                      "it, a suspected secret is refused and nothing is written.", default=False)

TOOLS: tuple[Tool, ...] = (
    Tool("load", "Progressive disclosure: the memory index first, then only the files that the intent and the "
         "token budget allow. Give group or room for a group's memory, main for the DM memory, neither for the "
         "Dreaming mount. Answers with Markdown.", (
             Param("intent", "string", "What you are about to do; matched against the routing tables.",
                   max_chars=INTENT_CHARS),
             Param("budget", "integer", "Token budget (default: memory_budget in apm.yaml).", low=1,
                   high=MAX_BUDGET),
             _id("group", "A group's name: load that group's memory."),
             _id("room", "A group chat's room id, mapped to its group through group_names.json."),
             Param("main", "boolean", "Load the DM (main session) memory.", default=False),
             Param("session", "string", "Session id: the loading discipline counts files across its loads.",
                   max_chars=ID_CHARS),
         ), _load),
    Tool("search", "The sections of memory that best match the query, live ones before archived ones: entry id, "
         "file:line, heading, snippet and score (JSON).", (
             Param("query", "string", "Words to look for.", required=True, max_chars=INTENT_CHARS),
             Param("limit", "integer", "Sections to return.", default=10, low=1, high=MAX_LIMIT),
             Param("archive", "boolean", "Rank the archive with live memory by match alone (CLI --archive).",
                   default=False),
             Param("archive_only", "boolean", "Search the archive only (CLI --archive-only).", default=False),
             Param("meaning", "boolean", "Rank by meaning and words together, from the vectors `apm-git embed` built "
                   "(CLI --meaning; needs the extra apm-git[meaning]; the worker keeps the model loaded).",
                   default=False),
         ), _search),
    Tool("journal_add", "Light Sleep: append a record to today's journal (JSON). Not committed until flush.", (
        Param("text", "string", "The record's body.", required=True),
        Param("kind", "string", "What the item is.", required=True, choices=KINDS),
        Param("title", "string", "The record's title (default: its first words)."),
        Param("tags", "strings", "Tags after the kind.", max_items=MAX_IDS),
        _VALUE,
        _ALLOW_SECRET,
    ), _journal_add),
    Tool("remember", "APM write-back for scope main or group:NAME: a decision (decision), or a task whose status "
         "changed (task and status). JSON; not committed until flush.", (
             _id("scope", "main or group:NAME.", required=True),
             Param("decision", "string", "A decision to append as a record."),
             Param("task", "string", "A task whose status changed."),
             Param("status", "string", "The task's status (todo, doing, blocked, done, ...)."),
             Param("title", "string", "Title of the decision record (default: its first words)."),
             _VALUE,
             _ALLOW_SECRET,
         ), _remember),
    Tool("hit", "Entries that helped: hit_count + 1 and last_referenced = today for each (JSON; ids not found "
         "are listed).", (
             Param("entry_ids", "strings", "Entry ids, like 2026-04-06-redis-cache-strategy.", required=True,
                   max_chars=ID_CHARS, max_items=MAX_IDS),
         ), _hit),
    Tool("flush", "Commit the memory changes as one commit (JSON).", (
        Param("message", "string", "A message for the commit."),
        _SESSION,
        Param("trigger", "string", "What asked for the flush.", default="manual", choices=FLUSH_TRIGGERS),
    ), _flush),
    Tool("history", "Every commit that created, changed, moved, promoted, superseded or archived the entry "
         "(JSON).", (
             _id("entry_id", "An entry id, like 2026-04-06-redis-cache-strategy.", required=True),
         ), _history),
    Tool("status", "Budgets used per file, last flushes, pending items and what is due (JSON).", (), _status),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
