"""The command line itself: help stays light, --version, --json keeps stdout clean."""
from __future__ import annotations

import json
import subprocess
import sys

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


def test_version(run_cli: Invoke) -> None:
    ran = run_cli("--version")
    assert ran.exit_code == 0 and __version__ in ran.stdout


def test_json_stdout_is_only_json(repo: MemoryRepo, run_cli: Invoke) -> None:
    for args in (["status"], ["flush"], ["journal", "add", "x y", "--kind", "tool"], ["flush"], ["index"]):
        ran = run_cli("--repo", str(repo.root), "--json", *args)
        assert ran.exit_code == 0, ran.stderr
        json.loads(ran.stdout)


def test_every_command_defined_is_registered_in_one_list() -> None:
    """apm_git/cli/app.py registers every command in COMMANDS; a command defined but not listed
    (or a module registering itself on import) fails here."""
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
    assert defined - subcommands == set(COMMANDS)
    assert set(cli.commands.values()) == set(COMMANDS)
