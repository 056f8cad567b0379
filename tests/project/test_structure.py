"""The layers of docs/architecture.md, held by walking the package's imports and calls with `ast`.

Nothing is imported or run: each module's source is parsed, its imports (module-level and inside
functions alike) are resolved to apm_git modules, and the walk follows them transitively, so a
planner that reaches the store through a helper fails as surely as one that imports it directly.
"""
from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "apm_git"
GATEWAY = "apm_git.git"

PLANNERS = ("apm_git.model", "apm_git.dreaming", "apm_git.checks", "apm_git.merge", "apm_git.tracking")
STORE = "apm_git.store"
OPERATIONS = "apm_git.operations"
COMMANDS = "apm_git.commands"
CLI = "apm_git.cli"

# What each layer may not reach, directly or through any module it imports.
FORBIDDEN = {
    **dict.fromkeys(PLANNERS, (STORE, OPERATIONS, GATEWAY, COMMANDS, CLI)),
    STORE: (OPERATIONS, COMMANDS, CLI),
    OPERATIONS: (COMMANDS, CLI),
}

# The modules that start a program other than git, each with the program and why it is not the gateway's.
OTHER_PROGRAMS = {
    "apm_git.agents.timers": "crontab: installs and removes the apm-git lines of the user's crontab",
    "apm_git.agents.hooks": "an agent's own hook command (`apm-git hooks run`), run as the agent would",
    "apm_git.operations.precommit": "`pre-commit install`: pre-commit installs its git hook itself",
    "apm_git.agents.mcp_pool": "the MCP server's worker processes (Python): a tool call past its time limit is "
                               "stopped by ending its worker",
}
SUBPROCESS_CALLS = frozenset({"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"})
OS_CALLS = ("exec", "spawn", "posix_spawn", "system", "popen")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def _tree(module: str) -> ast.Module:
    path = _modules()[module]
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _with_packages(module: str) -> list[str]:
    """`apm_git.a.b` and the packages whose `__init__` importing it runs (`apm_git`, `apm_git.a`)."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts) + 1) if ".".join(parts[:end]) in _modules()]


@functools.cache
def direct_imports(module: str) -> frozenset[str]:
    """The apm_git modules `module` imports anywhere in its source (a function-level import too)."""
    modules = _modules()
    package = module if _modules()[module].name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from apm_git.x import y`: y is a submodule when there is one, else a name in apm_git.x
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for name in names:
            if name == "apm_git" or name.startswith("apm_git."):
                while name not in modules and "." in name:  # `import apm_git.x.y` of a name: its module
                    name = name.rpartition(".")[0]
                found.update(_with_packages(name))
    found.discard(module)
    return frozenset(found)


def import_chain(module: str, unwanted: tuple[str, ...]) -> list[str] | None:
    """The shortest chain of imports from `module` to a module under one of `unwanted`, or None."""
    def hit(name: str) -> bool:
        return any(name == prefix or name.startswith(prefix + ".") for prefix in unwanted)

    came_from: dict[str, str | None] = {module: None}
    queue = [module]
    for current in queue:
        for name in sorted(direct_imports(current), reverse=True):  # a module before its package
            if name in came_from:
                continue
            came_from[name] = current
            if hit(name):
                chain = [name]
                while (step := came_from[chain[-1]]) is not None:
                    chain.append(step)
                return chain[::-1]
            queue.append(name)
    return None


def _layer_modules(layer: str) -> list[str]:
    return [name for name in _modules() if name == layer or name.startswith(layer + ".")]


def test_a_verb_imports_no_other_verb() -> None:
    """Each module of commands/ is one verb: what two verbs share lives in operations/ (or below)."""
    verbs = _layer_modules(COMMANDS)[1:]
    assert len(verbs) > 20, verbs
    broken = [f"{verb} imports {other}" for verb in verbs for other in sorted(direct_imports(verb))
              if other.startswith(COMMANDS + ".")]
    assert not broken, "a verb may not import another verb; move what they share to operations/:\n" + "\n".join(broken)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_a_layer_imports_nothing_above_it(layer: str) -> None:
    assert _layer_modules(layer), f"{layer} is gone: update FORBIDDEN here and docs/architecture.md"
    broken = []
    for module in _layer_modules(layer):
        chain = import_chain(module, FORBIDDEN[layer])
        if chain is not None:
            broken.append(f"{module} imports {chain[-1]} (through {' -> '.join(chain)})")
    assert not broken, f"{layer} may not import {', '.join(FORBIDDEN[layer])}:\n" + "\n".join(broken)


IO_MODULES = frozenset({"os", "pathlib", "subprocess", "shutil", "tempfile", "sqlite3", "socket", "time", "fcntl"})
CLOCK_READS = frozenset({"now", "today", "utcnow", "time", "monotonic", "perf_counter", "simulated", "git_date_env"})


def _io_uses(tree: ast.Module) -> Iterator[str]:
    """What a module does that a pure function may not: import an I/O module, call `open`, read the clock."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (f"import {alias.name}" for alias in node.names if alias.name.split(".")[0] in IO_MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in IO_MODULES:
            yield f"from {node.module} import …"
        elif isinstance(node, ast.ImportFrom) and node.module == "apm_git.clock":
            yield from (f"from apm_git.clock import {alias.name}" for alias in node.names if alias.name in CLOCK_READS)
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "open":
                yield f"open() on line {node.lineno}"
            elif isinstance(node.func, ast.Attribute) and node.func.attr in CLOCK_READS:
                yield f"{ast.unparse(node.func)}() on line {node.lineno}"


