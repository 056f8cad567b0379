"""A throwaway command added to a copy of the package: the places a contributor writes, and the files the
generators write, are all that change; the copy's command line runs it and its `--json` output fits the
schema generated from its declaration (docs/development.md, "Adding a command")."""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

from apm_git.store.repo import MemoryRepo

ROOT = Path(__file__).resolve().parents[2]
COMMAND_MODULE = '''"""`apm-git count`: the memory files and how many (a throwaway command of a test)."""
from __future__ import annotations

from dataclasses import dataclass

from apm_git.store.repo import MemoryRepo


@dataclass(frozen=True)
class CountResult:
    files: int
    paths: list[str]


def count(repo: MemoryRepo) -> CountResult:
    paths = sorted(path.relative_to(repo.root).as_posix() for path in repo.memory.rglob("*.md"))
    return CountResult(len(paths), paths)
'''
PRESENTATION = '''"""The `--json` output of count."""
from __future__ import annotations

from typing import Any

from apm_git.present.declare import Int, List, Obj, Shape, Str

COUNT = Shape("count", "apm-git count --json", "The memory files and how many.",
              Obj({"files": Int(0), "paths": List(Str(), doc="repo-relative")}))


def count_json(result: Any) -> dict[str, Any]:
    return COUNT.build(result)
'''
CLI_MODULE = '''"""count: the command line of a throwaway command."""
from __future__ import annotations

import click

from apm_git.cli.base import emit, state
from apm_git.errors import EXIT_OK


@click.command("count")
@click.pass_context
def count_cmd(ctx: click.Context) -> int:
    """Count the memory files."""
    from apm_git.commands.count import count
    from apm_git.present.shapes_count import count_json

    result = count(state(ctx).repo())
    emit(ctx, count_json(result), f"{result.files} memory files")
    return EXIT_OK
'''
WRITTEN = {"apm_git/commands/count.py": COMMAND_MODULE, "apm_git/present/shapes_count.py": PRESENTATION,
           "apm_git/cli/count.py": CLI_MODULE}
REGISTERED = "apm_git/cli/app.py"
GENERATED = {"apm_git/schemas/count.schema.json", "docs/cli.md"}


def register(app: str) -> str:
    """app.py with `count` added to COMMANDS as the last entry is written: by "module:attribute" when the list
    names its commands so (one line), else by an import of the module and its attribute (two lines)."""
    head, rest = app.split("COMMANDS", 1)
    block, tail = re.split(r"\n\)\n", rest, maxsplit=1)
    if re.search(r'"apm_git\.cli\.\w+:\w+"', block):
        return f'{head}COMMANDS{block}\n    ("count", "apm_git.cli.count:count_cmd"),\n)\n{tail}'
    base = "\nfrom apm_git.cli.base import"
    head = head.replace(base, "\nfrom apm_git.cli import count" + base, 1)
    return f"{head}COMMANDS{block}\n    count.count_cmd,\n)\n{tail}"


def digests(root: Path) -> dict[str, str]:
    return {path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file() and "__pycache__" not in path.parts}


def run(copy: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run((sys.executable, "-m", *args), cwd=cwd or copy, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"})


def test_a_new_command_is_its_module_its_presentation_its_registration_and_the_generators(
    tmp_path: Path, repo: MemoryRepo,
) -> None:
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "apm_git", copy / "apm_git", ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "docs").mkdir()
    shutil.copy(ROOT / "docs/cli.md", copy / "docs/cli.md")
    before = digests(copy)

    for name, text in WRITTEN.items():
        (copy / name).write_text(text)
    app = (copy / REGISTERED).read_text()
    (copy / REGISTERED).write_text(register(app))
    changed_lines = [line for line in difflib.unified_diff(app.splitlines(), register(app).splitlines(), lineterm="")
                     if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert len(changed_lines) <= 2, changed_lines  # one line in COMMANDS (and its import while it names objects)

    schemas = run(copy, "apm_git.present.generate_schemas", "--root", str(copy))
    assert (schemas.returncode, schemas.stdout) == (0, "apm_git/schemas/count.schema.json: written\n"), schemas.stderr
    reference = run(copy, "apm_git.cli.reference")
    assert reference.returncode == 0, reference.stderr
    (copy / "docs/cli.md").write_text(reference.stdout)
    assert "\n## `apm-git count`\n" in reference.stdout

    after = digests(copy)
    changed = {name for name in after if before.get(name) != after[name]}
    assert changed == set(WRITTEN) | {REGISTERED} | GENERATED

    ran = run(copy, "apm_git", "--repo", str(repo.root), "count", "--json", cwd=repo.root)
    assert ran.returncode == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["files"] == len(data["paths"]) > 0 and "memory/INDEX.md" in data["paths"]
    schema = json.loads((copy / "apm_git/schemas/count.schema.json").read_text())
    assert not list(Draft202012Validator(schema).iter_errors(data))
    assert list(Draft202012Validator(schema).iter_errors({**data, "files": "3"}))
