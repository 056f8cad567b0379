"""init, journal, flush, index and status."""
from __future__ import annotations

from pathlib import Path
from typing import IO

import click

from apm_git.cli.base import UTF8, choice, emit, state, text_of, too_large_line, warn, withheld_line
from apm_git.errors import EXIT_FINDINGS, EXIT_OK
from apm_git.model.config import KINDS
from apm_git.model.fitness import VALUES
from apm_git.model.vocabulary import FLUSH_TRIGGERS
from apm_git.present import shapes


@click.command("init")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--no-install", is_flag=True, help="Do not run `pre-commit install`.")
@click.option("--force", is_flag=True,
              help="Adopt the memory folder even when it does not look like an agent's memory (code, docs).")
@click.pass_context
def init_cmd(ctx: click.Context, path: Path | None, no_install: bool, force: bool) -> int:
    """Create the memory layout in PATH (default: the current directory); never overwrites a file."""
    from apm_git.commands.init import init

    result = init(path or state(ctx).repo_path or Path.cwd(), install=not no_install, force=force)
    for note in result.notes:
        warn(f"apm-git: {note}")
    lines = [f"apm-git: memory repository at {result.root}"]
    adoption = result.adoption
    if adoption.commit:
        lines.append(f"  committed {adoption.commit[:12]} memory: adopt {len(adoption.files)} file(s) as found")
    lines += [f"  kept your {was} as {now} (listed in the generated index)" for was, now in adoption.kept]
    if adoption.known:
        lines.append(f"  recorded {adoption.known} finding(s) the memory already held in the baseline "
                     "(`apm-git lint --all --baseline-too` lists them)")
    for name in adoption.withheld:
        warn(
            f"apm-git: WARNING: {name} looks like it holds a secret, so it was NOT committed; it stays on disk as it "
            "is: remove the secret, or mark a false positive with `apm-git allow-secret PATH:LINE` "
            "(`apm-git status` shows where), then `apm-git flush`",
        )
    lines += [f"  created {name}" for name in result.created]
    lines += [f"  updated {name}" for name in result.updated]
    if result.commit:
        lines.append(f"  committed {result.commit[:12]} memory: init")
    elif not adoption.commit:
        lines.append("  already initialized: nothing changed")
    if result.hooks_installed:
        lines.append("  installed the pre-commit hook (apm checks run at every `git commit`)")
    if result.warning:
        warn(f"apm-git: WARNING: {result.warning}")
    emit(ctx, shapes.init_json(result), text_of(lines))
    return EXIT_OK


@click.command("setup")
@click.option("--no-install", is_flag=True, help="Do not run `pre-commit install`.")
@click.pass_context
def setup_cmd(ctx: click.Context, no_install: bool) -> int:
    """Register in .git/config what a clone lacks: the diff driver and the pre-commit hook."""
    from apm_git.commands.setup import setup

    result = setup(state(ctx).repo().root, install=not no_install)
    lines = [f"apm-git: registered {name}" for name in result.registered] or ["apm-git: this clone is set up already"]
    if result.warning:
        warn(f"apm-git: WARNING: {result.warning}")
    emit(ctx, shapes.setup_json(result), text_of(lines))
    return EXIT_OK


