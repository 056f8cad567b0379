"""The `apm-git` command line: parse, dispatch, format.  The work happens in apm_git.commands.

Every command is registered here, in one list: a reader sees the whole command line in one place,
and no module registers itself as a side effect of being imported.
"""
from __future__ import annotations

from collections.abc import Sequence

import click

from apm_git.cli import agents, checks, ci, core, curate, dreaming, loading, proposals, review, sync, track, ui
from apm_git.cli.base import HOOK_FLAG, UTF8, CliState, cli, emit, open_memory, state

__all__ = ["HOOK_FLAG", "UTF8", "CliState", "cli", "emit", "main", "open_memory", "state"]

COMMANDS: tuple[click.Command, ...] = (
    core.init_cmd, core.setup_cmd, core.merge_driver_cmd, core.journal_group, core.flush_cmd, core.index_cmd,
    core.status_cmd,
    checks.lint_cmd, checks.baseline_cmd, checks.allow_secret_cmd,
    loading.load_cmd, loading.remember_cmd, loading.search_cmd, loading.hit_cmd,
    dreaming.deep_sleep_cmd, dreaming.rem_cmd, dreaming.dream_cmd, dreaming.history_cmd, dreaming.import_cmd,
    dreaming.forget_cmd, dreaming.resolve_cmd, curate.edit_cmd, curate.restore_cmd,
    proposals.proposals_cmd, proposals.accept_cmd, proposals.reject_cmd,
    review.diff_cmd, review.log_cmd,
    sync.sync_cmd, sync.merge_counters_cmd,
    agents.recall_cmd, agents.hooks_group, agents.mcp_cmd, agents.audit_cmd,
    ci.ci_group, ui.ui_cmd,
    track.track_cmd, track.untrack_cmd, track.snapshot_cmd,
)


def main(argv: Sequence[str] | None = None) -> int:
    cli.main(args=argv, prog_name="apm-git")
    return 0  # pragma: no cover - cli.main always exits


def _json_after_subcommand(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        state(ctx).json = True


def _accept_json_everywhere(group: click.Group) -> None:
    """`apm-git lint --json` means `apm-git --json lint`: users put the flag after the command as often as before.

    Added here, once the commands are registered, so no command can forget it; `--json` stays a global
    option in --help and in docs/commands.md.
    """
    for command in group.commands.values():
        if isinstance(command, click.Group):
            _accept_json_everywhere(command)
        elif not any("--json" in param.opts for param in command.params):
            command.params.append(click.Option(
                ["--json"], is_flag=True, expose_value=False, callback=_json_after_subcommand,
                help="Same as the global --json.",
            ))


for _command in COMMANDS:
    cli.add_command(_command)
_accept_json_everywhere(cli)
