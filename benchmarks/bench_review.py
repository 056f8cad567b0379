"""Issue 11: `apm-git diff` of a REM commit that changes about 300 entries, in the large repository.

A copy of the large repository (20,000 entries, 5,000 commits) gets one REM first (as generated it
has 1,300+ entries to mark proven), then 340 records built to be consolidated (120 stale and LOW:
archived; 60 duplicate pairs: folded; 40 hit 5 times: proven; 30 pairs under one title: superseded),
committed with git; then `apm-git rem --force` makes the commit that is diffed.  Each format is
timed as a separate process; baseline: `git diff --stat HEAD~1 HEAD -- memory`.
"""
from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from pathlib import Path

from harness import APM, Context, Row, alternate, median_of, run, timed

SECTION = "review"
TARGET = 0.5


def _git(root: Path, *args: str) -> str:
    return run(("git", *args), root).stdout.decode()


def _today(root: Path) -> dt.date:
    journals = sorted(path.stem for path in (root / "memory").glob("20*.md"))
    return dt.date.fromisoformat(journals[-1])


def _record(day: dt.date, title: str, *, last: dt.date, hits: int, value: str, body: str) -> str:
    return (f"## [{day.isoformat()}] {title}\n- Tags: decision, bench\n"
            f"- Fitness: last_referenced={last.isoformat()}, hit_count={hits}, decision_value={value}\n"
            f"- Body: {body}\n\n")


def consolidation_records(today: dt.date) -> str:
    """340 records for REM: 120 archived, 60 folded into 60 others, 40 proven, 30 superseded by 30 others."""
    recent, stale = today - dt.timedelta(days=3), today - dt.timedelta(days=200)
    records = [_record(stale, f"Bench stale note {i}", last=stale, hits=0, value="LOW",
                       body=f"An old setting number {i} nobody uses.") for i in range(120)]
    for i in range(60):
        for offset in (20, 10):
            records.append(_record(today - dt.timedelta(days=offset), f"Bench duplicate {i}", last=recent, hits=1,
                                   value="MEDIUM", body=f"The same conclusion number {i}, written twice."))
    records += [_record(today - dt.timedelta(days=30), f"Bench proven rule {i}", last=recent, hits=5,
                        value="MEDIUM", body=f"A rule used often, number {i}.") for i in range(40)]
    for i in range(30):
        records.append(_record(today - dt.timedelta(days=40), f"Bench versioned choice {i}", last=recent, hits=1,
                               value="MEDIUM", body=f"Version {i} goes in the header."))
        records.append(_record(today - dt.timedelta(days=5), f"Bench versioned choice {i}", last=recent, hits=1,
                               value="MEDIUM", body=f"Version {i} goes in the URL path, always."))
    return "".join(records)


def prepare(root: Path) -> tuple[str, dict[str, int], float]:
    """The REM commit to diff (HEAD), what its diff counts by status, and the time of that first diff."""
    today = _today(root)
    now = f"{today.isoformat()}T12:00:00+00:00"
    run((*APM, "rem", "--force"), root, APM_GIT_NOW=now)  # what the generated history left for REM
    decisions = root / "memory" / "decisions.md"
    decisions.write_text(decisions.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + consolidation_records(today),
                         encoding="utf-8")
    config = root / "apm.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "budgets:\n  decisions.md: null\n", encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "bench: 340 entries for REM")
    run((*APM, "rem", "--force"), root, APM_GIT_NOW=now)
    started = time.perf_counter()
    data = json.loads(run((*APM, "diff", "--format", "json", "HEAD~1..HEAD"), root).stdout)
    first = time.perf_counter() - started
    counts = {status: count for status, count in data["summary"]["entries"].items() if count}
    return _git(root, "log", "-1", "--format=%s").strip(), counts, first


def _diff(root: Path, fmt: str) -> Callable[[int], float]:
    return lambda _: timed((*APM, "diff", "--format", fmt, "HEAD~1..HEAD"), root)


def run_section(ctx: Context) -> list[Row]:
    root = ctx.fresh_copy("large", "review")
    subject, counts, first = prepare(root)
    entries = sum(counts.values())
    rows = []
    for fmt in ("text", "markdown", "json"):
        diffs, plain = alternate(
            ctx.repeat,
            _diff(root, fmt),
            lambda _: timed(("git", "diff", "--stat", "HEAD~1", "HEAD", "--", "memory"), root),
        )
        seconds = median_of(diffs)
        rows.append(Row(SECTION, f"diff --format {fmt}, REM of {entries} entries", seconds, median_of(plain),
                        f"<= {TARGET:g}s", seconds <= TARGET,
                        f"({subject}; {', '.join(f'{k} {v}' for k, v in counts.items())}; "
                        f"baseline: git diff --stat)" if fmt == "text" else "(baseline: git diff --stat)"))
    rows.append(Row(SECTION, "diff --format json, first run after the REM", first, None, "", None,
                    "(one sample: fills the entry-id cache)"))
    return rows
