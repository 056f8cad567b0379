"""The apm hooks in `.pre-commit-config.yaml` (added round-trip), and `pre-commit install`.

The hooks `init` writes are `repo: local`, `language: system`, so a commit needs nothing but
apm-git installed and never downloads a hook environment.  The config is shared: a team commits it,
so it holds nothing of one machine's and asks nothing of a teammate who commits code alone
(docs/setup.md, "A team repository"):

- the entry finds apm-git's hook program by the absolute path this clone registered in its own
  `.git/config` (`apm-git.<program>`, set by `init` and `setup`), so a commit from an IDE whose PATH
  lacks the virtualenv finds it; else on PATH; else it prints one line saying how to install
  apm-git or skip the check, and exits 1 (never 127);
- `apm-checks` runs on every commit (`always_run`: a commit that only deletes memory files reaches no
  hook otherwise), but its entry returns 0 before starting apm-git when no memory path is staged.

An existing config keeps its comments, order and other hooks; hooks it already has (by id, in any
repo) are never added twice, and an entry an older apm-git wrote (its own absolute path) is brought
to this form.

`init` writes one hook, `apm-checks`, which runs all seven checks in one process (docs/hook-entry.md,
"One hook or seven").  A config that already lists some of the seven hooks by id gets the missing
ones of those seven instead, so a person who chose separate hooks keeps that choice.
"""
from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from apm_git import git
from apm_git.checks.manifest import ENTRY, EVERY, HOOKS, RUNNER, Hook, local_hook
from apm_git.errors import StateError
from apm_git.model.config import CONFIG_FILE
from apm_git.store.repo import decode

CONFIG = ".pre-commit-config.yaml"
HEADER = (
    "# pre-commit hooks (https://pre-commit.com).  The apm hooks check the memory offline when memory\n"
    "# is staged; a clone without apm-git still commits code (README: \"Using apm-git in a team repository\").\n"
)
COMMENT = "apm-git: memory checks when memory is staged (a clone without apm-git is told how to install or SKIP)"
PROGRAM_KEY = "apm-git.{program}"  # where a clone keeps the absolute path of a hook program (.git/config)
# The entry an older apm-git wrote: its own absolute path, with a fall back to PATH.
_OLD_ENTRY = re.compile(r"sh -c 'h=[^;]*; \[ -x \"\$h\" \] \|\| h=(apm-git-hook(?:-run)?); exec \"\$h\" \"\$@\"' "
                        r"\1 (apm-[a-z-]+)")


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
    renewed = _renew_old_entries(repos, memory_dir)
    if not missing:
        return _dump(data, 2 if dash else indent, indent or 2, dash or 0) if renewed else None
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

    return CommentedSeq(CommentedMap(_readable(local_hook(hook, memory_dir, _command_of(hook, memory_dir))))
                        for hook in hooks)


def _command_of(hook: Hook, memory_dir: str) -> str:
    """The command of a hook: with the guard when pre-commit runs it on every commit (`always_run`)."""
    return hook_command(hook.program, memory_dir if "always_run" in hook.options() else None)


def _readable(hook: dict[str, object]) -> dict[str, object]:
    """The entry as a literal block (`|-`): the shell line as it is, without YAML's escapes."""
    from ruamel.yaml.scalarstring import LiteralScalarString

    return {**hook, "entry": LiteralScalarString(str(hook["entry"]))}


def hook_command(program: str = ENTRY, memory_dir: str | None = None) -> str:
    """How a hook starts `program` (`apm-git-hook`, or `apm-git-hook-run` for `apm-checks`).

    A shell line, because pre-commit looks a `language: system` entry up on PATH and `sh` is on every
    PATH: the path this clone registered (`git config apm-git.<program>`), else the program on PATH,
    else one line naming the fix and exit 1.  `$1` is the hook id pre-commit's entry passes first.

    With `memory_dir` (a hook pre-commit runs on every commit, for the deletions) the line first
    returns 0 when pre-commit handed it no file, compares no refs, and the index holds no change under
    the memory dir or to apm.yaml: a commit of code alone costs one `git diff --quiet` and no apm-git.
    """
    key = PROGRAM_KEY.format(program=program)
    guard = ""
    if memory_dir is not None:
        paths = " ".join(_sh_word(path) for path in (memory_dir, CONFIG_FILE))
        guard = (f'[ $# -gt 1 ] || [ -n "${{PRE_COMMIT_FROM_REF-}}" ] || ! git diff --cached --quiet -- {paths} '
                 "|| exit 0; ")
    missing = ("$1: apm-git is not installed here, so the memory checks cannot run: install apm-git, then run "
               "apm-git setup in this clone; or commit without them: SKIP=$1 git commit")
    line = (f'{guard}h=$(git config --get {key}) && [ -x "$h" ] || h=$(command -v {program}) || '
            f'{{ echo "{missing}"; exit 1; }}; exec "$h" "$@"')
    return f"sh -c {shlex.quote(line)} {program}"


def _sh_word(text: str) -> str:
    return text if re.fullmatch(r"[\w./-]+", text) else '"' + re.sub(r'(["$`\\])', r"\\\1", text) + '"'


def register_hook_programs(root: Path) -> list[str]:
    """Record in the clone's `.git/config` where this apm-git's hook programs are; the keys it changed."""
    changed = []
    for program in (RUNNER, ENTRY):
        script = installed_hook_script(program)
        key = PROGRAM_KEY.format(program=program)
        if script is not None and git.config_get(root, key) != script:
            git.config_set(root, key, script)
            changed.append(key)
    return changed


def _renew_old_entries(repos: Any, memory_dir: str) -> bool:
    """Bring the apm hooks an older apm-git wrote (its absolute path in the entry, `always_run`) to the form
    `local_hook` writes now; a hook a person wrote another way is left as it is.  Whether any changed."""
    by_id = {hook.id: hook for hook in (*HOOKS, EVERY)}
    renewed = False
    for repo in repos:
        for hook in (repo.get("hooks") or []) if isinstance(repo, dict) and repo.get("repo") == "local" else []:
            entry = hook.get("entry") if isinstance(hook, dict) else None
            match = _OLD_ENTRY.fullmatch(entry) if isinstance(entry, str) else None
            if match is None or match[2] != hook.get("id") or match[2] not in by_id:
                continue
            fresh = _readable(local_hook(by_id[match[2]], memory_dir, _command_of(by_id[match[2]], memory_dir)))
            for key in ("always_run", "pass_filenames", "files"):
                if key in hook and key not in fresh:
                    del hook[key]
            for key, value in fresh.items():
                if key not in ("id", "name"):
                    hook[key] = value
            renewed = True
    return renewed


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