@pytest.mark.parametrize("layer", PLANNERS)
def test_a_planner_reads_no_file_and_no_clock(layer: str) -> None:
    broken = [f"{module}: {use}" for module in _layer_modules(layer) for use in _io_uses(_tree(module))]
    assert not broken, f"{layer} is pure (text and dates in, records and findings out):\n" + "\n".join(broken)


def _program_calls(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, call) of every call that starts a program: subprocess.*, os.exec*/spawn*/system/popen,
    and a name imported from subprocess."""
    from_subprocess = {
        alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
        and node.module == "subprocess" for alias in node.names if alias.name in SUBPROCESS_CALLS
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id == "subprocess" and func.attr in SUBPROCESS_CALLS:
                yield node.lineno, f"subprocess.{func.attr}"
            elif func.value.id == "os" and func.attr.startswith(OS_CALLS):
                yield node.lineno, f"os.{func.attr}"
            elif func.value.id == "asyncio" and func.attr.startswith("create_subprocess"):
                yield node.lineno, f"asyncio.{func.attr}"
        elif isinstance(func, ast.Name) and func.id in from_subprocess:
            yield node.lineno, func.id


def _starts_git(call: ast.Call) -> bool:
    """Whether the first argument is a literal command line whose program is git."""
    if not call.args:
        return False
    first = call.args[0]
    if isinstance(first, (ast.Tuple, ast.List)) and first.elts:
        first = first.elts[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value.split()[0:1] == ["git"]
    return False


def test_only_the_gateway_starts_git() -> None:
    """git starts only in apm_git/git.py; every other module that starts a program is on a short list
    with its reason, and starts none of them with a literal `git`."""
    broken = []
    starting = set()
    for module in _modules():
        tree = _tree(module)
        calls = list(_program_calls(tree))
        if not calls or module == GATEWAY:
            continue
        starting.add(module)
        where = ", ".join(f"{call} (line {line})" for line, call in calls)
        if module not in OTHER_PROGRAMS:
            broken.append(f"{module} starts a program: {where}; run git through apm_git.git")
        git_calls = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call) and _starts_git(node)]
        if git_calls:
            broken.append(f"{module} starts git itself (line {', '.join(map(str, git_calls))})")
    assert not broken, "\n".join(broken)
    assert starting == set(OTHER_PROGRAMS), (
        f"on the list of modules that start other programs but starting none: {set(OTHER_PROGRAMS) - starting}"
    )


def test_the_gateway_is_the_one_that_starts_git() -> None:
    assert list(_program_calls(_tree(GATEWAY))), "apm_git.git starts no program: the walk above would prove nothing"


def _gateway_names(tree: ast.Module) -> set[str]:
    """The local names a module gives apm_git.git (`from apm_git import git as gateway`)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "apm_git":
            names |= {alias.asname or alias.name for alias in node.names if alias.name == "git"}
        elif isinstance(node, ast.Import):
            names |= {alias.asname or alias.name for alias in node.names if alias.name == GATEWAY}
    return names


def _python_files() -> Iterator[tuple[str, ast.Module]]:
    root = PACKAGE.parent
    for folder in ("apm_git", "tests", "benchmarks"):
        for path in sorted((root / folder).rglob("*.py")):
            yield str(path.relative_to(root)), ast.parse(path.read_text(encoding="utf-8"))


def test_nothing_outside_the_gateway_uses_its_private_functions() -> None:
    broken = []
    for where, tree in _python_files():
        if where == "apm_git/git.py":
            continue
        local = _gateway_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == GATEWAY:
                broken += [f"{where}:{node.lineno} imports {alias.name} from {GATEWAY}"
                           for alias in node.names if alias.name.startswith("_")]
            elif (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                  and isinstance(node.value, ast.Name) and node.value.id in local):
                broken.append(f"{where}:{node.lineno} uses {node.value.id}.{node.attr}")
            elif (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                  and ast.unparse(node.value) == GATEWAY):
                broken.append(f"{where}:{node.lineno} uses {GATEWAY}.{node.attr}")
    assert not broken, "apm_git.git's private functions are its own; add a typed function there:\n" + "\n".join(broken)


def test_the_walk_sees_function_level_imports() -> None:
    """The walk is only as good as its import resolution: a light entry's lazy imports count."""
    imported = direct_imports("apm_git.operations.hook_run")
    assert "apm_git.store.repo" in imported, sorted(imported)
    chain = import_chain("apm_git.operations.hook_run", (GATEWAY,))
    assert chain is not None and chain[0] == "apm_git.operations.hook_run" and chain[-1] == GATEWAY, chain
