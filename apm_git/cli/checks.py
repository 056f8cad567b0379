"""lint: the checks of docs/design.md 5 in one process."""
from __future__ import annotations

from pathlib import Path

import click

from apm_git.cli.base import emit, state, text_of, warn
from apm_git.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from apm_git.present import shapes


@click.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--from-ref", help="Base of the comparison (default: env PRE_COMMIT_FROM_REF, else HEAD).")
@click.option("--to-ref", help="New side of the comparison (default: env PRE_COMMIT_TO_REF, else the work tree).")
@click.option("--all", "all_files", is_flag=True, help="Check every memory file, not only the changed ones.")
@click.option("--baseline-too", is_flag=True,
              help="Also report the findings that the findings baseline (memory/apm-baseline.json) knows.")
@click.option("--tracked", help="A tracked folder (`apm-git track`): an agent, an id or a path; its checks run on "
                                "every memory file of it as it is now (docs/tracking.md).")
@click.pass_context
def lint_cmd(ctx: click.Context, paths: tuple[Path, ...], from_ref: str | None, to_ref: str | None,
             all_files: bool, baseline_too: bool, tracked: str | None) -> int:
    """Run every check; prints `path:line: hook-id: message` per finding, exit 1 on any finding."""
    from apm_git.cli import track
    from apm_git.commands.lint import lint

    repo = track.target(ctx, tracked, finish=False)  # lint never writes, not even to finish an interrupted commit
    if track.is_tracked(repo):
        if paths or from_ref or to_ref or baseline_too:
            raise UsageError("lint on a tracked folder checks every memory file of it as it is now: it takes no "
                             "PATH, --from-ref, --to-ref or --baseline-too")
        return track.tracked_lint(ctx, repo)
    result = lint(repo, [_repo_path(repo.root, path) for path in paths], from_ref=from_ref, to_ref=to_ref,
                  all_files=all_files, baseline_too=baseline_too)
    emit(ctx, shapes.lint_json(result), "\n".join(str(finding) for finding in result.findings))
    known = ""
    if result.known and not baseline_too:
        known = f"; {len(result.known)} more known from the baseline (`apm-git lint --baseline-too` lists them)"
    merges = f", {len(result.merges)} merge commit(s) against each parent" if result.merges else ""
    warn(
        f"apm-git lint: {len(result.findings)} finding(s) in {len(result.checked)} checked file(s) "
        f"({result.base} -> {result.new}{merges}){known}",
    )
    return EXIT_FINDINGS if result.findings else EXIT_OK


def _repo_path(root: Path, path: Path) -> str:
    """A command-line path (relative to the current directory) as a repo-relative one."""
    full = (Path.cwd() / path).resolve()
    try:
        return full.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise UsageError(f"{path} is outside the memory repository {root}; name a file under it") from None


@click.command("baseline")
@click.pass_context
def baseline_cmd(ctx: click.Context) -> int:
    """Record every finding that `lint --all` reports now in memory/apm-baseline.json, as known."""
    from apm_git.commands.baseline import record_all

    result = record_all(state(ctx).repo())
    text = [f"apm-git: {result.path}: {len(result.added)} finding(s) recorded, {result.total} known in all"]
    if result.added:
        text.append("  run `apm-git flush` to commit it; `apm-git lint --baseline-too` lists every finding")
    emit(ctx, shapes.baseline_json(result), text_of(text))
    return EXIT_OK


@click.command("allow-secret")
@click.argument("spots", nargs=-1, required=True, metavar="PATH:LINE...")
@click.pass_context
def allow_secret_cmd(ctx: click.Context, spots: tuple[str, ...]) -> int:
    """Mark the suspected secret at PATH:LINE as a false positive: it never withholds a file again."""
    from apm_git.commands.allow_secret import allow_secret

    repo = state(ctx).repo()
    result = allow_secret(repo, [_spot(repo.root, spot) for spot in spots])
    text = [f"apm-git: {result.path}: marked {len(result.added)} suspected secret(s) as false positives"]
    text += [f"  {finding}" for finding in result.added]
    text.append("  run `apm-git flush` to commit the file(s) and the baseline")
    emit(ctx, shapes.baseline_json(result), text_of(text))
    return EXIT_OK


def _spot(root: Path, spot: str) -> tuple[str, int]:
    path, _, line = spot.rpartition(":")
    if not path or not line.isdigit() or int(line) < 1:
        raise UsageError(f"{spot}: expected PATH:LINE, as lint prints it (e.g. memory/2026-03-06.md:12)")
    inside = Path.cwd().resolve().is_relative_to(root.resolve())
    if not Path(path).is_absolute() and ((root / path).is_file() or not inside):  # as lint prints it
        return Path(path).as_posix(), int(line)
    return _repo_path(root, Path(path)), int(line)
