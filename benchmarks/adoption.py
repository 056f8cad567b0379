#!/usr/bin/env python3
"""Adopt each real workspace and time it: `apm-git init` in a fresh copy, then a `dream` 30 days later.

    python benchmarks/adoption.py [--cases DIR] [--repeat N]

The workspaces are `../shared/realworld/cases/` beside the repository (or --cases). Each figure is
the median wall time of separate `apm-git` processes, each on its own fresh copy (a plain folder, no
git yet): `init --no-install`, then `dream` with APM_GIT_NOW 30 days on (deep sleep and REM both
due; it flushes first). Prints a Markdown table for benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import datetime as dt
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import APM, median_of, run, timed  # noqa: E402

CASES = HERE.parent.parent / "shared" / "realworld" / "cases"


def held(case: Path) -> tuple[int, int]:
    """Files and lines of MEMORY.md and memory/ (what adoption commits)."""
    paths = [case / "MEMORY.md"] if (case / "MEMORY.md").is_file() else []
    paths += [path for path in (case / "memory").rglob("*") if path.is_file()] if (case / "memory").is_dir() else []
    return len(paths), sum(path.read_bytes().count(b"\n") for path in paths)


def fresh_copy(case: Path, into: Path) -> Path:
    if into.exists():
        shutil.rmtree(into)
    shutil.copytree(case, into, symlinks=True, ignore=shutil.ignore_patterns("SOURCE.txt"))
    return into


def measure(case: Path, workdir: Path, repeat: int) -> tuple[float, float]:
    later = (dt.date.today() + dt.timedelta(days=30)).isoformat()
    adopt, dream = [], []
    for round_ in range(repeat):
        root = fresh_copy(case, workdir / f"{case.name}-{round_}")
        adopt.append(timed((*APM, "init", "--no-install", str(root)), root))
        dream.append(timed((*APM, "dream"), root, APM_GIT_NOW=later))
        if run(("git", "status", "--porcelain", "--", "memory"), root).stdout.strip() and round_ == 0:
            print(f"# {case.name}: files left uncommitted (withheld as suspected secrets)", file=sys.stderr)
        shutil.rmtree(root)
    return median_of(adopt), median_of(dream)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=Path, default=CASES, help=f"the workspaces (default: {CASES})")
    parser.add_argument("--repeat", type=int, default=3, help="fresh copies per workspace (default 3)")
    args = parser.parse_args(argv)
    if not args.cases.is_dir():
        parser.error(f"{args.cases}: no such folder; pass --cases")
    print("| workspace | files | lines | adoption (`init`) | `dream` 30 days later |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="apm-git-adopt-") as tmp:
        for case in sorted(path for path in args.cases.iterdir() if path.is_dir()):
            files, lines = held(case)
            adopt, dream = measure(case, Path(tmp), args.repeat)
            print(f"| {case.name} | {files} | {lines:,} | {adopt:.2f} s | {dream:.2f} s |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
