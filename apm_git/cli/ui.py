"""`apm-git ui`: the local page to browse, review and curate the memory (apm_git/ui/)."""
from __future__ import annotations

import click

from apm_git.cli.base import state, warn
from apm_git.errors import EXIT_OK, StateError


@click.command("ui")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: a free one).")
@click.option("--read-only", is_flag=True, help="Browse only: every change is refused and no form is shown.")
@click.pass_context
def ui_cmd(ctx: click.Context, port: int, read_only: bool) -> int:
    """Serve a page on 127.0.0.1 to browse, review and curate the memory; prints its URL (with a token)."""
    from apm_git.ui.server import serve

    repo = state(ctx).repo()

    def ready(url: str) -> None:
        mode = " (read-only)" if read_only else ""
        click.echo(f"apm-git ui{mode}: {url}", nl=True)
        warn("apm-git: open that URL in a browser; the token in it is what lets you in. Ctrl-C stops.")

    try:
        serve(repo.root, port=port, read_only=read_only, ready=ready)
    except OSError as error:
        raise StateError(f"could not listen on 127.0.0.1:{port} ({error.strerror or error}); "
                         "pick another --port, or 0 for a free one") from None
    return EXIT_OK
