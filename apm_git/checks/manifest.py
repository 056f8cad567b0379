"""The hooks pre-commit runs: `apm-checks`, and each check's own id as an alias of it.

`apm-checks` runs every check in one process per commit: the hook `apm-git init` writes.  A check's
own id (`apm-budget`, …) runs the same program restricted to that check, with nothing stored between
hooks: configurations written before `apm-checks` keep working, seven processes a commit, until
`init` or `setup` migrates them (docs/hook-entry.md, "Configurations from before `apm-checks`").
`python -m apm_git.operations.generate_checks` writes `.pre-commit-hooks.yaml` from these.

Imported by the hook entry point on every commit, so it imports nothing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from apm_git.checks.check import Check

RUNNER = "apm-git-hook-run"  # the hook program: one Python process, every hook id
# The sh script that answered six of seven separate hooks from stored findings, until the aliases replaced
# it; its name stays a console script of the same program, for the configurations that name it.
OLD_PROGRAM = "apm-git-hook"


class Hook:
    """One pre-commit hook: its id, a one-line description, and whether it checks the files it is given."""

    __slots__ = ("description", "every", "files", "id", "per_file")

    def __init__(self, hook_id: str, description: str, *, per_file: bool, files: str = "", every: bool = False) -> None:
        self.id = hook_id
        self.description = description
        self.files = files  # a regex of the files it looks at, within the memory dir
        # Per-file hooks check the files pre-commit hands them (the staged files, or all files
        # with --all-files).  The others compare the base with the new side and read deletions
        # and renames from git themselves, so pre-commit passes them no file names.
        self.per_file = per_file
        # Every check at once: it is handed the files like a per-file hook (its per-file checks look
        # at them), and runs when none is staged too (a deletion, for the no-loss check).
        self.every = every

    def options(self) -> dict[str, object]:
        """The pre-commit options of this hook, shared by the manifest and the config `init` writes."""
        options: dict[str, object] = {"require_serial": True}
        if self.every:
            options.update(always_run=True)
        elif not self.per_file:
            options.update(pass_filenames=False, always_run=True)
        return options


EVERY = Hook("apm-checks", "the memory breaks any of the checks (all in one hook, one process per commit)",
             per_file=True, every=True)


def alias(check: Check) -> Hook:
    """The hook of one check's own id: `apm-checks` restricted to it, with the options it always had."""
    return Hook(check.id, f"{check.description} (`apm-checks` restricted to this check)",
                per_file=check.per_file, files=check.files)


def manifest_hook(hook: Hook) -> dict[str, object]:
    """The hook as `.pre-commit-hooks.yaml` declares it (language: python: try-repo builds an environment)."""
    files = {"files": f"(^|/){hook.files}"} if hook.files else {}
    return {"id": hook.id, "name": hook.id, "description": f"apm-git: fails when {hook.description}",
            "entry": f"{RUNNER} {hook.id}", "language": "python", **files, **hook.options()}


def local_hook(hook: Hook, memory_dir: str, command: str = RUNNER) -> dict[str, object]:
    """The hook as `apm-git init` writes it: `repo: local`, `language: system`, so it runs offline.

    `files:` names the memory dir and apm.yaml.  `apm-checks` keeps `always_run` (pre-commit hands hooks
    no deleted path, so a commit that only deletes memory files would reach no hook otherwise); its
    command then returns at once, before starting apm-git, when no memory path is staged (see
    `apm_git.operations.precommit.hook_command`), so a teammate's commit of code alone needs no apm-git."""
    memory = f"^{_escape(memory_dir)}/"
    files = f"{memory}{hook.files}" if hook.files else f"^({_escape(memory_dir)}/|apm\\.yaml$)"
    return {"id": hook.id, "name": hook.id, "entry": f"{command} {hook.id}", "language": "system", "files": files,
            **hook.options()}


def _escape(text: str) -> str:
    return "".join("\\" + char if char in ".^$*+?{}[]\\|()" else char for char in text)
