"""Issues 2 and 28: `apm-git flush` of a small change against a bare `git add -- memory && git commit` of the
same change, on a small memory, a large one and a wide one (200 groups, 1,400 files, 5,000 commits)."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

from harness import APM, Context, Row, alternate, cpu_timed, median_of, run

SECTION = "flush"
TARGET_OVERHEAD = 0.15  # issue 15 (issue 2 set 0.3 s)
TARGET_GROWTH = 1.5
TARGET_WIDE_OVERHEAD = 0.12  # issue 28: 200 groups, 1,400 files, 5,000 commits
TARGET_WIDE_GROWTH = 1.2


def _change(root: Path, tag: str, round_: int) -> None:
    """Append one journal record to today's journal: the small change every flush carries."""
    today = dt.date.today().isoformat()
    journal = root / "memory" / f"{today}.md"
    text = journal.read_text(encoding="utf-8") if journal.exists() else f"# Journal {today}\n\n"
    journal.write_text(
        text + f"## [{today}] Benchmark entry {tag} {round_}\n- Tags: lesson, bench\n"
        f"- Fitness: last_referenced={today}, hit_count=0, decision_value=MEDIUM\n"
        f"- Body: measured change number {round_} of {tag}.\n\n",
        encoding="utf-8",
    )


def _measure(ctx: Context, preset: str) -> tuple[float, float, float]:
    """Median wall times of the flush and of the bare commit, and the median CPU time the flush adds."""
    root = ctx.fresh_copy(preset, "flush")
    run((*APM, "flush", "-m", "warm up"), root)  # first flush refreshes INDEX.md and the state file
    flush_cpu: list[float] = []
    bare_cpu: list[float] = []

    def flush(round_: int) -> float:
        _change(root, "flush", round_)
        return cpu_timed((*APM, "flush", "--trigger", "manual"), root, flush_cpu)

    def bare(round_: int) -> float:
        _change(root, "bare", round_)
        parts: list[float] = []
        wall = cpu_timed(("git", "add", "--", "memory"), root, parts)
        wall += cpu_timed(("git", "commit", "-q", "-m", "bare"), root, parts)
        bare_cpu.append(sum(parts))
        return wall

    flushes, bares = alternate(ctx.repeat, flush, bare)
    return median_of(flushes), median_of(bares), median_of(flush_cpu) - median_of(bare_cpu)


def run_section(ctx: Context) -> list[Row]:
    rows = []
    overheads = {}
    for preset in ("small", "large", "wide"):
        flush, bare, cpu = _measure(ctx, preset)
        overheads[preset] = flush - bare
        target = TARGET_WIDE_OVERHEAD if preset == "wide" else TARGET_OVERHEAD
        rows.append(Row(SECTION, f"flush vs bare commit, {preset} repo", flush, bare,
                        f"overhead <= {target}s", flush - bare <= target,
                        f"overhead {flush - bare:.3f}s; CPU overhead {cpu:.3f}s"))
    for preset, target in (("large", TARGET_GROWTH), ("wide", TARGET_WIDE_GROWTH)):
        growth = overheads[preset] / overheads["small"] if overheads["small"] > 0 else float("inf")
        rows.append(Row(SECTION, f"flush overhead, {preset} / small", overheads[preset], overheads["small"],
                        f"<= {target}x", growth <= target))
    return rows
