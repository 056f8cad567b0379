"""Each `--json` output is declared once (issue 28): its shape function builds it from its `Shape`
(apm_git/present/declare.py), never from a dict literal written beside the declaration.  Read with `ast`:
nothing is imported."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "apm_git"
# Where the `--json` outputs are built: the presentation, and the review and planners that built some by hand;
# declare.py is where `version` is declared, once for every shape.
SOURCES = sorted(path for path in [*PACKAGE.glob("present/*.py"), *PACKAGE.glob("review/*.py"),
                                   *PACKAGE.glob("dreaming/*.py")] if path.name != "declare.py")


def versioned_dicts(source: str) -> list[int]:
    """The lines of the `{"version": …}` literals: outputs written by hand (a shape's `build` writes `version`)."""
    return [node.lineno for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Dict)
            and any(isinstance(key, ast.Constant) and key.value == "version" for key in node.keys)]


def unbuilt_returns(source: str) -> list[str]:
    """The `*_json` functions that return anything but `SHAPE.build(...)` (or None), with the line."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if not (isinstance(function, ast.FunctionDef) and function.name.endswith("_json")):
            continue
        for node in ast.walk(function):
            if not isinstance(node, ast.Return) or node.value is None:
                continue
            value = node.value
            built = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "build"
            if not built and not (isinstance(value, ast.Constant) and value.value is None):
                found.append(f"{function.name}:{node.lineno}")
    return found


def test_no_output_is_a_dict_literal_with_a_version() -> None:
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}" for path in SOURCES
             for line in versioned_dicts(path.read_text(encoding="utf-8"))]
    assert found == []


def test_every_shape_function_returns_what_a_shape_built() -> None:
    """In the presentation and the review (the planners' `*_from_json` read a plan back)."""
    found = [f"{path.relative_to(PACKAGE.parent)} {where}" for path in SOURCES if "dreaming" not in path.parts
             for where in unbuilt_returns(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_checks_see_an_output_built_by_hand() -> None:
    by_hand = 'def count_json(result):\n    return {"version": 1, "count": result.count}\n'
    assert versioned_dicts(by_hand) == [2]
    assert unbuilt_returns(by_hand) == ["count_json:2"]
    declared = "def count_json(result):\n    if result is None:\n        return None\n    return COUNT.build(result)\n"
    assert versioned_dicts(declared) == unbuilt_returns(declared) == []
