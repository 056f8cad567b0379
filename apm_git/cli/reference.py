"""docs/cli.md, the command-line reference, generated from the commands' own `--help`.

    python -m apm_git.cli.reference > docs/cli.md

Every command and subcommand registered in apm_git/cli/app.py, in that order, with its help
as `apm-git COMMAND --help` prints it at 100 columns.  tests/project/test_cli_reference.py fails when
the checked-in page differs from what this prints, so the reference never drifts from the code.
"""
from __future__ import annotations

import sys

import click

WIDTH = 100
HEADER = """# apm-git command reference

Generated from each command's `--help` by `python -m apm_git.cli.reference > docs/cli.md`; do not edit
by hand (a test compares it with the commands). The README's tour shows the commands in use; the
pages of `docs/` say why they behave as they do.
"""



def _walk(command: click.Command, path: list[str], parent: click.Context | None) -> list[str]:
    settings = {**command.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    ctx = click.Context(command, info_name=path[-1], parent=parent, **settings)  # as `make_context` would
    parts = [f"\n## `{' '.join(path)}`\n\n```text\n{command.get_help(ctx)}\n```\n"]
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                parts += _walk(sub, [*path, name], ctx)
    return parts


def reference() -> str:
    """The whole page."""
    from apm_git.cli.app import cli

    return HEADER + "".join(_walk(cli, ["apm-git"], None))


def main() -> int:
    sys.stdout.write(reference())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
