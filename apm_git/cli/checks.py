"""lint: the checks of DESIGN 5 in one process."""
from __future__ import annotations

from pathlib import Path

import click

from apm_git.cli import cli, emit, state
from apm_git.errors import EXIT_FINDINGS, EXIT_OK, UsageError


@cli.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--from-ref", help="Base of the comparison (default: env PRE_COMMIT_FROM_REF, else HEAD).")
@click.option("--to-ref", help="New side of the comparison (default: env PRE_COMMIT_TO_REF, else the work tree).")
@click.option("--all", "all_files", is_flag=True, help="Check every memory file, not only the changed ones.")
@click.pass_context
def lint_cmd(ctx: click.Context, paths: tuple[Path, ...], from_ref: str | None, to_ref: str | None,
             all_files: bool) -> int:
    """Run every check; prints `path:line: hook-id: message` per finding, exit 1 on any finding."""
    from apm_git.commands.lint import lint

    repo = state(ctx).repo(finish=False)  # lint never writes, not even to finish an interrupted commit
    result = lint(repo, [_repo_path(repo.root, path) for path in paths], from_ref=from_ref, to_ref=to_ref,
                  all_files=all_files)
    emit(ctx, result.as_dict(), "\n".join(str(finding) for finding in result.findings))
    click.echo(
        f"apm-git lint: {len(result.findings)} finding(s) in {len(result.checked)} checked file(s) "
        f"({result.base} -> {result.new})", err=True,
    )
    return EXIT_FINDINGS if result.findings else EXIT_OK


def _repo_path(root: Path, path: Path) -> str:
    """A command-line path (relative to the current directory) as a repo-relative one."""
    full = (Path.cwd() / path).resolve()
    try:
        return full.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise UsageError(f"{path} is outside the memory repository {root}; name a file under it") from None