@click.command("merge-driver")
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("ours", type=click.Path(path_type=Path))
@click.argument("theirs", type=click.Path(path_type=Path))
@click.argument("path", type=UTF8)
@click.pass_context
def merge_driver_cmd(ctx: click.Context, base: Path, ours: Path, theirs: Path, path: str) -> int:
    """Git's merge driver for memory files (%O %A %B %P): writes the entry-level merge into OURS.

    Exit 0 when the merge is clean, 1 when something was kept for a person to settle.
    """
    from apm_git.commands.merge_driver import merge_file

    result = merge_file(base, ours, theirs, path)
    for conflict in result.conflicts:
        warn(f"apm-git: merge conflict kept in {conflict}")
    if result.over_budget is not None:
        from apm_git.model.dated import JOURNAL_NAME

        lines, budget = result.over_budget
        if JOURNAL_NAME.fullmatch(path.rsplit("/", 1)[-1]):
            warn(f"apm-git: WARNING: {path} is over its line budget after this merge ({lines}/{budget} lines): "
                 "the union of both sides' journals, kept whole (deep sleep promotes its items); a memory "
                 "several agents share needs a journal budget sized for them (`budgets` -> `journal` in "
                 "apm.yaml)")
        else:
            warn(f"apm-git: WARNING: {path} is over its line budget after this merge ({lines}/{budget} lines): "
                 "a git merge sees one file and cannot archive; the next `apm-git rem` (or `apm-git dream`, when "
                 "REM is due) archives its lowest-scored entries, and lint reports it until then (`apm-git sync` "
                 "merges and archives in one commit)")
    emit(ctx, shapes.merge_driver_json(result), None)
    return EXIT_OK if result.clean else EXIT_FINDINGS


@click.group("journal")
def journal_group() -> None:
    """Light Sleep: write to today's journal."""


@journal_group.command("add")
@click.argument("text", type=UTF8)
@click.option("--kind", required=True, type=click.Choice(KINDS, case_sensitive=False),
              help="What the item is (any case: Decision is decision).")
@click.option("--title", type=UTF8, help="Record title (default: the first words of TEXT).")
@click.option("--tags", type=UTF8, help="Extra tags, comma-separated.")
@click.option("--value", type=click.Choice(VALUES, case_sensitive=False), default="MEDIUM", show_default=True,
              help="decision_value of the entry.")
@click.option("--allow-secret", is_flag=True,
              help="Write it although it looks like a credential (a false positive), with the scanner's pragma.")
@click.pass_context
def journal_add_cmd(
    ctx: click.Context, text: str, kind: str, title: str | None, tags: str | None, value: str, allow_secret: bool,
) -> int:
    """Append a record to today's journal (memory/YYYY-MM-DD.md); what looks like a credential is refused."""
    from apm_git.commands.journal import add

    entry = add(state(ctx).repo(), text, kind=choice(KINDS, kind), title=title, tags=(tags or "").split(","),
                value=choice(VALUES, value), allow_secret=allow_secret)
    emit(ctx, shapes.journal_add_json(entry), f"{entry.file}:{entry.line}: added {entry.entry_id}")
    return EXIT_OK


@click.command("flush")
@click.option("--trigger", "trigger_text", type=click.Choice(FLUSH_TRIGGERS), default="manual",
              show_default=True, help="What asked for the flush (taken from --hook-input when not given).")
@click.option("--scope", help="all, main or group:NAME (default: all).")
@click.option("--room", type=UTF8, help="Room id; flushes the group it maps to in group_names.json.")
@click.option("-m", "--message", type=UTF8, help="Commit message body.")
@click.option("--hook-input", "hook_input", type=click.File("r", encoding="utf-8"),
              help="Agent hook payload (JSON) from FILE or - for stdin: session, trigger and cwd.")
