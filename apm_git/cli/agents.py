"""recall and hooks (install, uninstall, status): wiring apm-git into an agent."""
from __future__ import annotations

from pathlib import Path
from typing import IO

import click

from apm_git.cli.base import UTF8, emit, state, text_of
from apm_git.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from apm_git.model.vocabulary import AGENTS
from apm_git.present import shapes_agents

RECALL_FORMATS = ("markdown", "claude-hook")


@click.command("recall")
@click.argument("prompt", required=False, type=UTF8)
@click.option("--hook-input", "hook_input", type=click.File("r", encoding="utf-8"),
              help="UserPromptSubmit hook payload (JSON) from FILE or - for stdin: the prompt and cwd.")
@click.option("--budget", type=click.IntRange(min=1), help="Token budget (default: 600, a few records).")
@click.option("--format", "fmt", type=click.Choice(RECALL_FORMATS),
              help="Output format (default: markdown; claude-hook under --hook-input).")
@click.pass_context
def recall_cmd(ctx: click.Context, prompt: str | None, hook_input: IO[str] | None, budget: int | None,
               fmt: str | None) -> int:
    """The memory relevant to PROMPT (a per-prompt hook): the best-matching sections, whole, under a small
    budget; nothing at all when nothing matches."""
    from apm_git.commands.recall import DEFAULT_BUDGET, claude_hook, markdown, recall
    from apm_git.hookinput import open_hook_repo, read_payload

    if hook_input is not None:
        payload = read_payload(hook_input)
        prompt = prompt or payload.prompt
        found = open_hook_repo(state(ctx).repo_path, payload, given_as=state(ctx).repo_given_as)
        if found is None:
            return EXIT_OK  # no memory serves the session's folder: nothing to add to the prompt
        repo = state(ctx).keep(found)
        fmt = fmt or "claude-hook"
    else:
        if prompt is None:
            raise UsageError("give the PROMPT to recall for, or --hook-input - with a UserPromptSubmit payload")
        repo = state(ctx).repo()
    result = recall(repo, prompt or "", budget=budget or DEFAULT_BUDGET)
    if state(ctx).json:
        emit(ctx, shapes_agents.recall_json(result), None)
        return EXIT_OK
    text = claude_hook(result) if fmt == "claude-hook" else markdown(result)
    if text:  # nothing matched: nothing is added to the prompt
        click.echo(text, nl=fmt == "claude-hook")
    return EXIT_OK


@click.group("hooks")
def hooks_group() -> None:
    """Install apm-git's hooks into an agent (Claude Code) and check them."""


def _place(user: bool) -> str:
    return "user" if user else "project"


def _timer_kind(systemd: bool | None) -> bool:
    """--systemd or --cron as given; else systemd where systemctl exists, cron otherwise."""
    import shutil

    return systemd if systemd is not None else shutil.which("systemctl") is not None


def _timer_memory(ctx: click.Context, memory: Path | None, tracked: bool = False) -> Path:
    from apm_git.store.repo import open_repo

    if tracked:
        from apm_git.store.tracked import home

        if memory is not None:
            raise UsageError("--tracked snapshots every tracked folder: give no --memory with it")
        return home()
    given_as = "--memory" if memory is not None else state(ctx).repo_given_as
    return open_repo(memory or state(ctx).repo_path, given_as=given_as).root.resolve()


def _timer_report(ctx: click.Context, result: object, verb: str) -> int:
    from apm_git.agents.timers import TimerResult

    assert isinstance(result, TimerResult)
    if result.changed:
        lines = [f"apm-git: {verb} in {result.where}:"] + [f"  {item}" for item in result.changed]
    else:
        lines = [f"apm-git: {result.where}: nothing to change"]
    if result.next_step and result.changed:
        lines.append(f"  now run: {result.next_step}")
    emit(ctx, shapes_agents.timer_json(result), text_of(lines))
    return EXIT_OK


@hooks_group.command("install")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--user/--project", "user", default=False,
              help="claude-code: into ~/.claude/settings.json (every project) or .claude/settings.json of the "
                   "current directory (the default: --project).")
@click.option("--memory", type=click.Path(path_type=Path),
              help="The memory repository, when it is not the project (written into the commands).")
