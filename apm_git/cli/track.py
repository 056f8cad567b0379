"""track, untrack, snapshot, restore: the memory folders agents write themselves, versioned where they are
(docs/tracking.md); and how diff, log, status and sync find a tracked folder (`--tracked`, or the folder
they run in)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from apm_git.cli.base import HOOK_FLAG, UTF8, choice, emit, state, warn
from apm_git.errors import EXIT_FINDINGS, EXIT_OK, NotAMemoryRepo, UsageError
from apm_git.model.vocabulary import SNAPSHOT_TRIGGERS, TRACKED_AGENTS
from apm_git.present import shapes_tracked, tracked_format

TRACKED_HELP = "A tracked folder: an agent (its folder for this project), an id of `track --list`, or a path."


def target(ctx: click.Context, spec: str | None, *, finish: bool = True) -> Any:
    """The memory repository a command runs on, or the tracked folder (a `store.tracked.Tracked`): the one
    `--tracked` names; else the memory repository of --repo or the current folder, and when there is none, the
    tracked folder that path lies in (or whose project it is)."""
    from apm_git.store import tracked as store

    if spec is not None:
        return store.find(spec, Path.cwd())
    try:
        return state(ctx).repo(finish=finish)
    except NotAMemoryRepo as error:
        import os

        from apm_git.errors import StateError

        where = state(ctx).repo_path or (Path(os.environ["APM_GIT_REPO"]) if os.environ.get("APM_GIT_REPO")
                                         else Path.cwd())
        try:
            return store.find(None, where.expanduser().absolute())
        except StateError:  # no tracked folder there either: the memory repository's error says what to do
            raise error from None


def is_tracked(found: Any) -> bool:
    from apm_git.store.tracked import Tracked

    return isinstance(found, Tracked)


@click.command("track")
@click.argument("agent", required=False, type=click.Choice(TRACKED_AGENTS))
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--project", type=click.Path(path_type=Path), help="The project whose memory it is (default: the "
              "current folder; Claude Code: its git root; OpenClaw: the workspace).")
@click.option("--name", type=UTF8, help="The project's identity on every machine, when its git remote does not "
                                        "give one (`sync` matches machines by it).")
@click.option("--remote", help="A git remote URL that `apm-git sync` shares this memory through.")
@click.option("--cap-lines", type=click.IntRange(min=1), help="Claude Code: the lines of MEMORY.md loaded at "
                                                               "session start (default 200).")
@click.option("--cap-bytes", type=click.IntRange(min=1), help="Claude Code: the bytes of MEMORY.md loaded at "
                                                               "session start (default 25000).")
@click.option("--no-hooks", is_flag=True, help="Do not wire the snapshots into the agent's hooks.")
@click.option("--list", "show", is_flag=True, help="List the tracked folders and their snapshots.")
@click.pass_context
def track_cmd(ctx: click.Context, agent: str | None, path: Path | None, project: Path | None, name: str | None,
              remote: str | None, cap_lines: int | None, cap_bytes: int | None, no_hooks: bool, show: bool) -> int:
    """Version an agent's own memory folder where it is: history apart from it, files never rewritten."""
    if show:
        if agent or path or project or name or remote or cap_lines or cap_bytes:
            raise UsageError("--list takes no other argument")
        from apm_git.commands.track import listing

        listed, broken = listing()
        emit(ctx, shapes_tracked.listing_json(listed, broken), tracked_format.listing_text(listed, broken))
        return EXIT_OK
    if agent is None:
        raise UsageError("name the agent whose memory to track: claude-code, codex or openclaw (or --list)")
    from apm_git.commands.track import track

    result = track(choice(TRACKED_AGENTS, agent), project=project, path=path, name=name, remote=remote,
                   cap_lines=cap_lines, cap_bytes=cap_bytes)
    hooks: list[dict[str, Any]] = []
    if not no_hooks:
        from apm_git.agents.snapshot_hooks import install

        hooks = install(result.tracked)
    text = tracked_format.track_text(result)
    text += "".join(f"\napm-git: hooks: {item['what']}" for item in hooks)
    emit(ctx, shapes_tracked.track_json(result, hooks), text)
    for line in tracked_format.warnings(result.snapshot):
        warn(line)
    say_fallback(result.snapshot.fallback)
    return EXIT_OK


@click.command("untrack")
@click.argument("tracked", required=False, metavar="[AGENT | ID | PATH]")
@click.pass_context
def untrack_cmd(ctx: click.Context, tracked: str | None) -> int:
    """Stop snapshotting a tracked folder; its history stays (`track` resumes it)."""
    from apm_git.agents.snapshot_hooks import uninstall
    from apm_git.commands.track import untrack
    from apm_git.store import tracked as store

    done = untrack(tracked, Path.cwd())
    hooks: list[dict[str, Any]] = []
    if not any(item.active and item.agent == done.agent for item in store.readable()):
        hooks = uninstall(done.agent)  # no folder of that agent is tracked any more
    text = (f"apm-git: no longer tracking {tracked_format.home(done.folder)}; its history stays in "
            f"{tracked_format.home(str(done.git_dir))} (`apm-git track {done.agent} {done.folder}` resumes it)")
    text += "".join(f"\napm-git: hooks: {item['what']}" for item in hooks)
    emit(ctx, shapes_tracked.untrack_json(done, hooks), text)
    return EXIT_OK


