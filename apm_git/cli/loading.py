"""load, remember, search and hit: the APM protocol's reading and write-back side."""
from __future__ import annotations

import shlex
from typing import IO

import click

from apm_git.cli.base import UTF8, choice, emit, open_memory, print_json, state, text_of, warn
from apm_git.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from apm_git.model.fitness import VALUES
from apm_git.present import shapes_loading as shapes

FORMATS = ("markdown", "json", "claude-hook")
FRESH_SOURCES = ("clear", "compact")  # SessionStart sources after which the agent's context is empty


@click.command("load")
@click.option("--room", type=UTF8, help="Room id of a group chat; mapped to its group through group_names.json.")
@click.option("--group", help="Group name (memory/groups/NAME.md is its index).")
@click.option("--main", "main_session", is_flag=True, help="The DM (main session) memory.")
@click.option("--intent", type=UTF8, help="What the agent is about to do; matched against the routing table.")
@click.option("--budget", type=click.IntRange(min=1), help="Token budget (default: memory_budget in apm.yaml).")
@click.option("--session", type=UTF8, help="Session id: the loading discipline counts files across its loads.")
@click.option("--format", "fmt", type=click.Choice(FORMATS),
              help="Output format (default: markdown; json under --json).")
@click.option("--hook-input", "hook_input", type=click.File("r", encoding="utf-8"),
              help="SessionStart hook payload (JSON) from FILE or - for stdin: session id and cwd.")
@click.pass_context
def load_cmd(
    ctx: click.Context, room: str | None, group: str | None, main_session: bool, intent: str | None,
    budget: int | None, session: str | None, fmt: str | None, hook_input: IO[str] | None,
) -> int:
    """Progressive disclosure: the index first, then only what the protocol and the budget allow.

    With --room or --group: a group's memory; with --main: the DM memory; with neither: the
    Dreaming mount (INDEX.md, today's and yesterday's journals, and the intent's domain files).
    """
    from apm_git.commands.load import Target, guide, load
    from apm_git.hookinput import open_hook_repo, read_payload
    from apm_git.present import load_format

    if main_session and (room is not None or group is not None):
        raise UsageError("give at most one of --room, --group and --main (--room and --group may name the same group)")
    if state(ctx).json and fmt not in (None, "json"):
        raise UsageError(f"--json and --format {fmt} contradict each other; use one")
    fmt = fmt or ("json" if state(ctx).json else "markdown")
    repo_path, fresh, program = state(ctx).repo_path, False, "apm-git"
    if hook_input is not None:
        from apm_git.hookinput import export_repo, separate_memory

        payload = read_payload(hook_input)
        session = session or payload.session_id
        fresh = payload.detail in FRESH_SOURCES
        found = open_hook_repo(repo_path, payload, given_as=state(ctx).repo_given_as)
        if found is None:
            return EXIT_OK  # no memory serves the session's folder: no context to add, nothing to say
        repo = state(ctx).keep(found)
        from apm_git.store import writer

        writer.finish_pending(repo, wait=False)  # as open_memory does
        if separate_memory(repo, payload):  # the agent's commands run in the project: name the memory in each
            program = f"apm-git --repo {shlex.quote(str(repo.root))}"
            export_repo(repo)
    else:
        repo = state(ctx).keep(open_memory(repo_path, given_as=state(ctx).repo_given_as))
    result = load(repo, Target(group=group, room=room, main=main_session), intent=intent,
                  budget=budget, session=session, fresh=fresh)
    if result.guide:
        result.guide = guide(program)
    if fmt == "json":
        print_json(shapes.load_json(result))
    elif fmt == "claude-hook":
        click.echo(load_format.claude_hook(result, program=program))
    else:
        click.echo(load_format.markdown(result), nl=False)
    return EXIT_OK


@click.command("remember")
@click.option("--scope", "scope_text", required=True, help="main or group:NAME.")
@click.option("--decision", type=UTF8,
              help="A decision: appended as a record (group: experience.md; main: today's journal).")
@click.option("--title", type=UTF8, help="Title of the decision record (default: its first words).")
@click.option("--value", type=click.Choice(VALUES), default="MEDIUM", show_default=True,
              help="decision_value of the decision record.")