@click.option("--recall", "with_recall", is_flag=True,
              help="claude-code: also the UserPromptSubmit hook that adds the memory relevant to each prompt.")
@click.option("--systemd/--cron", "systemd", default=None,
              help="timer: systemd user units or crontab lines (default: systemd where systemctl exists).")
@click.option("--tracked", is_flag=True, help="timer: the snapshot of every tracked folder (`apm-git track`) every "
                                               "10 minutes, instead of a memory's idle flush and dream.")
@click.pass_context
def install_cmd(ctx: click.Context, agent: str, user: bool, memory: Path | None, with_recall: bool,
                systemd: bool | None, tracked: bool) -> int:
    """Merge apm-git's hooks into Claude Code's settings (everything else in the file stays as it was), or
    install the idle flush and the hourly dream as timers (timer)."""
    from apm_git.agents import timers
    from apm_git.agents.hooks import install_claude_code

    if tracked and agent != "timer":
        raise UsageError("--tracked is for `hooks install timer`; `apm-git track` wires the agents' hooks")
    if agent == "timer":
        target = _timer_memory(ctx, memory, tracked)
        done = timers.install_systemd(target) if _timer_kind(systemd) else timers.install_cron(target)
        return _timer_report(ctx, done, "installed")
    given_as = "--memory" if memory is not None else state(ctx).repo_given_as
    memory = memory or state(ctx).repo_path
    result = install_claude_code(user=user, project=Path.cwd(), memory=memory, recall=with_recall,
                                 memory_given_as=given_as)
    for warning in result.warnings:
        click.echo(f"apm-git: WARNING: {warning}", err=True)
    for note in result.notes:
        click.echo(f"apm-git: NOTE: {note}", err=True)
    where = f"{result.path} ({_place(user)})"
    if result.written:
        text = f"apm-git: installed {', '.join(result.added)} hook(s) into {where}"
    elif result.added or not result.notes:
        text = f"apm-git: the hooks are already installed in {where}: nothing changed"
    else:
        text = f"apm-git: nothing written into {where} (see the note above)"
    memory_line = f"\n  memory repository: {result.memory}" if result.memory else \
        ("\n  memory repository: the project folder of each session (the payload's cwd); in a folder with no "
         "apm.yaml the hooks do nothing and print nothing")
    emit(ctx, shapes_agents.install_json(result), text + memory_line + "\n  check them with `apm-git hooks status`")
    return EXIT_OK


@hooks_group.command("uninstall")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--user/--project", "user", default=False,
              help="claude-code: from ~/.claude/settings.json or from .claude/settings.json of the current "
                   "directory (the default: --project).")
@click.option("--memory", type=click.Path(path_type=Path), help="timer: the memory whose timers to remove.")
@click.option("--systemd/--cron", "systemd", default=None, help="timer: which kind to remove.")
@click.option("--tracked", is_flag=True, help="timer: the snapshot timer of the tracked folders.")
@click.pass_context
def uninstall_cmd(ctx: click.Context, agent: str, user: bool, memory: Path | None, systemd: bool | None,
                  tracked: bool) -> int:
    """Remove exactly the hooks (or timers) that install added."""
    from apm_git.agents import timers
    from apm_git.agents.hooks import uninstall_claude_code

    if agent == "timer":
        target = _timer_memory(ctx, memory, tracked)
        done = timers.uninstall_systemd(target) if _timer_kind(systemd) else timers.uninstall_cron(target)
        return _timer_report(ctx, done, "removed")
    result = uninstall_claude_code(user=user, project=Path.cwd())
    text = (f"apm-git: removed the {', '.join(result.removed)} hook(s) from {result.path}" if result.written
            else f"apm-git: no apm-git hook in {result.path}: nothing changed")
    emit(ctx, shapes_agents.uninstall_json(result), text)
    return EXIT_OK


