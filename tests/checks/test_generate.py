"""The checks declared once: what is derived from them is generated, checked in, and kept in step here."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.checks.catalog import CHECKS
from apm_git.commands.status import SEVERITY
from apm_git.model.vocabulary import CHECK_IDS
from apm_git.operations import generate_checks
from apm_git.store.repo import MemoryRepo
from tests.conftest import git

ROOT = Path(__file__).resolve().parents[2]
# What the generator writes: the places a new check reaches without anyone editing them.
GENERATED = {"apm_git/checks/catalog.py", "apm_git/model/vocabulary.py", ".pre-commit-hooks.yaml",
             "apm_git/schemas/lint.schema.json", "apm_git/schemas/status.schema.json", "docs/checks.md"}
THROWAWAY = '''"""apm-no-todo: a memory file holds a line starting with TODO (a throwaway check of a test)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from apm_git.checks.check import Check
from apm_git.model.snapshot import Finding, Snapshot

ID: Final = "apm-no-todo"


def validate(snap: Snapshot) -> Iterator[Finding]:
    for path in snap.targets:
        for number, line in enumerate((snap.new.get(path) or "").splitlines(), start=1):
            if line.startswith("TODO"):
                yield Finding(path, number, ID, "a TODO in memory; write it as a pending item")


CHECK = Check(
    ID, "a memory file holds a line starting with TODO",
    applies_to="file", severity=65, validate=validate,
)
'''


def run_generate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run((sys.executable, "-m", "apm_git.operations.generate_checks", "--root", str(root), *args),
                          cwd=root, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"})


def source_copy(tmp_path: Path) -> Path:
    """The package and the files the generator writes outside it, copied as a contributor's tree."""
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "apm_git", copy / "apm_git", ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "docs").mkdir()
    for name in (".pre-commit-hooks.yaml", "docs/checks.md"):
        shutil.copy(ROOT / name, copy / name)
    return copy


def digests(root: Path) -> dict[str, str]:
    return {str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file() and "__pycache__" not in path.parts}


def test_the_generated_files_are_what_the_checks_declare() -> None:
    ran = run_generate(ROOT, "--check")
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", ""), "run `python -m apm_git.operations.generate_checks`"
    assert set(generate_checks.outputs()) == GENERATED


def test_every_list_of_the_checks_is_the_catalog_most_harmful_first() -> None:
    ids = [check.id for check in CHECKS]
    assert ids == list(CHECK_IDS) == list(SEVERITY)
    assert [check.severity for check in CHECKS] == sorted(check.severity for check in CHECKS)
    assert ids[:2] == ["apm-no-secrets", "apm-no-loss"]  # a leak, then a loss, before shape and size


@pytest.mark.slow
def test_check_names_a_stale_file_and_generating_mends_it(tmp_path: Path) -> None:
    copy = source_copy(tmp_path)
    vocabulary = copy / "apm_git/model/vocabulary.py"
    vocabulary.write_text(vocabulary.read_text().replace('"apm-budget"', '"apm-budgets"'))
    ran = run_generate(copy, "--check")
    assert (ran.returncode, ran.stdout) == (1, "apm_git/model/vocabulary.py: out of date (run `python -m "
                                               "apm_git.operations.generate_checks`)\n")
    assert run_generate(copy).returncode == 0
    assert vocabulary.read_text() == (ROOT / "apm_git/model/vocabulary.py").read_text()


def test_a_check_declared_twice_is_refused(tmp_path: Path) -> None:
    copy = source_copy(tmp_path)
    (copy / "apm_git/checks/budget_again.py").write_text((copy / "apm_git/checks/budget.py").read_text())
    ran = run_generate(copy)
    assert (ran.returncode, ran.stderr) == (
        1, "generate_checks: check id declared twice: apm-budget; give each check its own id\n")
    assert (copy / "apm_git/checks/catalog.py").read_text() == (ROOT / "apm_git/checks/catalog.py").read_text()


@pytest.mark.slow
def test_a_new_check_is_its_module_and_the_generator(tmp_path: Path, repo: MemoryRepo) -> None:
    """A throwaway check added to a copy of the package: the generator writes every other place, and the
    hook, `apm-checks`, its alias, `status`'s order and the schemas all have it."""
    copy = source_copy(tmp_path)
    before = digests(copy)
    (copy / "apm_git/checks/no_todo.py").write_text(THROWAWAY)
    ran = run_generate(copy)
    assert ran.returncode == 0, ran.stderr
    after = digests(copy)
    changed = {name for name in after if before.get(name) != after[name]}
    assert changed == {"apm_git/checks/no_todo.py", *GENERATED}
    assert ran.stdout == "".join(f"{name}: written\n" for name in generate_checks.outputs())
    assert run_generate(copy, "--check").returncode == 0
    schemas = subprocess.run((sys.executable, "-m", "apm_git.present.generate_schemas", "--root", str(copy), "--check"),
                             cwd=copy, capture_output=True, text=True, check=False,
                             env={**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"})
    assert (schemas.returncode, schemas.stdout) == (0, ""), "the two generators agree on the check ids"
    assert "apm-no-todo" in (copy / ".pre-commit-hooks.yaml").read_text()
    assert '"apm-index-fresh", "apm-no-todo", "apm-record-format"' in (
        copy / "apm_git/model/vocabulary.py").read_text().replace("\n                  ", " ")

    lessons = repo.memory / "lessons.md"
    lessons.write_text(lessons.read_text() + "\nTODO: ask about the cache\n")
    git(repo.root, "add", "-A")
    code = ("import sys\nfrom apm_git.operations.hook_run import main\n"
            "from apm_git.commands.status import SEVERITY\n"
            "print(SEVERITY.index('apm-no-todo'), flush=True)\nsys.exit(main(sys.argv[1:]))\n")
    for hook_id in ("apm-checks", "apm-no-todo"):
        proc = subprocess.run((sys.executable, "-c", code, hook_id, "memory/lessons.md"), cwd=repo.root,
                              capture_output=True, text=True, check=False,
                              env={**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"})
        line = lessons.read_text().splitlines().index("TODO: ask about the cache") + 1
        assert (proc.returncode, proc.stdout) == (
            1, f"6\nmemory/lessons.md:{line}: apm-no-todo: a TODO in memory; write it as a pending item\n"), proc.stderr
