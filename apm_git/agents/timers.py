"""`apm-git hooks install|uninstall timer`: the idle flush and the hourly dream as systemd user timers
or crontab lines, so the seeds' 30-minute idle trigger runs without anyone writing cron by hand.

Each memory repository gets its own units (named by a digest of its path) or its own marked crontab
lines, so two memories on one machine never replace each other, and uninstall removes one memory's.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from apm_git.errors import StateError
from apm_git.model.vocabulary import TimerKind

FLUSH_EVERY_MINUTES = 5  # the flush itself waits for flush.idle_minutes of quiet (--if-idle)
SNAPSHOT_EVERY_MINUTES = 10  # tracked folders: what changed between sessions (docs/tracking.md)
ENV_CRONTAB_FILE = "APM_GIT_CRONTAB_FILE"  # a file that stands for the user's crontab (tests, or no cron)
MARK = "# apm-git timer for "
UNIT_TIMER = re.compile(r"apm-git-(flush|dream|snapshot)-[0-9a-f]{8}\.timer")


def executable() -> str:
    """apm-git's full path: cron and systemd run with a PATH of their own."""
    beside = Path(sys.executable).parent / "apm-git"
    if beside.is_file():
        return str(beside)
    return shutil.which("apm-git") or "apm-git"


def jobs(memory: Path) -> dict[str, str]:
    """The jobs of a memory repository; for apm-git's folder of tracked histories (`--tracked`), the snapshot of
    every tracked folder."""
    if _is_tracked_home(memory):
        return {"snapshot": f"{shlex.quote(executable())} snapshot --all --trigger timer"}
    base = f"{shlex.quote(executable())} --repo {shlex.quote(str(memory))}"
    return {"flush": f"{base} flush --trigger idle --if-idle", "dream": f"{base} dream"}


def _is_tracked_home(path: Path) -> bool:
    from apm_git.store.tracked import home

    return path == home()


def digest(memory: Path) -> str:
    return hashlib.sha256(str(memory).encode("utf-8", "surrogateescape")).hexdigest()[:8]


@dataclasses.dataclass
class TimerResult:
    kind: TimerKind
    where: str
    changed: list[str]  # files written or removed, or crontab lines added or removed
    next_step: str | None = None


def systemd_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user"


def systemd_units(memory: Path) -> dict[str, str]:
    tag = digest(memory)
    commands = jobs(memory)
    when = {"flush": f"OnCalendar=*:0/{FLUSH_EVERY_MINUTES}", "dream": "OnCalendar=hourly",
            "snapshot": f"OnCalendar=*:0/{SNAPSHOT_EVERY_MINUTES}"}
    what = {"flush": "idle flush", "dream": "dream (deep sleep and REM when due)", "snapshot": "snapshot"}
    units = {}
    for job, command in commands.items():
        name = f"apm-git-{job}-{tag}"
        units[f"{name}.service"] = (
            f"[Unit]\nDescription=apm-git {what[job]} of {memory}\n\n"
            f"[Service]\nType=oneshot\nExecStart={command}\n"
        )
        units[f"{name}.timer"] = (
            f"[Unit]\nDescription=apm-git {what[job]} of {memory}\n\n"
            f"[Timer]\n{when[job]}\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n"
        )
    return units


def install_systemd(memory: Path) -> TimerResult:
    folder = systemd_dir()
    written = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in systemd_units(memory).items():
            path = folder / name
            if path.is_file() and path.read_text(encoding="utf-8") == text:
                continue
            path.write_text(text, encoding="utf-8")
            written.append(str(path))
    except OSError as error:
        from apm_git.errors import OsFailure

        raise OsFailure.of(error) from None
    timers = " ".join(name for name in systemd_units(memory) if name.endswith(".timer"))
    return TimerResult("systemd", str(folder), written,
                       f"systemctl --user daemon-reload && systemctl --user enable --now {timers}")


def uninstall_systemd(memory: Path) -> TimerResult:
    folder = systemd_dir()
    removed = []
    for name in systemd_units(memory):
        path = folder / name
        if path.is_file():
            path.unlink()
            removed.append(str(path))
    timers = " ".join(name for name in systemd_units(memory) if name.endswith(".timer"))
    step = f"systemctl --user disable --now {timers}; systemctl --user daemon-reload" if removed else None
    return TimerResult("systemd", str(folder), removed, step)


