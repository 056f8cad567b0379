"""The `apm-git` command line: parse, dispatch, format.  The work happens in apm_git.commands.

Every command is declared here, in one list, by its name and where it is defined: a reader sees the
whole command line in one place, no module registers itself as a side effect of being imported, and
a run imports only the module of the command it runs (cli/base.py, ApmGroup).
"""
from __future__ import annotations

from collections.abc import Sequence

from apm_git.cli.base import HOOK_FLAG, UTF8, CliState, cli, emit, open_memory, state

__all__ = ["COMMANDS", "HOOK_FLAG", "UTF8", "CliState", "cli", "emit", "main", "open_memory", "state"]

# name -> "module:attribute" of the click command (or group) that runs it.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("init", "apm_git.cli.core:init_cmd"), ("setup", "apm_git.cli.core:setup_cmd"),
    ("merge-driver", "apm_git.cli.core:merge_driver_cmd"), ("journal", "apm_git.cli.core:journal_group"),
    ("flush", "apm_git.cli.core:flush_cmd"), ("index", "apm_git.cli.core:index_cmd"),
    ("status", "apm_git.cli.core:status_cmd"),
    ("lint", "apm_git.cli.checks:lint_cmd"), ("baseline", "apm_git.cli.checks:baseline_cmd"),
    ("allow-secret", "apm_git.cli.checks:allow_secret_cmd"),
    ("load", "apm_git.cli.loading:load_cmd"), ("remember", "apm_git.cli.loading:remember_cmd"),
    ("search", "apm_git.cli.loading:search_cmd"), ("hit", "apm_git.cli.loading:hit_cmd"),
    ("embed", "apm_git.cli.loading:embed_cmd"),
    ("deep-sleep", "apm_git.cli.dreaming:deep_sleep_cmd"), ("rem", "apm_git.cli.dreaming:rem_cmd"),
    ("dream", "apm_git.cli.dreaming:dream_cmd"), ("history", "apm_git.cli.dreaming:history_cmd"),
    ("import", "apm_git.cli.dreaming:import_cmd"), ("forget", "apm_git.cli.dreaming:forget_cmd"),
    ("resolve", "apm_git.cli.dreaming:resolve_cmd"),
    ("edit", "apm_git.cli.curate:edit_cmd"), ("restore", "apm_git.cli.curate:restore_cmd"),
    ("proposals", "apm_git.cli.proposals:proposals_cmd"), ("accept", "apm_git.cli.proposals:accept_cmd"),
    ("reject", "apm_git.cli.proposals:reject_cmd"),
    ("diff", "apm_git.cli.review:diff_cmd"), ("log", "apm_git.cli.review:log_cmd"),
    ("sync", "apm_git.cli.sync:sync_cmd"), ("merge-counters", "apm_git.cli.sync:merge_counters_cmd"),
    ("recall", "apm_git.cli.agents:recall_cmd"), ("hooks", "apm_git.cli.agents:hooks_group"),
    ("mcp", "apm_git.cli.agents:mcp_cmd"), ("audit", "apm_git.cli.agents:audit_cmd"),
    ("ci", "apm_git.cli.ci:ci_group"), ("ui", "apm_git.cli.ui:ui_cmd"),
    ("track", "apm_git.cli.track:track_cmd"), ("untrack", "apm_git.cli.track:untrack_cmd"),
    ("snapshot", "apm_git.cli.track:snapshot_cmd"),
)


def main(argv: Sequence[str] | None = None) -> int:
    cli.main(args=argv, prog_name="apm-git")
    return 0  # pragma: no cover - cli.main always exits


cli.lazy.update(COMMANDS)