@click.option("--task", type=UTF8, help="A task whose status changed: added to or updated in attention.md.")
@click.option("--status", type=UTF8, help="The task's status (todo, doing, blocked, done, …).")
@click.option("--route", "route_file", help="Route --keywords to this file of the scope (appends an index row).")
@click.option("--keywords", type=UTF8, help="Comma-separated trigger keywords for --route.")
@click.option("--priority", type=click.Choice(["P0", "P1", "P2", "P3"]), help="Priority of the --route row.")
@click.option("--deprecate-route", "deprecate_file", help="Mark the index rows of this file [DEPRECATED].")
@click.option("--create", is_flag=True, help="Allow --scope group:NAME to start a group that does not exist yet.")
@click.option("--allow-secret", is_flag=True,
              help="Write a --decision or --task that looks like a credential (a false positive), with the pragma.")
@click.pass_context
def remember_cmd(
    ctx: click.Context, scope_text: str, decision: str | None, title: str | None, value: str, task: str | None,
    status: str | None, route_file: str | None, keywords: str | None, priority: str | None,
    deprecate_file: str | None, create: bool, allow_secret: bool,
) -> int:
    """APM write-back: record a decision, a task status, or a routing change (not committed: the next
    flush commits it).  Index files only grow: new rows are appended, retired rows marked [DEPRECATED]."""
    from apm_git.commands import remember as rm

    actions = [name for name, given in (("--decision", decision), ("--task", task), ("--route", route_file),
                                         ("--deprecate-route", deprecate_file)) if given is not None]
    if len(actions) != 1:
        raise UsageError("give exactly one of --decision TEXT, --task TEXT --status S, "
                         "--route FILE --keywords K --priority P, --deprecate-route FILE")
    if (status is not None) != (task is not None):
        raise UsageError("--task and --status go together: --task TEXT --status S")
    route_parts = (route_file, keywords, priority)
    if any(part is not None for part in route_parts) and None in route_parts:
        raise UsageError("--route, --keywords and --priority go together: --route FILE --keywords K --priority P")
    from apm_git.store.scope import require_known_group

    repo = state(ctx).repo()
    scope = require_known_group(repo, rm.memory_scope(scope_text), create=create)
    if decision is not None:
        result = rm.remember_decision(repo, scope, decision, title=title, value=choice(VALUES, value),
                                      allow_secret=allow_secret)
    elif task is not None and status is not None:
        result = rm.remember_task(repo, scope, task, status, allow_secret=allow_secret)
    elif route_file is not None and keywords is not None and priority is not None:
        result = rm.remember_route(repo, scope, route_file, keywords.split(","), priority)
    else:
        assert deprecate_file is not None
        result = rm.deprecate_route(repo, scope, deprecate_file)
    where = f"{result.file}:{result.line}" if result.line else result.file
    lines = [f"{where}: {result.detail}"]
    lines += [f"  auto-initialized {name}" for name in result.created]
    lines += [f"  index row appended: {row}" for row in result.rows_added]
    lines += [f"  index row at line {line} marked [DEPRECATED]" for line in result.rows_deprecated]
    lines.append("  not committed yet: the next `apm-git flush` commits it")
    emit(ctx, shapes.remember_json(result), text_of(lines))
    return EXIT_OK


@click.command("search")
@click.argument("query", type=UTF8)
@click.option("--archive", "archive_alike", is_flag=True,
              help="Rank memory/archive/ with live memory by match alone (a live section first on a tie); "
                   "without it, archived sections follow the live ones.")
@click.option("--archive-only", "archive_only", is_flag=True, help="Search only memory/archive/.")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True, help="Sections to show.")
@click.option("--group", help="Search this group's memory (groups/NAME/) instead; groups are never searched otherwise.")
@click.option("--scan", is_flag=True, help="Read every file instead of using the index (where SQLite has no FTS5).")
@click.option("--meaning", is_flag=True,
              help="Rank by meaning and words together: the vectors `apm-git embed` built, fused with the index's "
                   "BM25 (needs `pip install 'apm-git[meaning]'`).")
