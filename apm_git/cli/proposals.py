"""proposals, accept, reject, and what `--propose` prints: consolidation as a proposal (operations/proposals.py)."""
from __future__ import annotations

from typing import Any

import click

from apm_git.cli.base import emit, state, text_of
from apm_git.errors import EXIT_OK
from apm_git.present import shapes_proposals


def propose_option(command: Any) -> Any:
    return click.option(
        "--propose/--no-propose", default=None,
        help="Commit the run on a branch of its own (apm-git/proposals/...) for review, not on yours "
             "(default: dreaming.propose in apm.yaml).")(command)


def proposing(repo: Any, flag: bool | None) -> bool:
    return bool(repo.config.dreaming.propose) if flag is None else flag


def proposed_text(made: Any) -> str:
    result = made.result
    if made.name is None:
        return text_of([f"apm-git: {result.subject}; nothing to propose"])
    if made.kept:
        return text_of([f"apm-git: {result.subject}; the open proposal {made.name} already holds it "
                        f"(review: `apm-git proposals`, `apm-git diff HEAD...apm-git/proposals/{made.name}`)"])
    lines = [f"apm-git: {result.subject}; proposed on branch apm-git/proposals/{made.name} ({made.commit[:12]}), "
             "your branch unchanged"]
    lines += [f"  replaces the open proposal {old}" for old in made.replaced]
    lines += [f"  {key}: {value}" for key, value in result.trailers]
    lines.append(f"  review: `apm-git diff HEAD...apm-git/proposals/{made.name}` or `apm-git ui`; then "
                 f"`apm-git accept {made.name} [--only ID…] [--drop ID…]` or `apm-git reject {made.name}`")
    return text_of(lines)


@click.command("proposals")
@click.pass_context
def proposals_cmd(ctx: click.Context) -> int:
    """List the open consolidation proposals and their items."""
    from apm_git.operations.proposals import open_proposals

    found = open_proposals(state(ctx).repo())
    lines = []
    for p in found:
        lines.append(f"{p.name}  {p.stage}  {p.date[:10]}  {len(p.items)} item(s)  {p.state}")
        lines += [f"  {item.verb:<10} {item.key}" for item in p.items]
    emit(ctx, shapes_proposals.proposals_json(found), text_of(lines) or "apm-git: no open proposals")
    return EXIT_OK


@click.command("accept")
@click.argument("name", metavar="PROPOSAL")
@click.option("--only", "only", multiple=True, metavar="ID", help="Accept only this item (repeatable).")
@click.option("--drop", "drop", multiple=True, metavar="ID", help="Leave this item out (repeatable).")
@click.pass_context
def accept_cmd(ctx: click.Context, name: str, only: tuple[str, ...], drop: tuple[str, ...]) -> int:
    """Land a proposal, all or part, as one commit on your branch (planned again and checked first)."""
    from apm_git.operations.proposals import accept

    done = accept(state(ctx).repo(), name, only=only, drop=drop)
    result = done.result
    emit(ctx, shapes_proposals.accept_json(done), text_of([f"apm-git: {done.summary}: {result.subject}"]))
    return EXIT_OK


@click.command("reject")
@click.argument("name", metavar="PROPOSAL")
@click.pass_context
def reject_cmd(ctx: click.Context, name: str) -> int:
    """Drop a proposal (its branch); the stage waits until it is due again."""
    from apm_git.operations.proposals import reject

    gone = reject(state(ctx).repo(), name)
    emit(ctx, shapes_proposals.reject_json(gone),
         text_of([f"apm-git: rejected {gone.name} ({gone.commit[:12]}); "
                  "`git reflog` still knows its commit for a while"]))
    return EXIT_OK