@click.command("snapshot")
@click.argument("tracked", required=False, metavar="[AGENT | ID | PATH]")
@click.option("--all", "every", is_flag=True, help="Every tracked folder (the timer's run).")
@click.option("--trigger", type=click.Choice(SNAPSHOT_TRIGGERS), default="manual", show_default=True)
@click.option("--session", type=UTF8, help="The agent's session, for the Apm-Session trailer.")
@click.option("-m", "--message", type=UTF8, help="A line for the commit body.")
@click.option("--allow-secret", "allow", multiple=True, metavar="PATH:LINE",
              help="What looks like a credential on that line is not one: snapshot the file. Repeatable.")
@click.option("--agent", type=click.Choice(TRACKED_AGENTS), help="With --hook-input: the agent whose hook runs.")
@click.option(HOOK_FLAG, "hook_input", type=click.File("r", encoding="utf-8"), default=None,
              help="An agent hook's JSON payload (- for stdin): its event, session and folder.")
@click.pass_context
def snapshot_cmd(ctx: click.Context, tracked: str | None, every: bool, trigger: str, session: str | None,
                 message: str | None, allow: tuple[str, ...], agent: str | None, hook_input: Any) -> int:
    """Commit what changed in a tracked folder (its hooks and the timer run this); nothing when nothing did."""
    if hook_input is not None:
        from apm_git.agents.snapshot_hook import answer_payload

        if agent is None:
            raise UsageError("--hook-input needs --agent (claude-code, codex or openclaw)")
        code, out = answer_payload(choice(TRACKED_AGENTS, agent), hook_input.read(),
                                   Path(tracked) if tracked else None)
        if out:
            click.echo(out)
        return code
    from apm_git.commands.snapshot import snapshot

    outcomes = snapshot(tracked, Path.cwd(), trigger=choice(SNAPSHOT_TRIGGERS, trigger), session=session,
                        message=message, every=every, allow=allow)
    emit(ctx, shapes_tracked.outcomes_json(outcomes), tracked_format.outcomes_text(outcomes))
    for outcome in outcomes:
        for line in tracked_format.warnings(outcome.snapshot) if outcome.snapshot else []:
            warn(line)
    failed = [outcome for outcome in outcomes if outcome.error]
    for outcome in failed:
        warn(f"apm-git: {outcome.error}")
    say_fallback(*(outcome.snapshot.fallback for outcome in outcomes if outcome.snapshot))
    return EXIT_FINDINGS if failed else EXIT_OK


def say_fallback(*made: bool) -> None:
    """Once per command, as a memory repository's commits say it (store/commit.note_identity): a commit of a
    tracked folder was made as apm-git, git having no user identity here."""
    if any(made):
        from apm_git import git

        warn(f"apm-git: {git.FALLBACK_NOTE}")


def tracked_restore(ctx: click.Context, tracked: Any, paths: tuple[str, ...], revision: str | None,
                    section: str | None) -> int:
    """`restore` on a tracked folder: a file version or a removed section, as a new snapshot."""
    from apm_git.commands.restore import restore

    result = restore(tracked.id, Path.cwd(), paths=paths, revision=revision, section=section)
    emit(ctx, shapes_tracked.restore_json(result), tracked_format.restore_text(result))
    say_fallback(result.before.fallback, result.after.fallback)
    return EXIT_OK


def tracked_status(ctx: click.Context, tracked: Any) -> int:
    from apm_git.commands.tracked_status import status

    result = status(tracked.id, Path.cwd())
    emit(ctx, shapes_tracked.status_json(result), tracked_format.status_text(result))
    return EXIT_OK


def tracked_lint(ctx: click.Context, tracked: Any) -> int:
    from apm_git.commands.tracked_lint import lint

    result = lint(tracked)
    emit(ctx, shapes_tracked.lint_json(result), "\n".join(str(finding) for finding in result.findings))
    warn(f"apm-git lint: {len(result.findings)} finding(s) in {len(result.checked)} memory file(s) of the tracked "
         f"folder {tracked_format.home(tracked.folder)} ({tracked.id})")
    return EXIT_FINDINGS if result.findings else EXIT_OK


def tracked_sync(ctx: click.Context, tracked: Any, remote: str | None) -> int:
    from apm_git.operations.tracked_sync import sync

    result = sync(tracked, remote=remote)
    emit(ctx, shapes_tracked.sync_json(result), tracked_format.sync_text(result))
    for path in result.withheld:
        warn(f"apm-git: WARNING: {path} was NOT synced (a suspected secret, or unreadable); `apm-git status` says why")
    for conflict in result.conflicts:
        warn(f"apm-git: CONFLICT: {conflict}; settle it in the folder, then sync again")
    say_fallback(result.fallback)
    return EXIT_FINDINGS if result.conflicts else EXIT_OK


def tracked_diff(ctx: click.Context, tracked: Any, revision: str | None, fmt: str | None) -> int:
    from apm_git.operations.tracked_diff import review

    found = review(tracked, revision)
    if fmt == "json":
        from apm_git.cli.base import print_json

        print_json(shapes_tracked.diff_json(found))
    else:
        text = tracked_format.diff_text(found)
        click.echo(f"```\n{text}\n```" if fmt == "markdown" else text)
    return EXIT_OK