@click.pass_context
def search_cmd(ctx: click.Context, query: str, archive_alike: bool, archive_only: bool, limit: int,
               group: str | None, scan: bool, meaning: bool) -> int:
    """L3: the sections of memory that best match QUERY, in any language: entry id or file:line, heading,
    a snippet with the match, and the score."""
    from apm_git.commands.search import search

    if group is not None and (archive_only or archive_alike):
        raise UsageError("--group and --archive search different places; give one of them")
    if archive_only and archive_alike:
        raise UsageError("--archive ranks the archive with live memory, --archive-only searches it alone; "
                         "give one of them")
    if scan and meaning:
        raise UsageError("--scan reads the files, --meaning needs the index and its vectors; give one of them")
    result = search(state(ctx).repo(), query, archive_only=archive_only, archive_alike=archive_alike, limit=limit,
                    group=group, scan=scan, meaning=meaning)
    for problem in result.skipped:
        warn(f"apm-git: skipped {problem}")
    if result.note:
        warn(f"apm-git: {result.note}")
    lines = []
    for hit in result.hits:
        ref = f"{hit.entry_id}  {hit.file}:{hit.line}" if hit.entry_id else f"{hit.file}:{hit.line}"
        lines.append(f"{ref}  {hit.place}: {hit.snippet}  (score {hit.score:g})")
    shown = f"showing {len(result.hits)}" if result.total > len(result.hits) else "all shown"
    lines.append(f"{result.total} section{'' if result.total == 1 else 's'} matched ({shown}) in "
                 f"{result.files_searched} files ({result.where})" if result.total else
                 f"nothing matched {query!r} in {result.files_searched} files ({result.where})")
    emit(ctx, shapes.search_json(result), text_of(lines))
    return EXIT_OK


@click.command("embed")
@click.option("--group", help="Embed this group's passages (its own search index) instead of the memory's.")
@click.pass_context
def embed_cmd(ctx: click.Context, group: str | None) -> int:
    """The meaning layer for `search --meaning`: a vector of every passage the search index holds, kept beside
    the index under .git; only passages whose text is new are embedded (needs `pip install 'apm-git[meaning]'`)."""
    from apm_git.commands.embed import embed

    def progress(done: int, todo: int) -> None:
        warn(f"apm-git: embedded {done} of {todo} passages (saved; a stopped run keeps them)")

    result = embed(state(ctx).repo(), group=group, progress=progress)
    if result.rebuilt:
        warn(f"apm-git: {result.rebuilt}: made anew")
    lines = [f"{result.path}: {result.embedded} passage{'' if result.embedded == 1 else 's'} embedded "
             f"({result.cpu_seconds:g} s of CPU), {result.reused} kept, {result.dropped} dropped; "
             f"{result.passages} in the {result.where} search index ({result.model})"]
    emit(ctx, shapes.embed_json(result), text_of(lines))
    return EXIT_OK


@click.command("hit")
@click.argument("entry_ids", nargs=-1, required=True, metavar="ENTRY-ID...")
@click.option("--commit", "commit_now", is_flag=True,
              help="Commit the hits at once, as one commit of only them (committed entries only).")
@click.pass_context
def hit_cmd(ctx: click.Context, entry_ids: tuple[str, ...], commit_now: bool) -> int:
    """An entry was used: hit_count + 1 and last_referenced = today (not committed: the next flush
    commits it).  Exit 1 when an id is not a live entry (the others are still counted)."""
    from apm_git.commands.hit import hit

    if commit_now:
        from apm_git.cli.curate import curated_text
        from apm_git.operations.curate import hit_committed
        from apm_git.present.shapes_proposals import curated_json

        done = hit_committed(state(ctx).repo(), list(entry_ids))
        emit(ctx, curated_json(done), curated_text(done))
        return EXIT_OK

    result = hit(state(ctx).repo(), list(entry_ids))
    lines = [f"{item.file}:{item.line}: {item.entry_id} hit_count {item.previous_hit_count} -> {item.hit_count}, "
             f"last_referenced {item.last_referenced}" for item in result.hits]
    for warning in result.warnings:
        warn(f"apm-git: warning: {warning}")
    for miss in result.misses:
        warn(f"apm-git: {miss.entry_id}: {miss.reason}")
    emit(ctx, shapes.hit_json(result), text_of(lines))
    return EXIT_FINDINGS if result.misses else EXIT_OK
