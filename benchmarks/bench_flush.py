"""Issue 2: `apm-git flush` of a small change against a bare `git add -- memory && git commit` of the same change."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

from harness import APM, Context, Row, alternate, median_of, run, timed

SECTION = "flush"
TARGET_OVERHEAD = 0.15  # issue 15 (issue 2 set 0.3 s)
TARGET_GROWTH = 1.5


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


def _measure(ctx: Context, preset: str) -> tuple[float, float]:
    root = ctx.fresh_copy(preset, "flush")
    run((*APM, "flush", "-m", "warm up"), root)  # first flush refreshes INDEX.md and the state file

    def flush(round_: int) -> float:
        _change(root, "flush", round_)
        return timed((*APM, "flush", "--trigger", "manual"), root)

    def bare(round_: int) -> float:
        _change(root, "bare", round_)
        return timed(("git", "add", "--", "memory"), root) + timed(("git", "commit", "-q", "-m", "bare"), root)

    flushes, bares = alternate(ctx.repeat, flush, bare)
    return median_of(flushes), median_of(bares)


def run_section(ctx: Context) -> list[Row]:
    rows = []
    overheads = {}
    for preset in ("small", "large"):
        flush, bare = _measure(ctx, preset)
        overheads[preset] = flush - bare
        rows.append(Row(SECTION, f"flush vs bare commit, {preset} repo", flush, bare,
                        f"overhead <= {TARGET_OVERHEAD}s", flush - bare <= TARGET_OVERHEAD,
                        f"overhead {flush - bare:.3f}s"))
    growth = overheads["large"] / overheads["small"] if overheads["small"] > 0 else float("inf")
    rows.append(Row(SECTION, "flush overhead, large / small", overheads["large"], overheads["small"],
                    f"<= {TARGET_GROWTH}x", growth <= TARGET_GROWTH))
    return rows
