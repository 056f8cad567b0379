"""diff and log: memory changes as a reviewer reads them (docs/review.md)."""
from __future__ import annotations

import click

from apm_git.cli.base import print_json, state
from apm_git.errors import EXIT_FINDINGS, EXIT_OK, UsageError

FORMATS = ("text", "markdown", "json")


@click.command("diff")
@click.argument("revision", required=False, metavar="[REV | A..B | A...B]")
@click.option("--tracked", help="A tracked folder (`apm-git track`): an agent, an id or a path; docs/tracking.md.")
@click.option("--cached", is_flag=True, help="Compare the index (what is staged) instead of the work tree.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="text (default), markdown (a pull-request comment) or json (docs/review.md).")
@click.pass_context
def diff_cmd(ctx: click.Context, revision: str | None, tracked: str | None, cached: bool, fmt: str | None) -> int:
    """What happened to each entry, section and file between two states; exit 1 when an entry was lost."""
    from apm_git.cli import track
    from apm_git.commands.diff import diff
    from apm_git.present import shapes_review
    from apm_git.review import render

    if state(ctx).json:
        if fmt not in (None, "json"):
            raise UsageError(f"--json and --format {fmt} ask for two formats; give one")
        fmt = "json"
    found = track.target(ctx, tracked, finish=False)
    if track.is_tracked(found):
        if cached:
            raise UsageError("--cached compares a memory repository's index; a tracked folder has none of its own")
        return track.tracked_diff(ctx, found, revision, fmt)
    review = diff(found, revision, cached=cached)
    if fmt == "json":
        print_json(shapes_review.diff_json(review))
    elif fmt == "markdown":
        command = " ".join(["apm-git diff", *(["--cached"] if cached else []), *([revision] if revision else [])])
        click.echo(render.diff_markdown(review, command=command), nl=False)
    else:
        click.echo(render.diff_text(review))
    if review.conflicts:
        count = len(review.conflicts)
        click.echo(f"apm-git diff: {count} entr{'y' if count == 1 else 'ies'} in conflict (a merge kept two versions); "
                   f"{render.RESOLVE_HINT}", err=True)
    if review.lost:
        count = len(review.lost)
        click.echo(f"apm-git diff: {count} entr{'y' if count == 1 else 'ies'} lost with no record of where "
                   f"{'it' if count == 1 else 'they'} went (exit 1)", err=True)
        return EXIT_FINDINGS
    return EXIT_OK


@click.command("log")
@click.argument("revision", required=False, metavar="[RANGE]")
@click.option("-n", "--max-count", type=click.IntRange(min=1), default=None, help="Show at most N commits.")
@click.option("--apm-only", is_flag=True, help="Leave out the commits apm-git did not make.")
@click.option("--tracked", help="A tracked folder (`apm-git track`): an agent, an id or a path; docs/tracking.md.")
@click.pass_context
def log_cmd(ctx: click.Context, revision: str | None, max_count: int | None, apm_only: bool,
            tracked: str | None) -> int:
    """One line per commit: what apm-git did (trigger, scope, session, counts from the trailers), newest first."""
    from apm_git.cli import track
    from apm_git.commands.log import log
    from apm_git.present import shapes_review
    from apm_git.review import render

    found = track.target(ctx, tracked, finish=False)
    if track.is_tracked(found):
        from apm_git.operations.tracked_diff import log as tracked_log

        commits = [commit for commit in tracked_log(found, revision, max_count=max_count) if commit.apm or not apm_only]
    else:
        commits = log(found, revision, max_count=max_count, apm_only=apm_only)
    if state(ctx).json:
        print_json(shapes_review.log_json(commits, revision or "HEAD"))
    elif commits:
        click.echo(render.log_text(commits))
    return EXIT_OK
