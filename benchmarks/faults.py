"""The fault suite: kill apm-git at every write and rename point and at random moments; nothing may be lost.

    .venv/bin/python benchmarks/faults.py       # every point of the four commands, 30 random kills each
    .venv/bin/python benchmarks/faults.py --commands deep-sleep --syscalls rename --random 0

Each run copies a prepared memory repository, runs one real `apm-git COMMAND` process and kills it
with SIGKILL: at one syscall of the apm-git process, injected by `strace -e inject=SYSCALL:signal=
SIGKILL:when=N` (the kill points: every rename, unlink, write, fsync and opening for writing of a
file in the repository, found by tracing one undisturbed run), or after a random delay (seeded).
Then the next command, `apm-git flush`, runs, and the checks hold: every entry id present before is
live, archived, merged or superseded in the work tree or HEAD (before and after the next `dream`),
`git fsck` is clean, no temporary file is tracked, no commit journal is left, and `apm-git dream`
exits 0.

Only the apm-git process is killed (strace without -f, `kill -9 PID`): its git children, if any is
running, finish what they do, as they would after a real `kill -9`.  The tests in
tests/e2e/test_faults.py run parts of this; the figures in benchmarks/README.md come from all of it.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

APM = (str(Path(sys.executable).parent / "apm-git"),)
NOW = "2026-06-01T09:00:00+00:00"
LATER = "2026-06-20T09:00:00+00:00"  # when the next dream runs: both stages due again
COMMANDS = ("flush", "deep-sleep", "rem", "dream")
SYSCALLS = ("rename", "renameat", "renameat2", "unlink", "unlinkat", "openat", "write", "fsync")
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT")
TEMPORARY = re.compile(r"\.apm-tmp$|\.tmp$")
ENTRY_ID = re.compile(r"\b\d{4}-\d{2}-\d{2}-[a-z0-9][a-z0-9-]*")
IDENTITY = {
    "GIT_AUTHOR_NAME": "fault", "GIT_AUTHOR_EMAIL": "fault@example.invalid",
    "GIT_COMMITTER_NAME": "fault", "GIT_COMMITTER_EMAIL": "fault@example.invalid",
}


def env(now: str = NOW) -> dict[str, str]:
    return {**os.environ, **IDENTITY, "APM_GIT_NOW": now, "PYTHONHASHSEED": "0", "APM_GIT_LOCK_TIMEOUT": "10"}


def record(day: str, title: str, kind: str = "decision", *, last: str | None = None, hits: int = 0,
           value: str = "MEDIUM", body: str | None = None) -> str:
    return (f"## [{day}] {title}\n- Tags: {kind}\n"
            f"- Fitness: last_referenced={last or day}, hit_count={hits}, decision_value={value}\n"
            f"- Body: {body or title}\n\n")


def _file(title: str, *records: str) -> str:
    return f"# {title}\n\n" + "".join(records)


# The memory every run starts from: deep sleep promotes from two journals and moves two old ones; REM
# archives, marks proven, folds a duplicate, supersedes, and moves the old journals too.
MEMORY = {
    "decisions.md": _file(
        "Decisions",
        record("2026-01-10", "Old server config", value="LOW", last="2026-01-10"),
        record("2026-01-12", "Old proxy choice", value="LOW", last="2026-01-12"),
        record("2026-05-02", "Cache keys", hits=6, last="2026-05-30"),
        record("2026-04-01", "Deploy on Fridays", body="Deploys happen on Fridays.", last="2026-05-20"),
        record("2026-05-25", "Deploy on Fridays", body="Never deploy on Fridays.", last="2026-05-30"),
        *(record("2026-05-20", f"Healthy decision {n}", last="2026-05-30", hits=1) for n in range(10)),
    ),
    "lessons.md": _file(
        "Lessons",
        record("2026-05-10", "Retry the flaky test", "lesson", last="2026-05-28", hits=2),
        record("2026-05-12", "Retry the flaky test", "lesson", last="2026-05-12", hits=1),
        record("2026-02-01", "Stale lesson", "lesson", value="LOW", last="2026-02-01"),
    ),
    "2026-05-30.md": _file(
        "Journal 2026-05-30",
        record("2026-05-30", "Token refresh race", "lesson"),
        record("2026-05-30", "Use Redis for sessions", value="HIGH"),
        record("2026-05-30", "Ask Carol about quotas", "pending"),
    ),
    "2026-05-31.md": _file(
        "Journal 2026-05-31",
        record("2026-05-31", "Pin the linter version", "tool", value="HIGH"),
        record("2026-05-31", "Alice prefers short PRs", "person", value="HIGH"),
        record("2026-05-31", "Timeouts hide deadlocks", "lesson"),
    ),
    "2026-05-01.md": _file("Journal 2026-05-01", record("2026-05-01", "Ask Bob", "pending")),
    "2026-05-02.md": _file("Journal 2026-05-02", record("2026-05-02", "Check the backups", "pending")),
}
# Uncommitted when the command starts (flush commits them; dream flushes them first).
UNCOMMITTED = {
    "2026-06-01.md": _file("Journal 2026-06-01", record("2026-06-01", "Flaky DNS on CI", "lesson"),
                           record("2026-06-01", "Prefer uv for envs", "tool", value="HIGH")),
    "people.md": _file("People", record("2026-06-01", "Dana owns billing", "person")),
}
UNCOMMITTED_FOR = {"flush": True, "deep-sleep": False, "rem": False, "dream": True}


def run(args: Sequence[str], cwd: Path, *, now: str = NOW, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(tuple(args), cwd=cwd, env=env(now), capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc


def prepare(folder: Path, command: str) -> Path:
    """A memory repository where `command` has work to do (made with apm-git itself)."""
    root = folder / f"template-{command}"
    run((*APM, "init", "--no-install", str(root)), folder)
    for name, text in MEMORY.items():
        (root / "memory" / name).write_text(text, encoding="utf-8")
    run((*APM, "flush", "-m", "the memory every fault run starts from"), root)
    if UNCOMMITTED_FOR[command]:
        for name, text in UNCOMMITTED.items():
            (root / "memory" / name).write_text(text, encoding="utf-8")
    _settle(root)
    return root


def _settle(root: Path) -> None:
    """Date the work tree's files a minute back.  A file changed within the last two seconds is not cached
    (apm_git/store/memory_index.py, RACY_NS), so a run right after `prepare` makes fewer writes than one a
    moment later, and how long "a moment" is depends on the machine's load.  The kill points are counted in
    one run and used in another: both must make the same writes, or `rename#N` names another rename."""
    past = time.time() - 60
    for path in root.rglob("*"):
        if ".git" not in path.relative_to(root).parts and path.is_file() and not path.is_symlink():
            os.utime(path, (past, past))
    git(root, "update-index", "-q", "--refresh")  # the index's stat data, as after a `git status`


def copy(template: Path, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(template, target, symlinks=True)
    return target


def git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(("git", *args), cwd=root, env=env(), capture_output=True, check=False)


def ids_in(text: str) -> set[str]:
    """The entry ids a memory file holds: its records, and the ids its Merged and Supersedes fields name."""
    found = set()
    for line in text.splitlines():
        header = re.match(r"## \[(\d{4}-\d{2}-\d{2})\] (?:\[PROVEN\] )?(.+)", line)
        if header:
            found.add(f"{header.group(1)}-{slug(header.group(2))}")
        elif line.startswith(("- Merged:", "- Supersedes:")):
            found.update(ENTRY_ID.findall(line))
    return found


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def census(root: Path) -> set[str]:
    """Every entry id in the work tree's memory files and in HEAD's."""
    found: set[str] = set()
    for path in (root / "memory").rglob("*.md"):
        if not TEMPORARY.search(path.name):
            found |= ids_in(path.read_text(encoding="utf-8", errors="replace"))
    listing = git(root, "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", "memory").stdout.split(b"\0")
    names = [name.decode() for name in listing if name.endswith(b".md")]
    if names:
        stdin = "".join(f"HEAD:{name}\n" for name in names).encode()
        blobs = subprocess.run(("git", "cat-file", "--batch"), cwd=root, input=stdin, capture_output=True,
                               check=True).stdout
        found |= ids_in(blobs.decode("utf-8", "replace"))
    return found


@dataclasses.dataclass(frozen=True)
class Point:
    """The `ordinal`-th call of `syscall` by the apm-git process, and what it touched."""

    syscall: str
    ordinal: int
    what: str

    def __str__(self) -> str:
        return f"{self.syscall}#{self.ordinal} {self.what}"


def strace_works() -> str | None:
    """Why the strace kill points cannot run here, or None when they can."""
    if shutil.which("strace") is None:
        return "strace is not installed (apt-get install strace)"
    proc = subprocess.run(("strace", "-qq", "-o", os.devnull, "true"), capture_output=True, check=False)
    if proc.returncode != 0:
        return f"strace cannot trace here: {proc.stderr.decode(errors='replace').strip()[:200]}"
    return None


_CALL = re.compile(r"^(?P<name>[a-z0-9_]+)\((?P<args>.*)")


def kill_points(template: Path, command: str, work: Path, syscalls: Sequence[str] = SYSCALLS) -> list[Point]:
    """Every syscall of one undisturbed `apm-git COMMAND` that writes, renames or removes a repository file."""
    root = copy(template, work / "trace")
    log = work / "trace.log"
    run(("strace", "-qq", "-y", "-s", "0", "-o", str(log), "-e", f"trace={','.join(syscalls)}", "--",
         *APM, command), root)
    counts: dict[str, int] = {}
    points = []
    prefix = str(root) + "/"
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        match = _CALL.match(line)
        if match is None:
            continue
        name, args = match.group("name"), match.group("args")
        counts[name] = counts.get(name, 0) + 1
        if prefix not in args:
            continue
        if name == "openat" and not any(flag in args for flag in WRITE_FLAGS):
            continue
        if name in ("write", "fsync") and not args.startswith(tuple(f"{fd}<{prefix}" for fd in range(3, 1024))):
            continue
        touched = args[args.index(prefix) + len(prefix):].split(">", 1)[0].split('"', 1)[0]
        points.append(Point(name, counts[name], touched))
    return points


@dataclasses.dataclass
class Outcome:
    command: str
    how: str  # the kill point, or the random delay
    killed: bool
    entries: int  # entry ids present before the run
    lost: list[str] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)
    finished: bool = False  # the next command finished an interrupted commit


def run_point(template: Path, command: str, point: Point, root: Path) -> Outcome:
    copy(template, root)
    before = census(root)
    name = point.syscall
    proc = subprocess.run(
        ("strace", "-qq", "-o", os.devnull, "-e", f"trace={name}", "-e",
         f"inject={name}:signal=SIGKILL:when={point.ordinal}", "--", *APM, command),
        cwd=root, env=env(), capture_output=True, check=False,
    )
    return check(root, command, str(point), proc.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL), before)


def run_random(template: Path, command: str, delay: float, root: Path) -> Outcome:
    copy(template, root)
    before = census(root)
    process = subprocess.Popen((*APM, command), cwd=root, env=env(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(delay)
    killed = process.poll() is None
    if killed:
        os.kill(process.pid, signal.SIGKILL)
    process.wait()
    _wait_for_group(process.pid)  # its git children finish what they were doing, as after a real kill -9
    return check(root, command, f"after {delay * 1000:.0f} ms", killed, before)


def _wait_for_group(pgid: int) -> None:
    for _ in range(500):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.01)


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def check(root: Path, command: str, how: str, killed: bool, before: set[str]) -> Outcome:
    """The next command runs; nothing may be lost, and the repository must be sound."""
    outcome = Outcome(command, how, killed, len(before))
    following = run((*APM, "flush"), root, check=False)
    outcome.finished = "finished `" in following.stderr
    if following.returncode != 0:
        outcome.problems.append(f"the next flush exited {following.returncode}: {_last_line(following.stderr)}")
    outcome.lost = sorted(before - census(root))
    if (root / ".git" / "apm-git" / "commit-journal.json").exists():
        outcome.problems.append("the commit journal is still there after the next flush")
    fsck = git(root, "fsck", "--no-progress")
    bad = [line for line in fsck.stdout.decode().splitlines() + fsck.stderr.decode().splitlines()
           if not line.startswith(("dangling ", "notice: HEAD points to an unborn"))]
    if fsck.returncode != 0 or bad:
        outcome.problems.append(f"git fsck: {'; '.join(bad)[:300]}")
    tracked = git(root, "ls-files", "-z").stdout.decode().split("\0")
    committed = git(root, "ls-tree", "-r", "-z", "--name-only", "HEAD").stdout.decode().split("\0")
    temporary = sorted({name for name in tracked + committed if TEMPORARY.search(name)})
    if temporary:
        outcome.problems.append(f"temporary files tracked: {', '.join(temporary)}")
    dream = run((*APM, "dream"), root, now=LATER, check=False)
    if dream.returncode != 0:
        outcome.problems.append(f"the next dream exited {dream.returncode}: {_last_line(dream.stderr)}")
    outcome.lost = sorted(set(outcome.lost) | (before - census(root)))
    return outcome


def sweep(
    commands: Sequence[str], syscalls: Sequence[str], randoms: int, seed: int, work: Path,
) -> Iterator[Outcome]:
    rng = random.Random(seed)
    for command in commands:
        template = prepare(work, command)
        if syscalls:
            for number, point in enumerate(kill_points(template, command, work, syscalls)):
                yield run_point(template, command, point, work / f"{command}-point-{number}")
        if randoms:
            started = time.perf_counter()
            run((*APM, command), copy(template, work / "timing"))
            span = time.perf_counter() - started
            for number in range(randoms):
                yield run_random(template, command, rng.uniform(0, span), work / f"{command}-random-{number}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--commands", default=",".join(COMMANDS))
    parser.add_argument("--syscalls", default=",".join(SYSCALLS), help="comma-separated; empty: no strace points")
    parser.add_argument("--random", type=int, default=30, help="random-moment kills per command")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    syscalls = [name for name in args.syscalls.split(",") if name]
    if syscalls and (why := strace_works()):
        print(f"strace kill points skipped: {why}", file=sys.stderr)
        syscalls = []
    started = time.perf_counter()
    totals: dict[str, list[Outcome]] = {}
    with tempfile.TemporaryDirectory(prefix="apm-faults-") as folder:
        for outcome in sweep(args.commands.split(","), syscalls, args.random, args.seed, Path(folder)):
            totals.setdefault(outcome.command, []).append(outcome)
            if outcome.lost or outcome.problems:
                print(f"FAIL {outcome.command} {outcome.how}: lost {outcome.lost} {outcome.problems}", file=sys.stderr)
    report(totals)
    print(f"total time {time.perf_counter() - started:.0f}s (seed {args.seed})")
    failed = any(o.lost or o.problems for outcomes in totals.values() for o in outcomes)
    return 1 if failed else 0


def report(totals: dict[str, list[Outcome]]) -> None:
    """One row per command and way of killing; the strace rows count their kill points by syscall."""
    print(f"{'command':<11} {'kill':<7} {'runs':>5} {'killed':>7} {'finished':>9} {'entries':>8} {'lost':>5} "
          f"{'problems':>9}  kill points")
    everything = [outcome for outcomes in totals.values() for outcome in outcomes]
    for command, outcomes in [*totals.items(), ("all", everything)]:
        for kind in ("strace", "random"):
            rows = [o for o in outcomes if o.how.startswith("after ") == (kind == "random")]
            if not rows:
                continue
            calls: dict[str, int] = {}
            for row in rows if kind == "strace" else []:
                name = row.how.split("#", 1)[0]
                calls[name] = calls.get(name, 0) + 1
            points = ", ".join(f"{name} {count}" for name, count in sorted(calls.items()))
            print(f"{command:<11} {kind:<7} {len(rows):>5} {sum(o.killed for o in rows):>7} "
                  f"{sum(o.finished for o in rows):>9} {max(o.entries for o in rows):>8} "
                  f"{sum(len(o.lost) for o in rows):>5} {sum(len(o.problems) for o in rows):>9}  {points}")


if __name__ == "__main__":
    raise SystemExit(main())
