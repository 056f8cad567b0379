"""docs/cli.md is what the commands' `--help` says now (apm_git/cli/reference.py generates it)."""
from __future__ import annotations

from pathlib import Path

from apm_git.cli.app import COMMANDS
from apm_git.cli.reference import reference

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_checked_in_reference_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == reference(), (
        "docs/cli.md differs from the commands' --help: run `python -m apm_git.cli.reference > docs/cli.md`")


def test_every_registered_command_has_its_section() -> None:
    text = reference()
    for name, _ in COMMANDS:
        assert f"\n## `apm-git {name}`\n" in text
