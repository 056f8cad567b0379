"""Issue 4: `apm-git load` (each mode, with an intent) against `cat` of the files it loaded, and
`apm-git search` over the large repository's 20,000 entries against `git grep` of the query's words."""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from harness import APM, Context, Row, alternate, median_of, run, timed

SECTION = "loading"
TARGET_SECONDS = 0.5
BUDGET = "8000"  # room for every routed file of the generated repository, so nothing is skipped
LOADS = {
    "group": ("--room", "room-0001", "--intent", "why did we pick this, any incident?"),
    "DM": ("--main", "--intent", "what is on my todo list"),
    "Dreaming": ("--intent", "debug the redis timeout"),
}
QUERY = "redis timeout"


def _pair(ctx: Context, root: Path, mine: Sequence[str], baseline: Sequence[str]) -> tuple[float, float]:
    def measure_mine(_: int) -> float:
        return timed(mine, root)

    def measure_baseline(_: int) -> float:
        return timed(baseline, root)

    samples, base = alternate(ctx.repeat, measure_mine, measure_baseline)
    return median_of(samples), median_of(base)


def run_section(ctx: Context) -> list[Row]:
    root = ctx.fresh_copy("large", "loading")
    rows = []
    for mode, args in LOADS.items():
        command = (*APM, "load", "--budget", BUDGET, *args)
        loaded = json.loads(run((*command, "--format", "json"), root).stdout)
        files = [item["path"] for item in loaded["files"]]
        median, baseline = _pair(ctx, root, command, ("cat", *files))
        rows.append(Row(SECTION, f"load {mode} vs cat of its files", median, baseline, f"<= {TARGET_SECONDS}s",
                        median <= TARGET_SECONDS,
                        f"{len(files)} files, {loaded['tokens']} tokens, {len(loaded['skipped'])} skipped"))
    for label, extra, where in (("search", (), "memory"), ("search --archive", ("--archive",), "memory/archive")):
        command = (*APM, "search", QUERY, *extra)
        found = json.loads(run((*APM, "--json", "search", QUERY, *extra), root).stdout)
        grep = ("git", "grep", "-i", "-e", "redis", "-e", "timeout", "--", where)
        median, baseline = _pair(ctx, root, command, grep)
        rows.append(Row(SECTION, f"{label} vs git grep", median, baseline, f"<= {TARGET_SECONDS}s",
                        median <= TARGET_SECONDS, f"{found['total']} matches in {found['files_searched']} files"))
    return rows