def cron_lines(memory: Path) -> list[str]:
    commands = jobs(memory)
    mark = f"{MARK}{memory}"
    if "snapshot" in commands:
        return [f"*/{SNAPSHOT_EVERY_MINUTES} * * * * {commands['snapshot']} >/dev/null 2>&1 {mark}"]
    return [f"*/{FLUSH_EVERY_MINUTES} * * * * {commands['flush']} >/dev/null 2>&1 {mark}",
            f"7 * * * * {commands['dream']} >/dev/null 2>&1 {mark}"]


def read_crontab() -> str:
    target = os.environ.get(ENV_CRONTAB_FILE)
    if target:
        try:
            return Path(target).read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
    if shutil.which("crontab") is None:
        raise StateError(f"crontab is not installed; use --systemd, or set {ENV_CRONTAB_FILE} to a file that your "
                         "cron reads")
    proc = subprocess.run(("crontab", "-l"), capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        if "no crontab" in proc.stderr.lower():
            return ""
        raise StateError(f"`crontab -l` failed: {proc.stderr.strip() or proc.returncode}; fix cron, then retry")
    return proc.stdout


def write_crontab(text: str) -> None:
    target = os.environ.get(ENV_CRONTAB_FILE)
    if target:
        Path(target).write_text(text, encoding="utf-8")
        return
    proc = subprocess.run(("crontab", "-"), input=text, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise StateError(f"`crontab -` refused the new table: {proc.stderr.strip()}; your crontab is unchanged")


def where_cron() -> str:
    return os.environ.get(ENV_CRONTAB_FILE) or "the user's crontab"


def install_cron(memory: Path) -> TimerResult:
    text = read_crontab()
    present = text.splitlines()
    wanted = cron_lines(memory)
    mark = f"{MARK}{memory}"
    kept = [line for line in present if not line.endswith(mark)]
    if [line for line in present if line.endswith(mark)] == wanted:
        return TimerResult("cron", where_cron(), [])
    body = "\n".join(kept)
    write_crontab((body + "\n" if body else "") + "\n".join(wanted) + "\n")
    return TimerResult("cron", where_cron(), wanted)


def uninstall_cron(memory: Path) -> TimerResult:
    text = read_crontab()
    mark = f"{MARK}{memory}"
    lines = text.splitlines(keepends=True)
    ours = [line for line in lines if line.rstrip("\n").endswith(mark)]
    if ours:
        write_crontab("".join(line for line in lines if line not in ours))
    return TimerResult("cron", where_cron(), [line.rstrip("\n") for line in ours])


@dataclasses.dataclass
class FoundTimer:
    """One installed job, as `hooks status` reports it."""

    kind: TimerKind
    where: str
    job: str  # "flush" or "dream"
    command: str
    problem: str | None  # None: it will run; else what is wrong and the fix


def _program_problem(command: str) -> str | None:
    try:
        program = shlex.split(command)[0]
    except (ValueError, IndexError):
        return "no command to run: run `apm-git hooks install timer` again"
    if Path(program).is_file() if os.sep in program else shutil.which(program):
        return None
    return f"{program} does not exist any more: run `apm-git hooks install timer` again"


def found_systemd() -> list[FoundTimer]:
    """apm-git's timer units in the user's systemd folder; a timer not enabled never runs."""
    folder = systemd_dir()
    try:
        names = sorted(path.name for path in folder.iterdir())
    except OSError:
        return []
    units = [match for match in map(UNIT_TIMER.fullmatch, names) if match]
    found = []
    for unit in units:
        name = unit[0]
        service = name.removesuffix(".timer") + ".service"
        try:
            text = (folder / service).read_text(encoding="utf-8")
        except OSError:
            text = ""
        command = next((line[len("ExecStart="):] for line in text.splitlines() if line.startswith("ExecStart=")), "")
        problem = (f"{service} is missing: run `apm-git hooks install timer --systemd` again" if not command
                   else _program_problem(command))
        if problem is None and not (folder / "timers.target.wants" / name).exists():
            problem = f"not enabled: run `systemctl --user daemon-reload && systemctl --user enable --now {name}`"
        found.append(FoundTimer("systemd", str(folder / name), unit[1], command, problem))
    return found


def found_cron() -> list[FoundTimer]:
    """apm-git's lines in the crontab (none where there is no crontab to read)."""
    try:
        table = read_crontab()
    except StateError:
        return []
    found = []
    for line in table.splitlines():
        if MARK not in line or line.lstrip().startswith("#"):
            continue
        command = line.split(" ", 5)[-1].split(" >/dev/null")[0]
        job = "dream" if command.endswith(" dream") else "snapshot" if " snapshot --all" in command else "flush"
        found.append(FoundTimer("cron", where_cron(), job, command, _program_problem(command)))
    return found
