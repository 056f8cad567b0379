"""`python -m apm_git.operations.generate_checks [--check] [--root DIR]`: write what the checks declare.

The files and their text come from `apm_git/checks/generate.py` (docs/checks.md) and, for the JSON
Schemas holding the check ids, from `apm_git/present/generate_schemas.py`; this reads and writes them.
`--check` writes nothing and exits 1 naming each file that is out of date (tests/checks/test_generate.py
runs it, so CI fails on a generated file out of step).  A tool for
working on apm-git, in its source tree: the hook and the commands never import it.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from apm_git.checks import generate
from apm_git.present.generate_schemas import check_id_schemas, report

COMMAND = "python -m apm_git.operations.generate_checks"


def outputs() -> dict[str, Callable[[str], str]]:
    """The files the checks' declarations reach: those of apm_git/checks/generate.py, and the JSON Schemas
    holding the check ids, written as apm_git/present/generate_schemas.py writes them, with the ids just derived
    (the `CheckId` this process imported is the one on disk before this run)."""
    ids = [check.id for _, check in generate.declared()]
    made = generate.outputs()
    schemas = {name: _text(text) for name, text in check_id_schemas(ids).items()}
    return {name: make for name, make in made.items() if name != "docs/checks.md"} | schemas | {
        "docs/checks.md": made["docs/checks.md"]}


def _text(text: str) -> Callable[[str], str]:
    return lambda _: text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is out of date")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the source tree (default: the one this module is in)")
    args = parser.parse_args(argv)
    try:
        made = outputs()
        stale = []
        for name, make in made.items():
            path = args.root / name
            old = path.read_text(encoding="utf-8") if path.exists() else ""
            new = make(old)
            if new != old:
                stale.append(name)
                if not args.check:
                    path.write_text(new, encoding="utf-8")
    except ValueError as error:
        sys.stderr.write(f"generate_checks: {error}\n")
        return 1
    return report(stale, check=args.check, command=COMMAND)


if __name__ == "__main__":
    raise SystemExit(main())