@click.option("--if-idle", is_flag=True, help="Flush only when the newest change is flush.idle_minutes old.")
@click.option("--session", type=UTF8, help="Session id for the Apm-Session trailer.")
@click.option("--create", is_flag=True, help="Allow --scope group:NAME to start a group that does not exist yet.")
@click.pass_context
def flush_cmd(
    ctx: click.Context, trigger_text: str, scope: str | None, room: str | None, message: str | None,
    hook_input: IO[str] | None, if_idle: bool, session: str | None, create: bool,
) -> int:
    """Commit the memory changes of a scope as one commit."""
    from apm_git.commands.flush import flush
    from apm_git.hookinput import open_hook_repo, read_payload
    from apm_git.store.repo import open_repo
    from apm_git.store.scope import scope_for

    repo_path = state(ctx).repo_path
    trigger = choice(FLUSH_TRIGGERS, trigger_text)
    if hook_input is not None:
        payload = read_payload(hook_input)
        session = session or payload.session_id
        if ctx.get_parameter_source("trigger_text") is click.core.ParameterSource.DEFAULT and payload.trigger:
            trigger = payload.trigger
        found = open_hook_repo(repo_path, payload, given_as=state(ctx).repo_given_as)
        if found is None:
            return EXIT_OK  # no memory serves the session's folder: nothing to flush, nothing to say
        repo = state(ctx).keep(found)
    else:
        repo = state(ctx).keep(open_repo(repo_path, given_as=state(ctx).repo_given_as))
    chosen = scope_for(repo, scope, room, create=create)
    result = flush(repo, trigger=trigger, scope=chosen, session=session, message=message, if_idle=if_idle,
                   hook=hook_input is not None)
    if hook_input is not None and result.session and not result.commit:
        from apm_git.agents.audit import note_clean_flush

        note_clean_flush(repo, trigger, result.session)  # no commit to show it, so `audit` reads this note
    if result.commit:
        what = f"{len(result.files)} file(s) as {result.commit[:12]} ({result.trigger}, {result.scope})"
        text = [f"apm-git: flushed {what}"]
    else:
        text = [f"apm-git: {result.skipped}"]
    text += [f"  auto-initialized {name}" for name in result.created]
    text += [f"  kept your own INDEX.md as {name} (apm-git writes INDEX.md; yours is listed in it)"
             for name in result.kept_index]
    for finding in result.findings:
        warn(f"apm-git: finding: {finding}")
    for name in result.too_large:
        warn(f"apm-git: WARNING: {too_large_line(name)}")
    for section in result.withheld_sections:
        warn(f"apm-git: WARNING: {withheld_line(section)}")
    for note in result.notes + result.cut:
        warn(f"apm-git: WARNING: {note}")
    emit(ctx, shapes.flush_json(result), text_of(text))
    # From a hook, something withheld exits 1: the agent's host shows stderr then (for 0 it shows nothing;
    # a hook never exits 2).  By hand the warning is seen, and scripts keep their 0.
    return EXIT_FINDINGS if result.notes or (hook_input is not None and result.withheld) else EXIT_OK


@click.command("index")
@click.pass_context
def index_cmd(ctx: click.Context) -> int:
    """Rebuild memory/INDEX.md from the memory files."""
    from apm_git.commands.index import index

    result = index(state(ctx).repo())
    emit(ctx, shapes.index_json(result), f"{result.path}: {'rebuilt' if result.changed else 'up to date'}")
    return EXIT_OK


@click.command("status")
@click.option("--files", "all_files", is_flag=True, help="List every memory file with its lines and budget.")
@click.option("--tracked", help="A tracked folder (`apm-git track`): an agent, an id or a path; docs/tracking.md.")
@click.pass_context
def status_cmd(ctx: click.Context, all_files: bool, tracked: str | None) -> int:
    """Budgets, the findings that hold now (totals and the worst few), last flushes, pending items, what is due."""
    from apm_git.agents.audit import last_audited
    from apm_git.cli import track
    from apm_git.commands.status import status
    from apm_git.present.status_format import status_text

    repo = track.target(ctx, tracked)
    if track.is_tracked(repo):
        return track.tracked_status(ctx, repo)
    result = status(repo)
    audited = last_audited(repo)
    lines = status_text(result, all_files=all_files).split("\n")
    compaction = audited.get("last_compaction") if audited else None
    if isinstance(compaction, dict):
        verdict = f"flushed by {compaction.get('flushed_by')}" if compaction.get("flushed_by") else "NOT flushed"
        lines.append(f"Last compaction audited: {compaction.get('time')} (session {compaction.get('session')}), "
                     f"{verdict}; audited {audited.get('audited_at') if audited else ''}")
    else:
        lines.append("Last compaction audited: none (run `apm-git audit`)")
    emit(ctx, shapes.status_json(result, audited), text_of(lines))
    return EXIT_OK
