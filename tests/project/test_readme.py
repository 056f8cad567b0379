"""The README documents the command line as it is: every command and every option."""
from __future__ import annotations

from pathlib import Path

import click

from apm_git.cli.app import cli

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
TABLE = README.split("## Commands", 1)[1].split("\n## ", 1)[0]


def commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in sorted(group.commands.items()):
        if command.hidden:
            continue
        if isinstance(command, click.Group):
            found += commands(command, f"{prefix}{name} ")
        else:
            found.append((f"{prefix}{name}", command))
    return found


def test_every_command_has_a_row_in_the_commands_table() -> None:
    for name, _ in commands(cli):
        assert f"| `apm-git {name} " in TABLE or f"| `apm-git {name}`" in TABLE, name


def test_every_option_of_every_command_is_documented() -> None:
    for name, command in commands(cli):
        starts = (f"| `apm-git {name} ", f"| `apm-git {name}`")
        row = next(line for line in TABLE.splitlines() if line.startswith(starts))
        for param in command.params:
            if isinstance(param, click.Option) and "--help" not in param.opts and param.opts != ["--json"]:
                assert any(opt in row for opt in param.opts), (name, param.opts)
    # --json after a command is the global option (documented with the global options), on every command
    assert "`--json` (machine-readable stdout only; also accepted after the command" in README


def test_global_options_are_documented() -> None:
    for param in cli.params:
        if isinstance(param, click.Option) and "--help" not in param.opts:
            assert any(f"`{opt}" in README for opt in param.opts), param.opts
