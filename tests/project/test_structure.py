"""The layers of docs/architecture.md, held by walking the package's imports and calls with `ast`.

Nothing is imported or run: each module's source is parsed, its imports (module-level and inside
functions alike) are resolved to apm_git modules, and the walk follows them transitively, so a
planner that reaches the store through a helper fails as surely as one that imports it directly.
"""
from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator
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


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The apm_git modules one import statement of `module` names, each with the packages importing it runs."""
    modules = _modules()
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module if modules[module].name == "__init__.py" else module.rpartition(".")[0]
            anchor = package.split(".")
            anchor = anchor[:len(anchor) - node.level + 1]
            base = ".".join([*anchor, *([base] if base else [])])
        # `from apm_git.x import y`: y is a submodule when there is one, else a name in apm_git.x
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
    found: set[str] = set()
    for name in names:
        if name == "apm_git" or name.startswith("apm_git."):
            while name not in modules and "." in name:  # `import apm_git.x.y` of a name: its module
                name = name.rpartition(".")[0]
            found.update(_with_packages(name))
    found.discard(module)
    return found


@functools.cache
def direct_imports(module: str) -> frozenset[str]:
    """The apm_git modules `module` imports anywhere in its source (a function-level import too)."""
    found: set[str] = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= _imported(module, node)
    return frozenset(found)


def import_chain(module: str, unwanted: tuple[str, ...],
                 imports: Callable[[str], frozenset[str]] = direct_imports) -> list[str] | None:
    """The shortest chain of `imports` from `module` to a module under one of `unwanted`, or None."""
    def hit(name: str) -> bool:
        return any(name == prefix or name.startswith(prefix + ".") for prefix in unwanted)

    came_from: dict[str, str | None] = {module: None}
    queue = [module]
    for current in queue:
        for name in sorted(imports(current), reverse=True):  # a module before its package
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


def _gateway_names(nodes: list[ast.AST]) -> set[str]:
    """The local names a module (its nodes, walked) gives apm_git.git (`from apm_git import git as gateway`)."""
    names = set()
    for node in nodes:
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
        nodes = list(ast.walk(tree))  # walked once: the gateway's local names, then every use
        local = _gateway_names(nodes)
        for node in nodes:
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


# --------------------------------------------------------------------------- issue 28: stricter rules

MODEL = "apm_git.model"
PRESENT = "apm_git.present"
AGENTS = "apm_git.agents"
STRICTER = {
    MODEL: ("apm_git.agents", "apm_git.review", "apm_git.search"),  # the core every layer reads
    PRESENT: (CLI, AGENTS),  # below both: the shapes the command line and the MCP server take
    AGENTS: (CLI,),  # the MCP server takes its shapes from present/, not from the command line
}
# The imports allowed to climb a layer, each with its reason (issue 28: at most two).
CLIMBS = {
    ("apm_git.agents.recall_hook", "apm_git.cli.app"): "the light UserPromptSubmit entry hands any other arguments "
                                                       "to the full command line, which it otherwise never imports",
    ("apm_git.agents.snapshot_hook", "apm_git.cli.app"): "the light snapshot entry hands what it does not serve to "
                                                         "the full command line, likewise",
}


def _type_only(tree: ast.Module) -> set[int]:
    """The ids of the import nodes under `if TYPE_CHECKING:`: they name types and run nothing."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found.update(id(inner) for inner in ast.walk(node) if isinstance(inner, (ast.Import, ast.ImportFrom)))
    return found


@functools.cache
def runtime_imports(module: str) -> frozenset[str]:
    """`direct_imports` without those under `if TYPE_CHECKING:` and without the allowed climbs."""
    tree = _tree(module)
    skipped = _type_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skipped:
            found |= _imported(module, node)
    climbed = [target for source, target in CLIMBS if source == module]  # the target and its packages
    return frozenset(name for name in found
                     if not any(target == name or target.startswith(name + ".") for target in climbed))


@pytest.mark.parametrize("layer", sorted(STRICTER))
def test_the_core_and_the_presentation_stay_below(layer: str) -> None:
    """What runs (type-only imports aside) never climbs from the core, the presentation or the agents' surfaces
    into the layers above them, but by the climbs listed with their reason."""
    broken = []
    for module in _layer_modules(layer):
        chain = import_chain(module, STRICTER[layer], runtime_imports)
        if chain is not None:
            broken.append(f"{module} imports {chain[-1]} (through {' -> '.join(chain)})")
    assert not broken, f"{layer} may not import {', '.join(STRICTER[layer])}:\n" + "\n".join(broken)


def test_the_climbs_are_few_and_real() -> None:
    assert len(CLIMBS) <= 2
    for module, target in CLIMBS:
        assert target in direct_imports(module), f"{module} no longer imports {target}: drop it from CLIMBS"


def _import_time_imports(module: str) -> frozenset[str]:
    """The apm_git modules importing `module` runs: its top-level imports (not those inside a function,
    nor under `if TYPE_CHECKING:`), each with the packages whose `__init__` that runs."""
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body)
            elif isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                    visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.finalbody)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                found.update(_imported(module, node))

    visit(_tree(module).body)
    return frozenset(found)


def test_no_module_imports_itself_back() -> None:
    """No import cycle at import time: a package's `__init__` imports none of its own modules that
    import it back, and no two modules import each other (Tarjan's strongly connected components)."""
    graph = {module: _import_time_imports(module) for module in _modules()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            connect(module)
    assert cycles == [], "modules that import each other at import time:\n" + "\n".join(map(str, cycles))


def test_each_class_name_is_defined_once() -> None:
    """A reader who meets `Kept` or `Rem` knows which one it is: no two classes of the package share a name."""
    where: dict[str, list[str]] = {}
    for module in _modules():
        for node in _tree(module).body:
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(module)
    twice = {name: modules for name, modules in where.items() if len(modules) > 1}
    assert twice == {}, twice


def test_a_class_is_imported_under_its_own_name() -> None:
    """The distinct names stay visible where a class is used: no `import SearchScope as Scope`, which would
    bring back the name shared with another class (store/scope.py's `Scope`)."""
    classes = {node.name for module in _modules() for node in _tree(module).body if isinstance(node, ast.ClassDef)}
    renamed = [f"{module}: {alias.name} as {alias.asname}" for module in _modules() for node in ast.walk(_tree(module))
               if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("apm_git")
               for alias in node.names if alias.name in classes and alias.asname not in (None, alias.name)]
    assert renamed == []
