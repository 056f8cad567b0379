"""The JSON Schemas of apm_git/schemas/ are generated from the shapes declared in apm_git/present/, checked in,
and kept in step here (docs/json.md, docs/development.md)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from apm_git.present import generate_schemas
from apm_git.present.declare import Bool, Const, Enum, Int, List, Map, Maybe, Obj, Shape, Str
from apm_git.present.shapes import FLUSH

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "python -m apm_git.present.generate_schemas"


def run_generate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run((sys.executable, "-m", "apm_git.present.generate_schemas", "--root", str(root), *args),
                          cwd=root, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"})


def package_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "apm_git", copy / "apm_git", ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_checked_in_schemas_are_what_the_shapes_declare() -> None:
    ran = run_generate(ROOT, "--check")
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", ""), f"run `{COMMAND}`"
    names = {path.name for path in (ROOT / "apm_git/schemas").glob("*.schema.json")}
    assert names == {f"{shape.name}.schema.json" for shape in generate_schemas.declared()}


@pytest.mark.slow
def test_check_names_a_stale_or_undeclared_schema_and_generating_mends_both(tmp_path: Path) -> None:
    copy = package_copy(tmp_path)
    flush = copy / "apm_git/schemas/flush.schema.json"
    flush.write_text(flush.read_text().replace('"skipped"', '"skip"'))
    (copy / "apm_git/schemas/gone.schema.json").write_text("{}\n")
    ran = run_generate(copy, "--check")
    stale = f"out of date (run `{COMMAND}`)"
    assert (ran.returncode, ran.stdout) == (
        1, f"apm_git/schemas/flush.schema.json: {stale}\napm_git/schemas/gone.schema.json: {stale}\n")
    assert run_generate(copy).returncode == 0
    assert flush.read_text() == (ROOT / "apm_git/schemas/flush.schema.json").read_text()
    assert not (copy / "apm_git/schemas/gone.schema.json").exists()
    assert run_generate(copy, "--check").returncode == 0


@pytest.mark.slow
def test_a_schema_declared_twice_is_refused(tmp_path: Path) -> None:
    copy = package_copy(tmp_path)
    (copy / "apm_git/present/shapes_again.py").write_text(
        "from apm_git.present.declare import Obj, Shape\n\nAGAIN = Shape('flush', 't', 'd', Obj({}))\n")
    ran = run_generate(copy)
    assert (ran.returncode, ran.stderr) == (
        1, "generate_schemas: schema declared twice: flush; give each shape its own name\n")
    assert (copy / "apm_git/schemas/flush.schema.json").read_text() == (
        ROOT / "apm_git/schemas/flush.schema.json").read_text()


def test_the_check_ids_written_by_generate_checks_are_the_schemas_own() -> None:
    """generate_checks writes the schemas holding the check ids through this generator: with the ids of the
    catalog, the text is what is checked in (and a different list changes exactly those schemas)."""
    from apm_git.model.vocabulary import CHECK_IDS

    held = generate_schemas.check_id_schemas(CHECK_IDS)
    assert set(held) == {"apm_git/schemas/lint.schema.json", "apm_git/schemas/status.schema.json"}
    assert all(text == (ROOT / name).read_text() for name, text in held.items())
    renamed = generate_schemas.check_id_schemas([*CHECK_IDS, "apm-no-todo"])
    assert all('"apm-no-todo"' in text for text in renamed.values())


SAMPLE = Shape("sample", "a sample", "every word of the vocabulary once", Obj({
    "name": Str("^[a-z]+$"), "count": Int(0), "fine": Bool(), "kind": Enum(("a", "b")), "agent": Const("x"),
    "maybe": Maybe(Str()), "pair": List(Str(), size=2), "totals": Map(Int(0), keys=("a", "b")),
    "inner": Maybe(Obj({"line": Int(1)})),
}))


class Result:
    def __init__(self) -> None:
        self.name, self.count, self.fine, self.kind, self.agent = "abc", 2, True, "a", "ignored"
        self.maybe, self.pair, self.totals, self.inner = None, ("k", "v"), {"a": 1}, {"line": 3}


def test_the_output_is_built_from_the_declaration_and_valid_against_its_schema() -> None:
    built = SAMPLE.build(Result(), count=5)
    assert built == {"version": 1, "name": "abc", "count": 5, "fine": True, "kind": "a", "agent": "x",
                     "maybe": None, "pair": ["k", "v"], "totals": {"a": 1}, "inner": {"line": 3}}
    assert list(built) == list(SAMPLE.variants[0].fields)  # version first, then as declared
    validator = Draft202012Validator(SAMPLE.schema())
    assert not list(validator.iter_errors(built))
    for wrong in ({"kind": "c"}, {"pair": ["k"]}, {"inner": {"line": 0}}, {"name": "ABC"}, {"count": -1},
                  {"agent": "y"}, {"extra": 1}, {"totals": {"c": 1}}):
        assert list(validator.iter_errors({**built, **wrong})), wrong
    assert list(validator.iter_errors({key: value for key, value in built.items() if key != "maybe"}))


@pytest.mark.parametrize("shape", generate_schemas.declared(), ids=lambda shape: shape.name)
def test_each_declared_schema_is_valid_and_its_text_is_stable(shape: Shape) -> None:
    schema = shape.schema()
    Draft202012Validator.check_schema(schema)
    assert json.loads(json.dumps(schema)) == schema  # JSON through and through: no tuples, no types left in


def test_the_flush_schema_is_the_shape_the_code_builds() -> None:
    assert list(json.loads((ROOT / "apm_git/schemas/flush.schema.json").read_text())["properties"]) == list(
        FLUSH.variants[0].fields)
