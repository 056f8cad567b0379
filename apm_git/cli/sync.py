"""sync: share the memory through a git remote; merge-counters: the hits git merged alike, counted."""
from __future__ import annotations

import re
from typing import Any

import click

from apm_git.cli.base import emit, state, text_of, too_large_line, warn, withheld_line
from apm_git.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from apm_git.present import shapes_agents


@click.command("sync")
@click.option("--remote", help="Remote to sync with (default: the branch's upstream remote, else origin).")
@click.option("--branch", help="Remote branch to merge and push to (default: the upstream branch, else this "
                               "branch's name); e.g. agents/NAME for one branch per agent.")
@click.option("--gather", multiple=True, metavar="PATTERN",
              help="Also merge the remote branches matching PATTERN (agents/*, or main for an agent on its own "
                   "branch); never pushed to. Repeatable.")
@click.option("--tracked", help="A tracked folder (`apm-git track`): an agent, an id or a path; docs/tracking.md.")
@click.pass_context
def sync_cmd(ctx: click.Context, remote: str | None, branch: str | None, gather: tuple[str, ...],
             tracked: str | None) -> int:
    """Flush, fetch, merge entry by entry, check no entry is lost, push (never forced); retries a rejected push."""
    from apm_git.cli import track
    from apm_git.commands.sync import sync

    found = track.target(ctx, tracked)
    if track.is_tracked(found):
        if branch or gather:
            raise UsageError("a tracked folder syncs with the branch of its project's identity: --branch and --gather "
                             "are for memory repositories")
        return track.tracked_sync(ctx, found, remote)
    result = sync(found, remote=remote, branch=branch, gather=gather)
    emit(ctx, shapes_agents.sync_json(result), text_of(sync_lines(result)))
    for note in result.flush_notes:
        warn(f"apm-git: WARNING: {note}")
    for section in result.withheld_sections:  # the words flush uses: a section is withheld, not its file
        warn(f"apm-git: WARNING: {withheld_line(section)}")
    for name in result.too_large:
        warn(f"apm-git: WARNING: {too_large_line(name)}")
    for note in result.notes:
        warn(f"apm-git: WARNING: {note}")
    for over in result.journals_over_budget:
        warn(f"apm-git: WARNING: {over.path} is over its line budget after this merge ({over.lines}/"
             f"{over.budget} lines): the union of the writers' journals, kept whole (deep sleep promotes its "
             "items: `apm-git deep-sleep`); a memory several agents share needs a journal budget sized for them "
             "(`budgets` -> `journal` in apm.yaml)")
    for path in result.unmerged:
        warn(f"apm-git: CONFLICT: {path}: git's line merge kept both versions for a person to settle")
    for conflict in result.conflicts:
        warn(f"apm-git: CONFLICT: {conflict}; {settle_hint(conflict)}, then sync")
    return EXIT_FINDINGS if result.conflicts or result.unmerged or result.flush_notes else EXIT_OK


def settle_hint(conflict: str) -> str:
    """How to settle what a merge kept for a person: the command for an entry kept in two versions."""
    from apm_git.model.entry_id import ENTRY_ID
    from apm_git.model.vocabulary import KEEPS

    found = re.search(rf": ({ENTRY_ID.pattern}): .*linked by Conflicts:", conflict)
    if found is None:
        return "both versions are kept for a person to settle"
    return f"settle it with `apm-git resolve {found[1]} --keep {'|'.join(KEEPS)}` (nothing is lost)"


def sync_lines(result: Any) -> list[str]:
    """One line per thing sync did."""
    where = f"{result.remote} {result.branch}"
    lines = []
    if result.flushed:
        lines.append(f"apm-git: flushed the memory as {result.flushed[:12]}")
    for step in result.integrated:
        if step.kind == "fast-forward":
            lines.append(f"apm-git: fast-forwarded {result.local_branch} to {step.source} ({step.commit[:12]})")
        else:
            lines.append(f"apm-git: merged {step.source} as {step.commit[:12]} (the branch was at {step.backup})")
            for archived in step.archived:  # `<id> <from> -> <to> (score N)`, as the Apm-Archive trailer has it
                source = archived.split()[1]
                lines.append(f"apm-git: archived {archived}: the merge put {source} over its line budget")
    if result.pushed:
        retries = f" after {result.push_attempts - 1} rejected push(es)" if result.push_attempts > 1 else ""
        created = " (created it)" if result.created_branch else ""
        lines.append(f"apm-git: pushed {result.after[:12]} to {where}{created}{retries}")
    if result.set_upstream:
        lines.append(f"apm-git: {result.local_branch} now tracks {result.remote}/{result.branch}")
    if result.up_to_date:
        lines.append(f"apm-git: up to date with {where}")
    elif not result.pushed:
        lines.append(f"apm-git: {where} already holds {result.after[:12]}")
    return lines


@click.command("merge-counters")
@click.pass_context
def merge_counters_cmd(ctx: click.Context) -> int:
    """After a git merge: commit the hit counts both sides changed alike (the post-merge hook runs it).

    Git merges a file both sides changed to the same bytes without its merge driver, so two hits of one
    entry on the same day would count once; this adds them up in a commit after the merge.
    """
    from apm_git.commands.merge_counters import merge_counters
    from apm_git.present.shapes import merge_counters_json

    result = merge_counters(state(ctx).repo())
    for path in result.left:
        click.echo(f"apm-git: WARNING: {path} holds an edit of yours that is not committed, so the hit counts both "
                   "sides of the merge made alike in it were not added up", err=True)
    text = (f"apm-git: added up the hit counts both sides made alike in {', '.join(result.counted)} "
            f"({result.commit[:12]})" if result.commit else None)
    emit(ctx, merge_counters_json(result), text)
    return EXIT_OK