@hooks_group.command("status")
@click.option("--no-run", is_flag=True, help="Only list the hooks; do not run them.")
@click.pass_context
def status_cmd(ctx: click.Context, no_run: bool) -> int:
    """What is installed where; each hook command run once with a synthetic payload (a flush hook makes a real
    flush of session apm-git-hooks-status); the timers of `hooks install timer`, checked without running them.
    Exit 1 when a hook or a timer fails."""
    from apm_git.agents.hooks import status_claude_code, status_timers

    places = status_claude_code(project=Path.cwd(), run=not no_run) + status_timers()
    lines, failed = [], False
    for place in places:
        if not place.hooks:
            lines.append(f"{place.where}: {place.path}: " + ("no apm-git hook" if place.exists else "no such file"))
            continue
        lines.append(f"{place.where}: {place.path}")
        for check in place.hooks:
            failed = failed or check.passed is False
            verdict = "PASS" if check.passed else "FAIL" if check.passed is False else "----"
            shown = "" if no_run and check.passed is None else f"\n       {check.detail}"
            lines.append(f"  {verdict} {check.event}: {check.command}{shown}")
    if not any(place.hooks for place in places):
        lines.append("apm-git: no hooks installed; run `apm-git hooks install claude-code`")
    emit(ctx, shapes_agents.hooks_status_json(places), text_of(lines))
    return EXIT_FINDINGS if failed else EXIT_OK


@click.command("mcp")
@click.option("--repo", "repo_path", type=click.Path(path_type=Path),
              help="The memory repository (same as the global --repo; default: $APM_GIT_REPO or the current one).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True, max=86_400), default=60.0, show_default=True,
              envvar="APM_GIT_MCP_TIMEOUT",
              help="Seconds a tool call may take; a call past it is stopped and answers with an error "
                   "(env APM_GIT_MCP_TIMEOUT).")
@click.pass_context
def mcp_cmd(ctx: click.Context, repo_path: Path | None, timeout: float) -> int:
    """Serve the memory over MCP on stdio (tools: load, search, journal_add, remember, hit, flush, history,
    status; resource: the index).  Register it with `claude mcp add apm-git -- apm-git mcp --repo PATH`.
    Refuses to start without a memory repository (exit 3); ends when its client goes away."""
    from apm_git.agents.mcp_server import serve
    from apm_git.store.repo import open_repo

    repo = open_repo(repo_path or state(ctx).repo_path)  # checked before serving: every tool would fail
    serve(repo.root, timeout)
    return EXIT_OK


@click.command("audit")
@click.argument("transcripts", nargs=-1, type=click.Path(path_type=Path))
@click.pass_context
def audit_cmd(ctx: click.Context, transcripts: tuple[Path, ...]) -> int:
    """Read Claude Code session transcripts (default: ~/.claude/projects) and list every compaction without a
    pre-compact flush of its session before it, and every session end without a flush.  Exit 1 when any."""
    from apm_git.agents.audit import audit

    paths = list(transcripts) or [Path.home() / ".claude" / "projects"]
    missing_path = next((path for path in paths if not path.exists()), None)
    if missing_path is not None:
        from apm_git.errors import StateError

        raise StateError(f"{missing_path} does not exist; give the transcript files or folders to audit")
    result = audit(state(ctx).repo(), paths)
    lines = []
    for item in result.compactions:
        where = f"{item.transcript}:{item.line}"
        if item.flushed_by is None:
            lines.append(f"MISSING compaction at {item.time} (session {item.session}, {where}): no pre-compact "
                         "flush of this session before it")
        else:
            lines.append(f"ok      compaction at {item.time} (session {item.session}): flushed by {item.flushed_by}")
    for end in result.session_ends:
        if end.flushed_by is None:
            lines.append(f"MISSING session end at {end.time} (session {end.session}, {end.transcript}): no flush "
                         "after its last record")
        else:
            lines.append(f"ok      session end at {end.time} (session {end.session}): flushed by {end.flushed_by}")
    lines += [f"running session {session}: not judged yet" for session in result.running]
    lines.append(f"{result.transcripts} transcript(s), {len(result.compactions)} compaction(s), "
                 f"{len(result.session_ends)} session end(s): " +
                 (f"{result.missing} without a flush" if result.missing else "every one flushed"))
    emit(ctx, shapes_agents.audit_json(result), text_of(lines))
    return EXIT_FINDINGS if result.missing else EXIT_OK
