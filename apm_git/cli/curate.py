"""edit, restore and `hit --commit`: a person's change to one entry, as one commit (operations/curate.py)."""
from __future__ import annotations

from typing import IO, Any

import click

from apm_git.cli.base import UTF8, emit, state, text_of
from apm_git.errors import EXIT_OK, UsageError
from apm_git.present.shapes_proposals import curated_json, shown_json


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
        emit(ctx, shown_json(entry_id), text)
        return EXIT_OK
    result = curate.edit(repo, entry_id, source.read())
    emit(ctx, curated_json(result), curated_text(result))
    return EXIT_OK


@click.command("restore")
@click.argument("targets", nargs=-1, metavar="ENTRY-ID | [FILE]...")
@click.option("--tracked", help="A tracked folder (`apm-git track`): an agent, an id or a path; FILE... are its files "
                                "(docs/tracking.md).")
@click.option("--from", "revision", metavar="REV", help="Tracked folder: the snapshot to take the files from "
              "(default: the version before each file's newest change; with --section, the newest that holds it).")
@click.option("--section", type=UTF8, metavar="HEADING", help="Tracked folder: bring back this one section of FILE, "
                                                               "not the whole file.")
@click.pass_context
def restore_cmd(ctx: click.Context, targets: tuple[str, ...], tracked: str | None, revision: str | None,
                section: str | None) -> int:
    """Bring back what was archived or removed, as one new commit: in a memory repository an archived
    entry (ENTRY-ID) to the live file it came from; in a tracked folder a file version or a removed section."""
    from apm_git.cli import track
    from apm_git.operations import curate

    found = track.target(ctx, tracked)
    if track.is_tracked(found):
        return track.tracked_restore(ctx, found, targets, revision, section)
    if len(targets) != 1 or revision is not None or section is not None:
        raise UsageError("in a memory repository, restore takes one ENTRY-ID (an archived entry) and no --from or "
                         "--section; those are for a tracked folder (--tracked)")
    result = curate.restore(found, targets[0])
    emit(ctx, curated_json(result), curated_text(result))
    return EXIT_OK
