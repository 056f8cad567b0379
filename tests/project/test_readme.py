"""The command reference (docs/commands.md) documents the command line as it is: every command and every
option; the README stays short enough to finish."""
from __future__ import annotations

from pathlib import Path

import click

from apm_git.cli.app import cli

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
REFERENCE = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
cli.resolve_all()  # every command imported: the tests below read cli.commands
TABLE = REFERENCE.split("# Commands", 1)[1].split("\n## ", 1)[0]


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
    assert "`--json` (machine-readable stdout only; also accepted after the command" in REFERENCE


def test_global_options_are_documented() -> None:
    for param in cli.params:
        if isinstance(param, click.Option) and "--help" not in param.opts:
            assert any(f"`{opt}" in REFERENCE for opt in param.opts), param.opts


def test_the_readme_is_short_and_leads_to_every_reference_page() -> None:
    assert len(README.splitlines()) <= 300  # what it is, install, two commands, the tour, the layouts, links
    links = README.split("## Documentation", 1)[1].split("](docs/")[1:]
    pages = {path.name for path in (ROOT / "docs").glob("*.md")}
    assert pages <= {link.split(")", 1)[0].split("#", 1)[0] for link in links}
