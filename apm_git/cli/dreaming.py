"""deep-sleep, rem, dream, history and forget."""
from __future__ import annotations

import json
from typing import IO, Any

import click

from apm_git import jsontext
from apm_git.cli.base import choice, emit, print_json, state, text_of, warn
from apm_git.cli.proposals import propose_option, proposed_text, proposing
from apm_git.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from apm_git.model.trailers import CONSOLIDATION
from apm_git.model.vocabulary import KEEPS
from apm_git.present import shapes_dreaming
from apm_git.present.shapes_proposals import proposed_json


def _stage_text(result: Any) -> str:
    if result.dry_run:
        head = f"apm-git: {result.subject} (dry run: nothing changed)"
        if result.refused:
            head += "; a real run would be REFUSED by the mass-archive guard"
    elif result.commit is None:
        head = f"apm-git: {result.subject}; nothing changed since the last run, so no commit"
    else:
        head = f"apm-git: {result.subject}; committed {result.commit[:12]}"
        if result.flushed:
            head += f" (uncommitted memory flushed first as {result.flushed[:12]})"
    guarded = "  <- the guard refuses the run for these" if result.refused else ""
    lines = [head] + [
        f"  {CONSOLIDATION.get(key, key)}: {value}{guarded if key == 'Apm-Archive' else ''}"
        for key, value in result.trailers
    ]
    if result.refused:
        lines.append(f"  guard: {result.refused}; `--force` carries the run out as shown")
    if result.left_out:
        from apm_git.operations.consolidation import left_out_note

        lines.append(f"  {left_out_note(result.left_out)}")
    return text_of(lines)


def load_plan(plan_file: IO[str], command: str) -> Any:
    """The JSON of a plan file; a file that is not JSON or not UTF-8 is refused in one line."""
    from apm_git.errors import PlanRefused

    try:
        return jsontext.loads(plan_file.read())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        where = (f"{plan_file.name}:{error.lineno}: not valid JSON ({error.msg})"
                 if isinstance(error, json.JSONDecodeError)
                 else f"{plan_file.name}: not valid UTF-8 (byte {error.start})")
        raise PlanRefused(
            f"{where}; nothing was changed — print a fresh plan with `apm-git {command} --plan`",
        ) from None


@click.command("deep-sleep")
@click.option("--plan", "show_plan", is_flag=True, help="Print the proposed moves as JSON; change nothing.")
@click.option("--apply", "plan_file", type=click.File("r", encoding="utf-8"), metavar="PLAN.json",
              help="Carry out a plan printed by --plan (possibly edited), after checking it.")
@click.option("--dry-run", is_flag=True, help="Say what would be done; change nothing.")
@click.option("--force", is_flag=True, help="Archive for room even past rem.max_archive_share.")
@propose_option
@click.pass_context
def deep_sleep_cmd(ctx: click.Context, show_plan: bool, plan_file: IO[str] | None, dry_run: bool, force: bool,
                   propose: bool | None) -> int:
    """Stage 2: promote journal items into the category files, now; archive old journals."""
    from apm_git.commands.deep_sleep import deep_sleep, deep_sleep_plan

    if show_plan and plan_file is not None:
        raise UsageError("--plan and --apply go in separate runs: print a plan, edit it, then apply it")
    repo = state(ctx).repo()
    if show_plan:
        print_json(deep_sleep_plan(repo))
        return EXIT_OK
    plan_data = None if plan_file is None else load_plan(plan_file, "deep-sleep")
    if not dry_run and proposing(repo, propose):
        from apm_git.operations.proposals import propose as make_proposal
        from apm_git.operations.stages import DeepSleep

        made = make_proposal(repo, DeepSleep(plan_data), force=force)
        emit(ctx, proposed_json([made]), proposed_text(made))
        return EXIT_OK
    result = deep_sleep(repo, plan_data=plan_data, dry_run=dry_run, force=force)
    emit(ctx, shapes_dreaming.stage_json(result), _stage_text(result))
    return EXIT_OK


