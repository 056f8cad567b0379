"""`apm-git mcp`: the memory as an MCP server on stdio, for agents that speak MCP rather than hooks.

Built on the official SDK's MCPServer.  Each tool opens the repository afresh (another process may
have flushed or consolidated meanwhile) and calls the same function as the command line.  An
expected failure (an ApmGitError, an OSError) becomes the tool's error result with apm-git's one-line
message; the server keeps serving.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from apm_git.errors import ApmGitError, describe_os_error

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

INDEX_URI = "apm-git://memory/INDEX.md"
T = TypeVar("T")


def _as_json(data: dict[str, Any]) -> str:
    """A tool's answer: the same JSON as the command's `--json` (apm_git/cli/shapes.py, docs/json.md)."""
    return json.dumps(data, indent=2, ensure_ascii=False)


def build(repo_path: Path | None) -> MCPServer[Any]:
    """The server, its tools and the index resource, for the memory at `repo_path` (or $APM_GIT_REPO, or
    the repository containing the working folder)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from apm_git.store.repo import MemoryRepo, open_repo

    server: MCPServer[Any] = MCPServer("apm-git", instructions=(
        "Markdown memory in git. Call `load` with an intent at the start of a task, `search` for single "
        "entries, `journal_add` or `remember` to write, `hit` when an entry helped, `flush` to commit."))

    def run(work: Callable[[MemoryRepo], T]) -> T:
        try:
            return work(open_repo(repo_path))
        except ApmGitError as error:
            raise ToolError(f"apm-git: {error}") from None
        except OSError as error:
            raise ToolError(f"apm-git: {describe_os_error(error)}") from None

    @server.tool()
    def load(intent: str | None = None, budget: int | None = None, group: str | None = None,
             room: str | None = None, main: bool = False, session: str | None = None) -> str:
        """Progressive disclosure: the index first, then only the files the intent and the token budget allow
        (a group with group/room, the DM memory with main, else the Dreaming mount)."""
        from apm_git.cli.load_format import markdown
        from apm_git.commands.load import Target
        from apm_git.commands.load import load as do_load

        return run(lambda repo: markdown(do_load(repo, Target(group=group, room=room, main=main), intent=intent,
                                                 budget=budget, session=session)))

    @server.tool()
    def search(query: str, limit: int = 10, archive: bool = False) -> str:
        """The sections of memory (live and archive) that best match the query: entry id, file:line, heading,
        snippet, score (JSON)."""
        from apm_git.cli.shapes import search_json
        from apm_git.commands.search import search as do_search

        return run(lambda repo: _as_json(search_json(do_search(repo, query, archive_only=archive, limit=limit))))

    @server.tool()
    def journal_add(text: str, kind: str, title: str | None = None, tags: list[str] | None = None,
                    value: str = "MEDIUM") -> str:
        """Light Sleep: append a record to today's journal. kind: decision, lesson, context, person, tool,
        pending or anchor; value: HIGH, MEDIUM or LOW. Not committed until `flush`."""
        from apm_git.cli.shapes import journal_add_json
        from apm_git.commands.journal import add
        from apm_git.errors import UsageError
        from apm_git.model.config import KINDS
        from apm_git.model.fitness import VALUES

        def work(repo: MemoryRepo) -> str:
            if kind not in KINDS or value not in VALUES:
                raise UsageError(f"kind must be one of {', '.join(KINDS)}; value one of {', '.join(VALUES)}")
            return _as_json(journal_add_json(add(repo, text, kind=kind, title=title, tags=tags or [], value=value)))

        return run(work)

    @server.tool()
    def remember(scope: str, decision: str | None = None, task: str | None = None, status: str | None = None,
                 title: str | None = None, value: str = "MEDIUM") -> str:
        """APM write-back for scope `main` or `group:NAME`: a decision (decision=…) or a task status
        (task=… and status=…). Not committed until `flush`."""
        from apm_git.cli.shapes import remember_json
        from apm_git.commands import remember as rm
        from apm_git.errors import UsageError
        from apm_git.model.vocabulary import DECISION_VALUES
        from apm_git.store.scope import require_known_group

        def work(repo: MemoryRepo) -> str:
            chosen = require_known_group(repo, rm.memory_scope(scope), create=False)
            if decision is not None and task is None:
                if value not in DECISION_VALUES:
                    raise UsageError(f"unknown value {value!r}; use HIGH, MEDIUM or LOW")
                return _as_json(remember_json(rm.remember_decision(repo, chosen, decision, title=title, value=value)))
            if task is not None and status is not None and decision is None:
                return _as_json(remember_json(rm.remember_task(repo, chosen, task, status)))
            raise UsageError("give either decision, or task and status")

        return run(work)

    @server.tool()
    def hit(entry_ids: list[str]) -> str:
        """Entries that were used: hit_count + 1, last_referenced = today (JSON; misses listed)."""
        from apm_git.cli.shapes import hit_json
        from apm_git.commands.hit import hit as do_hit

        return run(lambda repo: _as_json(hit_json(do_hit(repo, entry_ids))))

    @server.tool()
    def flush(message: str | None = None, session: str | None = None, trigger: str = "manual") -> str:
        """Commit the memory changes as one commit (trigger: manual, pre-compact, session-end or idle)."""
        from apm_git.cli.shapes import flush_json
        from apm_git.commands.flush import flush as do_flush
        from apm_git.errors import UsageError
        from apm_git.model.vocabulary import FLUSH_TRIGGERS

        def work(repo: MemoryRepo) -> str:
            if trigger not in FLUSH_TRIGGERS:
                raise UsageError(f"trigger must be one of {', '.join(FLUSH_TRIGGERS)}")
            return _as_json(flush_json(do_flush(repo, trigger=trigger, session=session, message=message)))

        return run(work)

    @server.tool()
    def history(entry_id: str) -> str:
        """Every commit that created, changed, moved, promoted, superseded or archived the entry (JSON)."""
        from apm_git.cli.shapes_dreaming import history_json
        from apm_git.commands.history import history as do_history

        return run(lambda repo: _as_json(history_json(entry_id, do_history(repo, entry_id))))

    @server.tool()
    def status() -> str:
        """Budgets per file, last flushes, pending items, what is due (JSON)."""
        from apm_git.agents.audit import last_audited
        from apm_git.cli.shapes import status_json
        from apm_git.commands.status import status as do_status

        return run(lambda repo: _as_json(status_json(do_status(repo), last_audited(repo))))

    @server.resource(INDEX_URI, name="INDEX.md", mime_type="text/markdown",
                     description="The Dreaming index of the memory (memory/INDEX.md).")
    def index() -> str:
        from apm_git.model import names

        return run(lambda repo: repo.read(names.INDEX) or "")

    return server


def serve(repo_path: Path | None) -> None:
    build(repo_path).run("stdio")
