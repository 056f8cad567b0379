"""edit, restore and `hit --commit`: a person's change to one entry, as one commit (operations/curate.py)."""
from __future__ import annotations

from typing import IO, Any

import click

from apm_git.cli.base import emit, state, text_of
from apm_git.cli.shapes import VERSION
from apm_git.errors import EXIT_OK


def curated_json(result: Any) -> dict[str, Any]:
    return {"version": VERSION, "verb": result.verb, "entries": list(result.entry_ids), "files": list(result.files),
            "commit": result.commit}


def curated_text(result: Any) -> str:
    return text_of([f"apm-git: {result.verb} {', '.join(result.entry_ids)} committed as {result.commit[:12]} "
                    f"({', '.join(result.files)})"])


@click.command("edit")
@click.argument("entry_id", metavar="ENTRY-ID")
@click.option("--from", "source", type=click.File("r", encoding="utf-8"), metavar="FILE",
              help="The new record (its heading and fields) from FILE, or - for stdin; without it, print the record.")
@click.pass_context
def edit_cmd(ctx: click.Context, entry_id: str, source: IO[str] | None) -> int:
    """Replace an entry's record as one commit (same date and title); without --from, print it to edit."""
    from apm_git.operations import curate

    repo = state(ctx).repo()
    if source is None:
        text = curate.record_text(repo, entry_id)
        emit(ctx, {"version": VERSION, "verb": "show", "entries": [entry_id], "files": [], "commit": None}, text)
        return EXIT_OK
    result = curate.edit(repo, entry_id, source.read())
    emit(ctx, curated_json(result), curated_text(result))
    return EXIT_OK


@click.command("restore")
@click.argument("entry_id", metavar="ENTRY-ID")
@click.pass_context
def restore_cmd(ctx: click.Context, entry_id: str) -> int:
    """Move an archived entry back to the live file it was archived from, as one commit."""
    from apm_git.operations import curate

    result = curate.restore(state(ctx).repo(), entry_id)
    emit(ctx, curated_json(result), curated_text(result))
    return EXIT_OK