@click.command("rem")
@click.option("--dry-run", is_flag=True, help="Say what would be done; change nothing.")
@click.option("--force", is_flag=True, help="Run even when it archives more than rem.max_archive_share.")
@propose_option
@click.pass_context
def rem_cmd(ctx: click.Context, dry_run: bool, force: bool, propose: bool | None) -> int:
    """Stage 3: the survival merge (score, proven, archive, fold, supersede), now; rebuild INDEX.md."""
    from apm_git.commands.rem import rem

    repo = state(ctx).repo()
    if not dry_run and proposing(repo, propose):
        from apm_git.operations.proposals import propose as make_proposal
        from apm_git.operations.stages import Rem

        made = make_proposal(repo, Rem(), force=force)
        emit(ctx, proposed_json([made]), proposed_text(made))
        return EXIT_OK
    result = rem(repo, dry_run=dry_run, force=force)
    emit(ctx, shapes_dreaming.stage_json(result), _stage_text(result))
    return EXIT_OK


@click.command("dream")
@click.option("--force", is_flag=True, help="Pass --force to the stages that run.")
@propose_option
@click.pass_context
def dream_cmd(ctx: click.Context, force: bool, propose: bool | None) -> int:
    """Run whichever of deep sleep and REM is due (for cron and agent hooks; safe every hour)."""
    from apm_git.commands.dream import dream

    repo = state(ctx).repo()
    proposals = proposing(repo, propose)
    result = dream(repo, force=force, propose=proposals)
    text = "\n".join(proposed_text(made) for made in result.proposed) if proposals else \
        "\n".join(_stage_text(stage) for stage in result.ran)
    text = text or ("" if result.refused else "apm-git: nothing due (see `apm-git status`)")
    text = "\n".join([text, *(f"vectors ({built.where}): {built.embedded} new passage(s) embedded, "
                              f"{built.dropped} gone dropped" for built in result.vectors
                              if built.embedded or built.dropped)]).strip("\n")
    emit(ctx, proposed_json(result.proposed, result.refused) if proposals else shapes_dreaming.dream_json(result),
         text)
    if result.vectors_note:
        warn(f"apm-git: {result.vectors_note}")
    if result.refused:
        warn(f"apm-git: {result.refused}")
        ctx.exit(EXIT_FINDINGS)
    return EXIT_OK


@click.command("history")
@click.argument("entry_id", metavar="ENTRY-ID")
@click.pass_context
def history_cmd(ctx: click.Context, entry_id: str) -> int:
    """Every commit that created, changed, promoted, moved, superseded or archived an entry, oldest first."""
    from apm_git.commands.history import history

    events = history(state(ctx).repo(), entry_id)
    lines = []
    for event in events:
        where = f"{event.source} -> {event.file}" if event.source else event.file
        detail = f"  ({event.detail})" if event.detail else ""
        what = event.what.upper() if event.what == "lost" else event.what
        lines.append(f"{event.date[:10]}  {event.commit[:7]}  {event.trigger:<12} {what:<10} {where}{detail}")
    emit(ctx, shapes_dreaming.history_json(entry_id, events), text_of(lines))
    if events[-1].what == "lost":  # lost now, as `diff` and `lint` say of it (exit 1, as they do)
        warn(f"apm-git history: {entry_id} was lost in {events[-1].commit[:12]} with no record of where it went; "
             f"restore it from that commit's parent, or delete it deliberately with `apm-git forget {entry_id} "
             "--reason TEXT`")
        return EXIT_FINDINGS
    return EXIT_OK


@click.command("import")
@click.option("--plan", "show_plan", is_flag=True, help="Print the import plan as JSON (to edit); change nothing.")
@click.option("--apply", "plan_file", type=click.File("r", encoding="utf-8"), metavar="PLAN.json",
              help="Carry out a plan printed by --plan (items may be dropped or their kind changed); '-' reads stdin.")
@click.pass_context
def import_cmd(ctx: click.Context, show_plan: bool, plan_file: IO[str] | None) -> int:
    """Turn free-form dated sections and session notes into records, in place; one commit."""
    from apm_git.commands.import_ import import_apply, import_plan_json

    if show_plan and plan_file is not None:
        raise UsageError("--plan and --apply go in separate runs: print a plan, edit it, then apply it")
    repo = state(ctx).repo()
    if plan_file is None:
        data = import_plan_json(repo)
        if show_plan:
            print_json(data)
        else:
            emit(ctx, data, _import_text(data))
        return EXIT_OK
    result = import_apply(repo, load_plan(plan_file, "import"))
    head = (f"apm-git: {result.subject}; committed {result.commit[:12]}" if result.commit
            else f"apm-git: {result.subject}; nothing to commit")
    if result.flushed:
        head += f" (uncommitted memory flushed first as {result.flushed[:12]})"
    lines = [head] + [f"  import: {value}" for _, value in result.trailers]
    emit(ctx, shapes_dreaming.stage_json(result), text_of(lines))
    return EXIT_OK


