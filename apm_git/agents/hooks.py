"""`apm-git hooks install|uninstall|status claude-code`: the operations behind the commands."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path

from apm_git.agents.claude_settings import PROGRAMS, RECALL_EVENT, Settings, commands, runs_apm_git, settings_path
from apm_git.errors import NotAMemoryRepo, UsageError
from apm_git.model.vocabulary import HookPlace

STATUS_SESSION = "apm-git-hooks-status"  # the session id of the synthetic payloads (audit ignores it)
STATUS_TIMEOUT = 60  # seconds per hook command
NOT_FOUND = 127


@dataclasses.dataclass
class InstallResult:
    path: str
    memory: str | None
    added: list[str]  # events whose hook was added or replaced
    written: bool
    notes: list[str] = dataclasses.field(default_factory=list)  # the user's own hooks that already run apm-git
    warnings: list[str] = dataclasses.field(default_factory=list)  # e.g. the PATH lacks apm-git


def install_claude_code(*, user: bool, project: Path, memory: Path | None, recall: bool,
                        memory_given_as: str = "--memory") -> InstallResult:
    from apm_git.store.repo import open_repo

    if memory is not None:
        memory = open_repo(memory, given_as=memory_given_as).root.resolve()
    elif not user:
        try:
            open_repo(project)
        except NotAMemoryRepo:
            raise UsageError(
                f"{project} is in no memory repository: give --memory PATH (a memory repository of its own), "
                "or run `apm-git init` here first when the memory belongs inside this project",
            ) from None
    settings = Settings.read(settings_path(user=user, project=project))
    programs, warnings = hook_programs()
    added, notes = settings.install(commands(memory, recall=recall, programs=programs))
    return InstallResult(str(settings.path), str(memory) if memory else None, added, settings.save(), notes, warnings)


def hook_programs() -> tuple[dict[str, str], list[str]]:
    """What the hook commands call apm-git by: its name when the PATH the hooks inherit finds it, else its
    absolute path (with a warning saying so).

    The hooks inherit the environment Claude Code was started in, usually the user's login PATH.  An
    apm-git found only in an activated virtualenv is not on it: Claude Code started from another terminal
    would not find it."""
    import shutil

    from apm_git.operations.precommit import installed_hook_script

    venv = os.environ.get("VIRTUAL_ENV")
    programs: dict[str, str] = {}
    for name in PROGRAMS:
        found = shutil.which(name)
        if found is not None and not (venv and Path(found).resolve().is_relative_to(Path(venv).resolve())):
            continue
        script = installed_hook_script(name)
        if script is not None:
            programs[name] = script
    if not programs:
        return {}, []
    where = programs.get("apm-git") or next(iter(programs.values()))
    why = "only in the active virtualenv" if venv and any(shutil.which(name) for name in programs) else \
        "not on this shell's PATH"
    return programs, [f"apm-git is {why}, which the agent's hooks may not share: the hooks call it by its full path "
                      f"({where}); run `apm-git hooks install` again if apm-git moves"]


@dataclasses.dataclass
class UninstallResult:
    path: str
    removed: list[str]
    written: bool


def uninstall_claude_code(*, user: bool, project: Path) -> UninstallResult:
    settings = Settings.read(settings_path(user=user, project=project))
    if settings.original is None:
        return UninstallResult(str(settings.path), [], False)
    removed = settings.uninstall()
    return UninstallResult(str(settings.path), removed, settings.save())


@dataclasses.dataclass
class HookCheck:
    event: str
    command: str
    passed: bool | None  # None: not run (`--no-run`, or a hook of the user's own)
    detail: str  # what it printed (first line), or the fix


@dataclasses.dataclass
class Location:
    where: HookPlace
    path: str
    exists: bool
    hooks: list[HookCheck]


def status_claude_code(*, project: Path, run: bool = True) -> list[Location]:
    """Where apm-git's hooks are installed, each command run once with a synthetic payload; the user's own
    hooks that call apm-git are listed, not run (a command of the user's may do more than apm-git's would)."""
    found = []
    places: tuple[tuple[HookPlace, bool], ...] = (("project", False), ("user", True))
    for where, user in places:
        settings = Settings.read(settings_path(user=user, project=project))
        checks = []
        for hook in settings.hooks():
            if hook.ours:
                checks.append(check_hook(hook.event, hook.command, project) if run
                              else HookCheck(hook.event, hook.command, None, "not run (--no-run)"))
            elif runs_apm_git(hook.command) is not None:
                checks.append(HookCheck(hook.event, hook.command, None,
                                        "your own hook (not written by `apm-git hooks install`): not run"))
        found.append(Location(where, str(settings.path), settings.original is not None, checks))
    return found


def status_timers() -> list[Location]:
    """The idle flush and dream timers installed for any memory (systemd units, crontab lines), each checked
    without running it: its program still exists, and a systemd timer is enabled."""
    from apm_git.agents import timers

    places = []
    for kind, where, found in (("systemd", str(timers.systemd_dir()), timers.found_systemd()),
                               ("cron", timers.where_cron(), timers.found_cron())):
        if found:
            checks = [HookCheck(item.job, item.command, item.problem is None,
                                item.problem or (f"ok: {Path(item.where).name} enabled" if kind == "systemd"
                                                 else "ok: in the crontab"))
                      for item in found]
            place: HookPlace = "timer (systemd)" if kind == "systemd" else "timer (cron)"
            places.append(Location(place, where, True, checks))
    return places


def synthetic_payload(event: str, project: Path) -> dict[str, str]:
    payload = {"session_id": STATUS_SESSION, "transcript_path": "", "cwd": str(project), "hook_event_name": event}
    extra = {"SessionStart": {"source": "startup"}, "PreCompact": {"trigger": "manual", "custom_instructions": ""},
             "SessionEnd": {"reason": "other"}, RECALL_EVENT: {"prompt": "hooks status check"}}
    return {**payload, **extra.get(event, {})}


def check_hook(event: str, command: str, project: Path) -> HookCheck:
    """Run the command as Claude Code does (a shell, the payload on stdin, the project as cwd)."""
    idle = idle_here(command, project)
    if idle is not None:
        return HookCheck(event, command, True, idle)
    try:
        proc = subprocess.run(
            ("/bin/sh", "-c", command), input=json.dumps(synthetic_payload(event, project)), text=True,
            capture_output=True, cwd=project, timeout=STATUS_TIMEOUT, check=False, env=os.environ.copy(),
        )
    except subprocess.TimeoutExpired:
        return HookCheck(event, command, False, f"took over {STATUS_TIMEOUT} s; Claude Code would cut it off: run "
                                                "it by hand to see where it hangs (a lock held by another process?)")
    if proc.returncode == NOT_FOUND:
        return HookCheck(event, command, False, "apm-git is not on the PATH that hooks see: run `apm-git hooks "
                                                "install` again from a shell that finds apm-git (it writes apm-git's "
                                                "full path when the PATH lacks it)")
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        return HookCheck(event, command, False,
                         f"exit {proc.returncode}: " + (lines[-1] if lines else "no message on stderr"))
    if event in ("SessionStart", RECALL_EVENT) and proc.stdout.strip():
        try:
            context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        except (json.JSONDecodeError, KeyError, TypeError):
            return HookCheck(event, command, False, "printed something that is not the hook JSON Claude Code reads: "
                                                    "use --format claude-hook")
        return HookCheck(event, command, True, f"ok: {len(context):,} characters of additionalContext")
    if event == RECALL_EVENT:
        return HookCheck(event, command, True, "ok: nothing matched the test prompt, so nothing was added")
    first = next((line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()), "ok")
    return HookCheck(event, command, True, first[:200])


def idle_here(command: str, project: Path) -> str | None:
    """Why the hook does nothing in `project` (no --repo, no APM_GIT_REPO, no memory there), or None."""
    from apm_git.agents.claude_settings import repo_of
    from apm_git.store.repo import ENV_REPO, open_repo

    if repo_of(command) is not None or os.environ.get(ENV_REPO):
        return None
    try:
        open_repo(project)
    except NotAMemoryRepo:
        return (f"does nothing here: no memory serves {project} (no apm.yaml); run `apm-git init` here, or install "
                "with --memory PATH, for this project to have one")
    return None
