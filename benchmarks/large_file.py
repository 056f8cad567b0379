#!/usr/bin/env python3
"""A 50 MB memory file: wall time and peak memory of `flush`, `load --intent debug`, `lint` and more.

    python benchmarks/large_file.py [--mb 50] [--repeat 5] [--workdir DIR]

Builds a fresh `apm-git init --no-install` repository and writes `memory/lessons.md` of the given
size in the record format (about 330 bytes a record).  Each step runs as its own process, timed
with `perf_counter`; its peak memory is the `ru_maxrss` that `os.wait4` reports for that process
(its git children included).  Targets (issue 13): `flush` and `load` at most 1 s and 200 MB each,
`lint` of the file at most 3 s.  Not part of the test suite.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

APM = (str(Path(sys.executable).parent / "apm-git"),)
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "APM_GIT_NOW": "2026-12-01",
}
WORDS = ["redis", "cache", "token", "refresh", "race", "deploy", "proxy", "timeout", "worker", "queue", "retry",
         "schema", "migration", "lock", "index", "budget", "flush", "journal", "agent", "memory", "session", "hook",
         "commit", "branch", "merge", "conflict"]
TIME = "/usr/bin/time"


def write_lessons(path: Path, megabytes: float, seed: int = 1) -> int:
    """`path` filled with records up to `megabytes`; returns the number of records."""
    rnd = random.Random(seed)
    size = int(megabytes * 1024 * 1024)
    parts, total, count = ["# Lessons\n\n"], 11, 0
    first = dt.date(2025, 1, 1)
    while total < size:
        count += 1
        day = first + dt.timedelta(days=count % 600)
        title = " ".join(rnd.choice(WORDS) for _ in range(5)) + f" {count}"
        body = " ".join(rnd.choice(WORDS) for _ in range(25))
        record = (f"## [{day}] {title}\n- Tags: lesson, {rnd.choice(WORDS)}\n"
                  f"- Fitness: last_referenced={day}, hit_count={count % 7}, decision_value=MEDIUM\n"
                  f"- Body: {body}.\n\n")
        parts.append(record)
        total += len(record)
    path.write_text("".join(parts), encoding="utf-8")
    return count


def measure(args: Sequence[str], cwd: Path) -> tuple[float, int, int]:
    """(seconds, peak RSS in KB, exit code) of one process (its git children included).

    The peak comes from GNU time when it is there: a child forked from this process would
    start with this process's own memory counted in its peak.
    """
    if Path(TIME).exists():
        with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
            start = time.perf_counter()
            proc = subprocess.run((TIME, "-o", out.name, "-f", "%M", *args), cwd=cwd, env=ENV,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            elapsed = time.perf_counter() - start
            peak = int(out.read().strip().splitlines()[-1])
        return elapsed, peak, proc.returncode
    start = time.perf_counter()
    child = subprocess.Popen(args, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss, child.returncode


def git(root: Path, *args: str) -> None:
    subprocess.run(("git", *args), cwd=root, env=ENV, check=True, capture_output=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mb", type=float, default=50.0, help="size of memory/lessons.md (default 50)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per step (default 5)")
    parser.add_argument("--workdir", type=Path, help="where to build the repository (default: a temp dir)")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="apm-git-large-"))
    root = workdir / "mem"
    if root.exists():
        shutil.rmtree(root)
    subprocess.run((*APM, "init", "--no-install", str(root)), env=ENV, check=True, capture_output=True)
    lessons = root / "memory" / "lessons.md"
    template = lessons.read_bytes()
    records = write_lessons(lessons, args.mb)
    big = lessons.read_bytes()
    journal = root / "memory" / "2026-12-01.md"

    def uncommitted() -> None:  # the big file as an uncommitted edit (the state a flush meets)
        git(root, "reset", "-q", "--hard", "HEAD")
        lessons.write_bytes(big)

    def committed() -> None:  # the big file already in HEAD (committed by plain git), a journal edit
        journal.write_text(f"# Journal 2026-12-01\n\nnote {time.perf_counter_ns()}\n", encoding="utf-8")

    steps: list[tuple[str, Sequence[str], Callable[[], None] | None, str]] = [
        ("flush, 50 MB file uncommitted", (*APM, "flush"), uncommitted, "<= 1 s, 200 MB"),
        ("load --intent debug", (*APM, "load", "--intent", "debug"), None, "<= 1 s, 200 MB"),
        ("lint memory/lessons.md", (*APM, "lint", "memory/lessons.md"), None, "<= 3 s"),
        ("lint --all", (*APM, "lint", "--all"), None, ""),
        ("status", (*APM, "status"), None, ""),
        ("search redis cache", (*APM, "search", "redis cache"), None, ""),
    ]
    print(f"# apm-git with a {len(big) / 2**20:.1f} MB memory/lessons.md ({records:,} records), "
          f"repeat={args.repeat}, Python {sys.version.split()[0]}")
    print(f"{'step':<36} {'median s':>9} {'max s':>7} {'peak MB':>8}  exit  target")

    def report(name: str, command: Sequence[str], prepare: Callable[[], None] | None, target: str) -> None:
        times, peaks, codes = [], [], set()
        for _ in range(args.repeat):
            if prepare is not None:
                prepare()
            elapsed, peak, code = measure(command, root)
            times.append(elapsed)
            peaks.append(peak)
            codes.add(code)
        print(f"{name:<36} {statistics.median(times):9.3f} {max(times):7.3f} {max(peaks) / 1024:8.1f}  "
              f"{','.join(map(str, sorted(codes))):<4}  {target}")

    for name, command, prepare, target in steps:
        report(name, command, prepare, target)
    # The same file committed by plain git: later flushes must not read it either.
    lessons.write_bytes(big)
    git(root, "add", "--", "memory/lessons.md")
    git(root, "commit", "-q", "--no-verify", "-m", "a 50 MB file, committed by hand")
    report("flush, 50 MB file in HEAD, journal edit", (*APM, "flush"), committed, "<= 1 s, 200 MB")
    report("load --intent debug, file in HEAD", (*APM, "load", "--intent", "debug"), None, "<= 1 s, 200 MB")
    lessons.write_bytes(template)
    git(root, "commit", "-qam", "back to the template")
    journal.unlink(missing_ok=True)
    report("flush, no large file (baseline)", (*APM, "flush"), committed, "")
    if args.workdir is None:
        shutil.rmtree(workdir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
