"""Issue 12: `apm-git sync` with nothing to do, against the network round trip (`git ls-remote` alone).

The remote is a bare repository served by a real `git daemon` on 127.0.0.1, and the same one by
path.  The many-writers figures come from benchmarks/sync_writers.py (benchmarks/README.md).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from harness import APM, Context, Row, alternate, median_of, run, timed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.sync_helpers import git_daemon

SECTION = "sync"
TARGET_OVERHEAD = 0.3


def _measure(ctx: Context, preset: str, url_of: dict[str, str], kind: str) -> tuple[float, float]:
    root = ctx.fresh_copy(preset, f"sync-{kind}")
    subprocess.run(("git", "remote", "add", "origin", url_of[kind]), cwd=root, check=True)
    run((*APM, "sync"), root)  # the first sync pushes and sets the upstream
    branch = subprocess.run(("git", "symbolic-ref", "--short", "HEAD"), cwd=root, capture_output=True, text=True,
                            check=True).stdout.strip()

    def sync(_round: int) -> float:
        return timed((*APM, "sync"), root)

    def ls_remote(_round: int) -> float:
        return timed(("git", "ls-remote", "origin", f"refs/heads/{branch}"), root)

    syncs, trips = alternate(ctx.repeat, sync, ls_remote)
    return median_of(syncs), median_of(trips)


def run_section(ctx: Context) -> list[Row]:
    rows = []
    served = ctx.workdir / "sync-remotes"
    served.mkdir(exist_ok=True)
    with git_daemon(served) as prefix:
        for preset in ("small", "large"):
            for kind in ("daemon", "path"):
                name = f"{preset}-{kind}.git"
                subprocess.run(("git", "init", "-q", "--bare", str(served / name)), check=True)
                urls = {"daemon": prefix + name, "path": str(served / name)}
                sync, trip = _measure(ctx, preset, urls, kind)
                rows.append(Row(SECTION, f"sync, nothing to do, {preset} repo, {kind}", sync, trip,
                                f"overhead <= {TARGET_OVERHEAD}s", sync - trip <= TARGET_OVERHEAD,
                                f"overhead {sync - trip:.3f}s over ls-remote"))
    return rows
