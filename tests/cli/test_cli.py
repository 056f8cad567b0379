"""The command line itself: help stays light, --version, --json keeps stdout clean."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from apm_git import __version__
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke

HEAVY = ("tiktoken", "ruamel", "detect_secrets", "git", "yaml")


def test_help_imports_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "from apm_git.cli.app import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
    )
    proc = subprocess.run((sys.executable, "-c", code), capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_a_command_imports_only_its_own_module(repo: MemoryRepo) -> None:
    """A flush imports apm_git/cli/core.py and no other command module (the MCP server, the page, the
    dreaming commands): a run pays for the command it runs (cli/base.py, ApmGroup)."""
    code = (
        "import sys\n"
        "from apm_git.cli.app import main\n"
        f"try:\n    main(['--repo', {str(repo.root)!r}, 'flush'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('apm_git.cli.')))\n"
    )
    proc = subprocess.run((sys.executable, "-c", code), capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == str(["apm_git.cli.app", "apm_git.cli.base", "apm_git.cli.core"])


def test_a_slip_in_the_list_of_commands_is_named() -> None:
    from apm_git.cli.base import resolve

    with pytest.raises(TypeError, match=r"apm_git\.cli\.core:flush_cmd is no click command named 'flash'"):
        resolve("flash", "apm_git.cli.core:flush_cmd")


def test_version(run_cli: Invoke) -> None:
    ran = run_cli("--version")
    assert ran.exit_code == 0 and __version__ in ran.stdout


def test_json_stdout_is_only_json(repo: MemoryRepo, run_cli: Invoke) -> None:
    for args in (["status"], ["flush"], ["journal", "add", "x y", "--kind", "tool"], ["flush"], ["index"]):
        ran = run_cli("--repo", str(repo.root), "--json", *args)
        assert ran.exit_code == 0, ran.stderr
        json.loads(ran.stdout)


def test_every_command_defined_is_registered_in_one_list() -> None:
    """apm_git/cli/app.py declares every command in COMMANDS, by name and place; a command defined but not
    listed (or a module registering itself on import, or a name that is not the command's) fails here."""
    import importlib
    import pkgutil

    import click

    import apm_git.cli as package
    from apm_git.cli.app import COMMANDS, cli

    defined = set()
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"apm_git.cli.{info.name}")
        for value in vars(module).values():
            if isinstance(value, click.Command) and value is not cli:
                defined.add(value)
    subcommands = {sub for group in defined if isinstance(group, click.Group) for sub in group.commands.values()}
    assert defined - subcommands == set(cli.resolve_all().values())
    assert sorted(cli.commands) == sorted(name for name, _ in COMMANDS)
