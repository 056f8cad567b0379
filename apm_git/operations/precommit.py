"""The apm hooks in `.pre-commit-config.yaml` (added round-trip), and `pre-commit install`.

The hooks `init` writes are `repo: local`, `language: system`, so a commit needs nothing but
apm-git installed and never downloads a hook environment.  They run the `apm-git-hook` of the
installation that wrote them, by its absolute path: a commit from an IDE or a GUI, whose PATH
lacks the virtualenv, finds it all the same.  When that path is gone (apm-git moved or the
repository cloned elsewhere), they fall back to `apm-git-hook` on PATH.
An existing config keeps its comments, order and other hooks; hooks it
already has (by id, in any repo) are never added twice.

`init` writes one hook, `apm-checks`, which runs all seven checks in one process (docs/hook-entry.md,
"One hook or seven").  A config that already lists some of the seven hooks by id gets the missing
ones of those seven instead, so a person who chose separate hooks keeps that choice.
"""
from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from apm_git.checks.manifest import ENTRY, EVERY, HOOKS, local_hook
from apm_git.errors import StateError
from apm_git.store.repo import decode

CONFIG = ".pre-commit-config.yaml"
HEADER = (
    "# pre-commit hooks (https://pre-commit.com).  The apm hooks check the memory offline; they run\n"
    "# apm-git's hook program from where apm-git was installed when `apm-git init` wrote them, else from PATH.\n"
)
COMMENT = "apm-git: memory checks (apm-git's hook program from where apm-git was installed, else from PATH)"


def with_apm_hooks(root: Path, memory_dir: str) -> str | None:
    """The config text with the missing apm hooks added, or None when it already has them all."""
    path = root / CONFIG
    if not path.exists():
        return HEADER + _dump({"repos": [{"repo": "local", "hooks": _hooks([EVERY], memory_dir)}]}, 2, 4, 2)
    text = decode(path.read_bytes(), CONFIG)
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.util import load_yaml_guess_indent

    try:
        data, indent, dash = load_yaml_guess_indent(text)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise StateError(f"{CONFIG}{where}: not valid YAML; fix it, then run `apm-git init` again") from None
    data = CommentedMap() if data is None else data
    repos: Any = data.get("repos") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(repos, (list, type(None))):
        raise StateError(f"{CONFIG}: expected a mapping with a `repos:` list; fix it, then run `apm-git init` again")
    if repos is None:
        repos = data["repos"] = CommentedSeq()
    present = {hook.get("id") for repo in repos if isinstance(repo, dict) for hook in repo.get("hooks") or []
               if isinstance(hook, dict)}
    missing = _missing(present)
    if not missing:
        return None
    ours = {hook.id for hook in (*HOOKS, EVERY)}
    home = next((repo for repo in repos if isinstance(repo, dict) and repo.get("repo") == "local"
                 and any(isinstance(h, dict) and h.get("id") in ours for h in repo.get("hooks") or [])), None)
    if home is not None:
        home["hooks"].extend(_hooks(missing, memory_dir))
    else:
        repos.append(CommentedMap(repo="local", hooks=_hooks(missing, memory_dir)))
        repos.yaml_set_comment_before_after_key(len(repos) - 1, before=COMMENT, indent=dash or 0)
    mapping = 2 if dash else indent
    return _dump(data, mapping, indent or 2, dash or 0)


def _missing(present: set[Any]) -> list[Any]:
    """What the config lacks: nothing when it has `apm-checks`; the rest of the seven when it lists
    some of them; else `apm-checks`."""
    if EVERY.id in present:
        return []
    if any(hook.id in present for hook in HOOKS):
        return [hook for hook in HOOKS if hook.id not in present]
    return [EVERY]


def _hooks(hooks: Any, memory_dir: str) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    return CommentedSeq(CommentedMap(local_hook(hook, memory_dir, hook_command(hook.program))) for hook in hooks)


def hook_command(program: str = ENTRY) -> str:
    """How a hook starts `program` (`apm-git-hook`, or `apm-git-hook-run` for `apm-checks`): by the
    absolute path this installation put it at, else by name.

    A shell line, because pre-commit looks a `language: system` entry up on PATH: `sh` is on every
    PATH, the virtualenv's bin/ is not on an IDE's.
    """
    script = installed_hook_script(program)
    if script is None:
        return program
    line = f'h={shlex.quote(script)}; [ -x "$h" ] || h={program}; exec "$h" "$@"'
    return f"sh -c {shlex.quote(line)} {program}"


def installed_hook_script(program: str = ENTRY) -> str | None:
    """The absolute path of `program` installed with this apm-git, or None when there is none."""
    from importlib import metadata

    candidates: list[Path] = []
    try:
        dist = metadata.distribution("apm-git")
        candidates += [Path(str(dist.locate_file(file))) for file in dist.files or () if file.name == program]
    except metadata.PackageNotFoundError:
        pass
    candidates.append(Path(sysconfig.get_path("scripts")) / program)
    for candidate in candidates:
        path = candidate.resolve()
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def _dump(data: Any, mapping: int, sequence: int, offset: int) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def install(root: Path) -> str | None:
    """Run `pre-commit install` with apm-git's own Python; None when it worked, else why not."""
    proc = subprocess.run(
        (sys.executable, "-m", "pre_commit", "install"), cwd=root, capture_output=True, check=False,
        encoding="utf-8", errors="replace",
    )
    if proc.returncode == 0:
        return None
    lines = (proc.stderr + proc.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit code {proc.returncode}"
