"""The `apm-git` command line: parse, dispatch, format.  The work happens in apm_git.commands.

Every expected error (an ApmGitError) becomes one line on stderr and its exit code;
under `--hook-input` no exit code is ever 2, because 2 blocks compaction in Claude Code.
"""
from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from apm_git import __version__
from apm_git.errors import EXIT_FINDINGS, EXIT_USAGE, ApmGitError

HOOK_FLAG = "--hook-input"


@dataclasses.dataclass
class CliState:
    repo_path: Path | None
    json: bool

    def repo(self, *, finish: bool = True) -> Any:
        return open_memory(self.repo_path, finish=finish)


def open_memory(path: Path | None, *, finish: bool = True) -> Any:
    """The memory repository; a commit a kill interrupted is finished first when the lock is free
    (`finish`), or only named in one line (lint, which never writes)."""
    from apm_git import landing
    from apm_git.repo import open_repo

    repo = open_repo(path)
    if finish:
        landing.finish_pending(repo, wait=False)
    else:
        landing.note_pending(repo)
    return repo


def state(ctx: click.Context) -> CliState:
    obj = ctx.find_root().obj
    assert isinstance(obj, CliState)
    return obj


def emit(ctx: click.Context, data: Any, text: str | None) -> None:
    """JSON of `data` under --json (and nothing else on stdout), else `text`."""
    if state(ctx).json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    elif text:
        click.echo(text)


def _say_notices() -> None:
    """What this run did about a commit a kill had interrupted (apm_git.landing), one line each."""
    landing = sys.modules.get("apm_git.landing")  # not imported: nothing to say
    if landing is not None:
        for note in landing.take_notices():
            click.echo(f"apm-git: {note}", err=True)


def _hook_mode(args: Sequence[str]) -> bool:
    return any(arg == HOOK_FLAG or arg.startswith(HOOK_FLAG + "=") for arg in args)


class ApmGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ApmGitError as error:
            click.echo(f"apm-git: {error}", err=True)
            ctx.exit(error.exit_code)
        finally:
            _say_notices()

    def main(self, args: Sequence[str] | None = None, *rest: Any, **kwargs: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        kwargs["standalone_mode"] = False
        try:
            code = super().main(argv, *rest, **kwargs)
        except click.exceptions.Exit as stop:
            code = stop.exit_code
        except click.ClickException as error:
            error.show()
            code = error.exit_code
        except click.Abort:
            click.echo("apm-git: aborted", err=True)
            code = EXIT_FINDINGS
        code = code if isinstance(code, int) else 0
        if code == EXIT_USAGE and _hook_mode(argv):
            code = EXIT_FINDINGS
        sys.exit(code)


@click.group(cls=ApmGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--repo", "repo_path", type=click.Path(path_type=Path), envvar="APM_GIT_REPO",
    help="Memory repository (default: the one containing the current directory; env APM_GIT_REPO).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout, nothing else.")
@click.version_option(__version__, prog_name="apm-git")
@click.pass_context
def cli(ctx: click.Context, repo_path: Path | None, as_json: bool) -> None:
    """Keep an AI agent's Markdown memory in git: one commit per flush, checked by pre-commit hooks."""
    ctx.obj = CliState(repo_path, as_json)


def main(argv: Sequence[str] | None = None) -> int:
    cli.main(args=argv, prog_name="apm-git")
    return 0  # pragma: no cover - cli.main always exits


import apm_git.cli.checks  # noqa: E402,F401  (registers lint and index)
from apm_git.cli import (  # noqa: E402  (registers the commands)
    core,  # noqa: F401
    loading,  # noqa: F401  (load, remember, search, hit)
)
from apm_git.cli import dreaming as _dreaming  # noqa: E402,F401  (registers deep-sleep, rem, dream, history)
