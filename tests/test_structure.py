"""The layers of docs/architecture.md, held by walking the package's imports with `ast`.

Nothing is imported or run: each module's source is parsed and its imports (at module level and
inside functions alike) are resolved to apm_git modules.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "apm_git"
COMMANDS = "apm_git.commands"
DREAMING = "apm_git.dreaming"
# What the pure planners of dreaming/ may not reach, directly or through any module they import.
ABOVE_OR_IO = ("apm_git.store", "apm_git.operations", "apm_git.git", "apm_git.commands", "apm_git.cli")


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def modules() -> dict[str, Path]:
    return {_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@functools.cache
def imports(module: str) -> frozenset[str]:
    """The apm_git modules (and the packages whose `__init__` that runs) that `module` imports anywhere."""
    known = modules()
    path = known[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            while name not in known and "." in name:  # a name inside a module: the module
                name = name.rpartition(".")[0]
            parts = name.split(".")
            found.update(".".join(parts[:end]) for end in range(1, len(parts) + 1) if ".".join(parts[:end]) in known)
    found.discard(module)
    return frozenset(found)


def chain_to(module: str, unwanted: tuple[str, ...]) -> list[str] | None:
    """The shortest chain of imports from `module` to a module under one of `unwanted`, or None."""
    came_from: dict[str, str | None] = {module: None}
    queue = [module]
    for current in queue:
        for name in sorted(imports(current)):
            if name in came_from:
                continue
            came_from[name] = current
            if any(under(name, prefix) for prefix in unwanted):
                chain = [name]
                while (step := came_from[chain[-1]]) is not None:
                    chain.append(step)
                return chain[::-1]
            queue.append(name)
    return None


def test_the_walker_sees_function_level_and_relative_imports() -> None:
    assert "apm_git.operations.baseline" in imports("apm_git.operations.consolidation")  # inside `withheld`
    assert "apm_git.operations.consolidation" in imports("apm_git.operations.stages")
    assert chain_to("apm_git.commands.rem", ("apm_git.git",)) is not None


def test_a_verb_imports_no_other_verb() -> None:
    """Each module of commands/ is one verb: what two verbs share lives in operations/ (or below)."""
    verbs = [name for name in modules() if name.startswith(COMMANDS + ".")]
    assert len(verbs) > 20
    broken = [f"{verb} imports {other}" for verb in verbs for other in sorted(imports(verb))
              if other.startswith(COMMANDS + ".")]
    assert not broken, "a verb may not import another verb; move what they share to operations/:\n" + "\n".join(broken)


def test_dreaming_reaches_no_storage_git_step_verb_or_cli() -> None:
    planners = [name for name in modules() if under(name, DREAMING)]
    assert len(planners) > 10
    broken = []
    for module in planners:
        chain = chain_to(module, ABOVE_OR_IO)
        if chain is not None:
            broken.append(f"{module} reaches {chain[-1]} (through {' -> '.join(chain)})")
    assert not broken, "dreaming/ plans purely (text and dates in, plans out):\n" + "\n".join(broken)
