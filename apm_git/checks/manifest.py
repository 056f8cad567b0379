"""The hook ids and how pre-commit runs them; the source of `.pre-commit-hooks.yaml`.

Seven hooks, one per check, and `apm-checks`, which runs all seven in one hook: the one `apm-git
init` writes (docs/hook-entry.md, "One hook or seven").

Imported by the hook entry point on every commit, so it imports nothing.
"""
from __future__ import annotations

ENTRY = "apm-git-hook"  # the sh script: answers six of seven separate hooks from the stored findings
RUNNER = "apm-git-hook-run"  # the Python runner, which `apm-checks` starts directly


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

    @property
    def program(self) -> str:
        """What the hook runs: one hook has nothing to share with another, so no script before Python."""
        return RUNNER if self.every else ENTRY

    def options(self) -> dict[str, object]:
        """The pre-commit options of this hook, shared by the manifest and the config `init` writes."""
        options: dict[str, object] = {"require_serial": True}
        if self.every:
            options.update(always_run=True)
        elif not self.per_file:
            options.update(pass_filenames=False, always_run=True)
        return options


HOOKS = (
    Hook("apm-budget", "a memory file is over its line budget", per_file=True),
    Hook("apm-record-format", "a record breaks the record format, or an entry id is not unique", per_file=True),
    Hook("apm-append-only", "an append-only index lost or reworded a line, or was deleted", per_file=False),
    Hook("apm-no-loss", "an entry vanished: not live, archived, merged or superseded anywhere", per_file=False),
    Hook("apm-index-fresh", "INDEX.md names a missing file, misses one, or is malformed", per_file=False),
    Hook("apm-state-json", "flush-state.json or group_names.json is invalid or names an unsafe group", per_file=True,
         files=r"(flush-state|group_names)\.json$"),
    Hook("apm-no-secrets", "a memory file holds something that looks like a credential", per_file=True),
)
HOOK_IDS = tuple(hook.id for hook in HOOKS)
PER_FILE = frozenset(hook.id for hook in HOOKS if hook.per_file)
EVERY = Hook("apm-checks", "the memory breaks any of the seven checks (all seven in one hook, one process per commit)",
             per_file=True, every=True)
MANIFEST = (*HOOKS, EVERY)


def manifest_hook(hook: Hook) -> dict[str, object]:
    """The hook as `.pre-commit-hooks.yaml` declares it (language: python: try-repo builds an environment)."""
    files = {"files": f"(^|/){hook.files}"} if hook.files else {}
    return {
        "id": hook.id,
        "name": hook.id,
        "description": f"apm-git: fails when {hook.description}",
        "entry": f"{hook.program} {hook.id}",
        "language": "python",
        **files,
        **hook.options(),
    }


def local_hook(hook: Hook, memory_dir: str, command: str | None = None) -> dict[str, object]:
    """The hook as `apm-git init` writes it: `repo: local`, `language: system`, so it runs offline.

    `files:` names the memory dir and apm.yaml.  A hook that needs deletions and renames keeps
    `always_run` (pre-commit hands hooks no deleted path, so a commit that only deletes memory files
    would reach no hook otherwise); its command then returns at once, before starting apm-git, when no
    memory path is staged (see `apm_git.operations.precommit.hook_command`), so a teammate's commit of
    code alone needs no apm-git."""
    command = hook.program if command is None else command
    memory = f"^{_escape(memory_dir)}/"
    files = f"{memory}{hook.files}" if hook.files else f"^({_escape(memory_dir)}/|apm\\.yaml$)"
    return {"id": hook.id, "name": hook.id, "entry": f"{command} {hook.id}", "language": "system", "files": files,
            **hook.options()}


def _escape(text: str) -> str:
    return "".join("\\" + char if char in ".^$*+?{}[]\\|()" else char for char in text)
