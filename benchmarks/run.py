#!/usr/bin/env python3
"""Run apm-git's benchmarks on synthetic repositories and print one row per figure.

    python benchmarks/run.py [--only flush,hooks,...] [--repeat N] [--workdir DIR]

Every `bench_*.py` next to this file is a section with `SECTION` and `run_section(ctx)`.
Times are wall-clock medians of separate processes, each against the baseline its issue names,
measured in the same run.
"""
from __future__ import annotations

import argparse
import compileall
import importlib
import platform
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import Context, Row, make_repos  # noqa: E402


def sections() -> dict[str, ModuleType]:
    found: dict[str, ModuleType] = {}
    for path in sorted(HERE.glob("bench_*.py")):
        module = importlib.import_module(path.stem)
        found[module.SECTION] = module
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", help="comma-separated sections (default: all)")
    parser.add_argument("--repeat", type=int, default=15, help="samples per timed step (default 15)")
    parser.add_argument("--workdir", type=Path, help="where to generate repositories (default: a temp dir)")
    args = parser.parse_args(argv)
    available = sections()
    wanted = args.only.split(",") if args.only else list(available)
    unknown = [name for name in wanted if name not in available]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(available)}")
    # An installed apm-git has its bytecode compiled (pip does it); an editable checkout under
    # PYTHONDONTWRITEBYTECODE=1 would recompile every module in every timed process instead.
    compileall.compile_dir(str(HERE.parent / "apm_git"), quiet=1)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="apm-git-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    ctx = Context(workdir, args.repeat, make_repos(workdir, ("small", "large")))
    print(f"# apm-git benchmarks: {platform.python_version()}, {platform.machine()}, repeat={args.repeat}")
    print(f"# repositories generated in {time.perf_counter() - started:.1f}s under {workdir}")
    print(f"{'section':<9} {'figure':<44} {'median':>9} {'baseline':>9} {'ratio':>7}  verdict / target")
    failed = False
    for name in wanted:
        rows: list[Row] = available[name].run_section(ctx)
        for row in rows:
            print(row.format(), flush=True)
            failed |= row.passed is False
    print(f"# total {time.perf_counter() - started:.1f}s")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