SKIPS_SHOWN = 3  # per file and reason; `--plan` (JSON) lists every one


def _skip_lines(skipped: list[dict[str, Any]]) -> list[str]:
    """A line per skipped section, the first few of each file and reason: a journal of 100,000 sections with no
    room printed 100,000 lines that said the same."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for skip in skipped:
        groups.setdefault((skip["file"], skip["reason"]), []).append(skip)
    lines = []
    for (file, reason), group in groups.items():
        lines += [f"  skip: {file}:{skip['line']}: {reason}" for skip in group[:SKIPS_SHOWN]]
        if len(group) > SKIPS_SHOWN:
            lines.append(f"  skip: {file}: and {len(group) - SKIPS_SHOWN:,} more section(s) for the same reason "
                         "(`apm-git import --plan` lists them)")
    return lines


def _import_text(data: dict[str, Any]) -> str:
    items, skipped = data["import"], data["skipped"]
    lines = [f"apm-git: import would turn {len(items)} section(s) into records (nothing changed)"]
    lines += [f"  import: {i['id']} {i['file']}:{i['line']} ({i['form']}, {i['kind']})" for i in items]
    lines += _skip_lines(skipped)
    if items:
        lines.append("  carry it out: `apm-git import --plan > plan.json`, edit it if you like, "
                     "then `apm-git import --apply plan.json`")
    return text_of(lines)


@click.command("forget")
@click.argument("entry_ids", nargs=-1, required=True, metavar="ENTRY-ID...")
@click.option("--reason", required=True, help="Why the entries are deleted (goes into the commit).")
@click.pass_context
def forget_cmd(ctx: click.Context, entry_ids: tuple[str, ...], reason: str) -> int:
    """Delete entries (live or archived) deliberately: one commit with an Apm-Forget trailer each."""
    from apm_git.commands.forget import forget

    result = forget(state(ctx).repo(), list(entry_ids), reason)
    lines = [f"apm-git: forgot {len(result.forgotten)} entr{'y' if len(result.forgotten) == 1 else 'ies'} "
             f"as {result.commit[:12]} ({result.reason})"]
    lines += [f"  {item.entry_id}  {item.file}" for item in result.forgotten]
    emit(ctx, shapes_dreaming.forget_json(result), text_of(lines))
    return EXIT_OK


@click.command("resolve")
@click.argument("entry_id", metavar="ENTRY-ID")
@click.option("--keep", type=click.Choice(KEEPS), required=True,
              help="this: keep ENTRY-ID; other: keep the version it is in conflict with; both: one entry holding "
                   "both versions. The version that goes is recorded as superseded (archived) or merged.")
@click.option("--with", "other_id", metavar="OTHER-ID",
              help="The entry ENTRY-ID is in conflict with, when its Conflicts field names more than one.")
@click.pass_context
def resolve_cmd(ctx: click.Context, entry_id: str, keep: str, other_id: str | None) -> int:
    """Settle a conflict a merge kept (two versions linked by Conflicts:) in one commit; nothing is lost."""
    from apm_git.commands.resolve import resolve

    repo = state(ctx).repo()
    result = resolve(repo, entry_id, choice(KEEPS, keep), other_id)
    settled = result.settled
    went = {"superseded": f"{settled.gone} superseded by it (archived in {repo.memory_prefix}/{settled.archive})",
            "merged": f"{settled.gone} merged into it (both versions in one entry)",
            None: f"{settled.other} was no longer there: the link is dropped"}[settled.how]
    lines = [f"apm-git: resolved {settled.entry}: kept {settled.kept} in {repo.memory_prefix}/{settled.kept_file}; "
             f"{went}"]
    if result.flushed:
        lines.append(f"  uncommitted memory flushed first as {result.flushed[:12]}")
    lines.append(f"  committed {result.commit[:12] if result.commit else '(nothing)'}; `apm-git sync` shares it")
    emit(ctx, shapes_dreaming.resolve_json(result, repo.memory_prefix), text_of(lines))
    return EXIT_OK

