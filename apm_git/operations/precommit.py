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

An existing config keeps its comments, order and other hooks; a hook it already has (by id, in any
repo) is never added twice, and an entry an older apm-git wrote (its own absolute path) is brought
to this form.

`init` writes one hook, `apm-checks`, which runs every check in one process (docs/hook-entry.md).
A config written before it, whose `repo: local` lists the checks as separate hooks, is migrated to
`apm-checks` by `init` and `setup` (apm_git/operations/hook_migration.py), its other lines untouched.
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
from apm_git.checks.manifest import EVERY, RUNNER, Hook, local_hook
from apm_git.errors import StateError
from apm_git.model.config import CONFIG_FILE
from apm_git.model.vocabulary import CHECK_IDS
from apm_git.operations import hook_migration
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
    """The config text with `apm-checks` added or migrated to, or None when it has it as `init` writes it."""
    path = root / CONFIG
    if not path.exists():
        return HEADER + _dump({"repos": [{"repo": "local", "hooks": _hooks([EVERY], memory_dir)}]}, 2, 4, 2)
    original = decode(path.read_bytes(), CONFIG)
    text = _migrated(original, memory_dir)
    data, indent, dash = _load(text)
    repos: Any = data.get("repos") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(repos, (list, type(None))):
        raise StateError(f"{CONFIG}: expected a mapping with a `repos:` list; fix it, then run `apm-git init` again")
    if repos is None:
        from ruamel.yaml.comments import CommentedSeq

        repos = data["repos"] = CommentedSeq()
    present = {hook.get("id") for repo in repos if isinstance(repo, dict) for hook in repo.get("hooks") or []
               if isinstance(hook, dict)}
    renewed = _renew_old_entries(repos, memory_dir)
    # A check id left after the migration is in a remote repo (its pinned revision runs it) or a hook the
    # person wrote: `apm-checks` on top would run those checks twice.
    if EVERY.id in present or present.intersection(CHECK_IDS):
        if renewed:
            return _dump(data, 2 if dash else indent, indent or 2, dash or 0)
        return text if text != original else None
    from ruamel.yaml.comments import CommentedMap

    repos.append(CommentedMap(repo="local", hooks=_hooks([EVERY], memory_dir)))
    repos.yaml_set_comment_before_after_key(len(repos) - 1, before=COMMENT, indent=dash or 0)
    mapping = 2 if dash else indent
    return _dump(data, mapping, indent or 2, dash or 0)


def migrated_config(root: Path, memory_dir: str) -> str | None:
    """The config text with its separate apm hooks migrated to `apm-checks` (`setup`), or None when it
    has none of them (or no config at all)."""
    path = root / CONFIG
    if not path.exists():
        return None
    original = decode(path.read_bytes(), CONFIG)
    text = _migrated(original, memory_dir)
    return text if text != original else None


def _migrated(text: str, memory_dir: str) -> str:
    """`text` with the separate apm hooks of its `repo: local` entries replaced by `apm-checks`."""
    data, _, _ = _load(text)
    repos = data.get("repos") if isinstance(data, dict) else None
    if not hook_migration.old_hooks(repos):
        return text
    hook = _hooks([EVERY], memory_dir)[0]
    edited = hook_migration.migrate_lines(text, repos, _dump([hook], 2, 2, 0).splitlines(keepends=True))
    if edited is not None:
        return edited
    _, indent, dash = _load(text)
    hook_migration.migrate_data(repos, hook)
    return _dump(data, 2 if dash else indent, indent or 2, dash or 0)


def _load(text: str) -> tuple[Any, int, int]:
    """The config as ruamel.yaml's round trip reads it, with its mapping indent and its dash offset."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.util import load_yaml_guess_indent

    try:
        data, indent, dash = load_yaml_guess_indent(text)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise StateError(f"{CONFIG}{where}: not valid YAML; fix it, then run `apm-git init` again") from None
    return (CommentedMap() if data is None else data), indent, dash


def _hooks(hooks: Any, memory_dir: str) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    return CommentedSeq(CommentedMap(_readable(local_hook(hook, memory_dir, _command_of(hook, memory_dir))))
                        for hook in hooks)


def _command_of(hook: Hook, memory_dir: str) -> str:
    """The command of a hook: with the guard when pre-commit runs it on every commit (`always_run`)."""
    return hook_command(RUNNER, memory_dir if "always_run" in hook.options() else None)


def _readable(hook: dict[str, object]) -> dict[str, object]:
    """The entry as a literal block (`|-`): the shell line as it is, without YAML's escapes."""
    from ruamel.yaml.scalarstring import LiteralScalarString

    return {**hook, "entry": LiteralScalarString(str(hook["entry"]))}


def hook_command(program: str = RUNNER, memory_dir: str | None = None) -> str:
    """How a hook starts `program` (`apm-git-hook-run`).

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
    """Record in the clone's `.git/config` where this apm-git's hook program is; the keys it changed.

    Only `apm-git-hook-run`: a configuration that still names `apm-git-hook` is migrated by the same
    `init` or `setup` (an older clone keeps the key an older apm-git set, which names the same program)."""
    script = installed_hook_script(RUNNER)
    key = PROGRAM_KEY.format(program=RUNNER)
    if script is None or git.config_get(root, key) == script:
        return []
    git.config_set(root, key, script)
    return [key]


def _renew_old_entries(repos: Any, memory_dir: str) -> bool:
    """Bring the `apm-checks` hook an older apm-git wrote (its absolute path in the entry) to the form
    `local_hook` writes now; a hook a person wrote another way is left as it is.  Whether any changed."""
    by_id = {EVERY.id: EVERY}
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


def installed_hook_script(program: str = RUNNER) -> str | None:
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
