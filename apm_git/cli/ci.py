"""ci: write the CI job that reviews memory in pull requests (docs/ci.md)."""
from __future__ import annotations

import click

from apm_git.cli.base import emit, state
from apm_git.errors import EXIT_OK
from apm_git.model.vocabulary import CiProvider
from apm_git.present import shapes_agents

WHAT = {
    "github": "GitHub Actions, on pull requests",
    "gitlab": "GitLab CI, in merge request pipelines",
}


@click.group("ci")
def ci_group() -> None:
    """Write the CI job that gates and shows memory changes in pull requests."""


def _options(command: click.Command) -> click.Command:
    command = click.option(
        "--install-spec", metavar="SPEC",
        help="The pip requirement CI installs apm-git from (default: where this apm-git was installed from: its "
             "git commit, archive or index version).",
    )(command)
    return click.option("--force", is_flag=True,
                        help="Rewrite the file when apm-git wrote it before and it differs now.")(command)


def _run(ctx: click.Context, provider: CiProvider, install_spec: str | None, force: bool) -> int:
    from apm_git.commands.ci import write_ci

    result = write_ci(state(ctx).repo(finish=False).root, provider, install_spec=install_spec, force=force)
    lines = [f"apm-git: {result.path}: {result.action} ({WHAT[provider]}: the lint gate on the range and the "
             f"memory diff; installs {result.install_spec})"]
    if result.include:
        lines.append("  your .gitlab-ci.yml is yours: add this to it to run the job:")
        lines += [f"    {line}" for line in result.include.splitlines()]
    if result.action != "unchanged":
        lines.append(f"  commit it: git add {result.path} && git commit -m 'ci: review memory in pull requests'")
    emit(ctx, shapes_agents.ci_json(result), "\n".join(lines))
    return EXIT_OK


@ci_group.command("github")
@click.pass_context
def ci_github_cmd(ctx: click.Context, install_spec: str | None, force: bool) -> int:
    """Write .github/workflows/apm-memory.yml: gate and diff (summary and one comment) on pull requests."""
    return _run(ctx, "github", install_spec, force)


@ci_group.command("gitlab")
@click.pass_context
def ci_gitlab_cmd(ctx: click.Context, install_spec: str | None, force: bool) -> int:
    """Write .gitlab-ci.yml (or .gitlab/apm-memory.yml to include): gate and diff in merge requests."""
    return _run(ctx, "gitlab", install_spec, force)


_options(ci_github_cmd)
_options(ci_gitlab_cmd)
