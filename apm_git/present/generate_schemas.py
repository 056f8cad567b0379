"""`python -m apm_git.present.generate_schemas [--check] [--root DIR]`: write apm_git/schemas/ from the shapes.

Each `--json` output is declared once, as a `Shape` in a module of this package (apm_git/present/declare.py);
its JSON Schema is derived from that declaration and checked in as apm_git/schemas/<name>.schema.json, so
reading the package needs no build step.  `--check` writes nothing and exits 1 naming each file that is out
of date (or that no shape declares); tests/present/test_generate_schemas.py runs it, so CI fails on a schema
out of step.  The check ids in the lint and status schemas are the words of `CheckId`, which
`python -m apm_git.operations.generate_checks` writes and which calls `schema_texts` here with the ids it
has just derived (docs/development.md).  A tool for working on apm-git: the commands never import it.
"""
from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from apm_git.model.vocabulary import CheckId
from apm_git.present.declare import Enum, Shape

COMMAND = "python -m apm_git.present.generate_schemas"
PACKAGE = "apm_git.present"
FOLDER = "apm_git/schemas"


def declared() -> list[Shape]:
    """Every `Shape` a module of the package declares at its top level, by name; a name declared twice is refused."""
    package = importlib.import_module(PACKAGE)
    found: dict[str, Shape] = {}
    for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda info: info.name):
        if module.name == "generate_schemas":
            continue
        for value in vars(importlib.import_module(f"{PACKAGE}.{module.name}")).values():
            if isinstance(value, Shape) and found.setdefault(value.name, value) is not value:
                raise ValueError(f"schema declared twice: {value.name}; give each shape its own name")
    return [found[name] for name in sorted(found)]


def schema_texts(check_ids: Sequence[str] | None = None) -> dict[str, str]:
    """Each schema file (relative to the source tree) and its text; `check_ids` in place of `CheckId`'s words."""
    texts = {}
    for shape in declared():
        data = shape.schema()
        if check_ids is not None:
            data = _with_check_ids(data, list(check_ids))
        texts[f"{FOLDER}/{shape.name}.schema.json"] = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return texts


_CHECK_IDS = Enum(CheckId).words


def check_id_schemas(check_ids: Sequence[str]) -> dict[str, str]:
    """The schema files holding the check ids, and their text with `check_ids` as the ids."""
    now, then = schema_texts(), schema_texts(check_ids)
    holding = {name for name, text in schema_texts(("\0",)).items() if text != now[name]}
    return {name: then[name] for name in sorted(holding)}


def _with_check_ids(node: Any, ids: list[str]) -> Any:
    """The schema with each enum of the check ids (as `CheckId` is now) replaced by `ids`."""
    if isinstance(node, dict):
        return {key: ids if key == "enum" and tuple(value) == _CHECK_IDS else _with_check_ids(value, ids)
                for key, value in node.items()}
    if isinstance(node, list):
        return [_with_check_ids(item, ids) for item in node]
    return node


def write(root: Path, texts: dict[str, str], check: bool) -> list[str]:
    """The files out of date under `root` (written unless `check`); a schema no shape declares is out of date."""
    stale = []
    for name, text in texts.items():
        path = root / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
            if not check:
                path.write_text(text, encoding="utf-8")
    for path in sorted((root / FOLDER).glob("*.schema.json")):
        name = f"{FOLDER}/{path.name}"
        if name not in texts:
            stale.append(name)
            if not check:
                path.unlink()
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is out of date")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the source tree (default: the one this module is in)")
    args = parser.parse_args(argv)
    try:
        stale = write(args.root, schema_texts(), args.check)
    except ValueError as error:
        sys.stderr.write(f"generate_schemas: {error}\n")
        return 1
    return report(stale, check=args.check, command=COMMAND)


def report(stale: Sequence[str], *, check: bool, command: str) -> int:
    """A generator's last word, for this one and `generate_checks`: each stale file, and exit 1 under --check."""
    verb = f"out of date (run `{command}`)" if check else "written"
    sys.stdout.write("".join(f"{name}: {verb}\n" for name in stale))
    return 1 if stale and check else 0


if __name__ == "__main__":
    raise SystemExit(main())
