#!/usr/bin/env python3
"""Generate a synthetic apm-git memory repository, fast and deterministically.

    python benchmarks/generate.py OUT_DIR [--preset small|large|wide] [--entries N] [--commits C]
        [--groups G] [--notes N] [--live-share F] [--seed S] [--start-date YYYY-MM-DD]

The whole history is planned in memory first and then written with one `git fast-import`
stream, so thousands of commits take seconds.  The same arguments (with an explicit
`--start-date`) give a byte-identical repository, commit ids included.

Layout (docs/design.md 2): `apm.yaml`, and under `memory/` the index, the five category files, ten daily
journals ending on the end date, `group_names.json`, `flush-state.json`, per group an L0 index and
`attention/project/people/experience.md`, the DM files under `main/`, and `archive/YYYY-MM.md`.

History: commit 1 is `memory: init`; every later commit is either a flush (1-3 files: new records
appended to journals, a group's `experience.md` or a category file) or, about every 20th commit, a
REM consolidation that moves the records meant for the archive out of 1-2 source files into
`archive/<month of the commit>.md` (`Apm-Archive:` trailers).  Live files stay under their line
budgets at every commit, not only at the end.  Entry ids are unique across the whole repository.

Stdlib only; `generate()` is importable by benchmark scripts.  The work is split by responsibility:
vocabulary.py (the words), planning.py (which commit adds or archives which record, and when) and
fastimport.py (the files' text and the `git fast-import` stream).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from fastimport import Replay, write_history
from planning import plan_history


@dataclass(frozen=True)
class Preset:
    entries: int
    commits: int
    groups: int
    notes: int = 0


PRESETS: dict[str, Preset] = {
    "small": Preset(entries=100, commits=10, groups=2),
    "large": Preset(entries=20_000, commits=5_000, groups=40),
    # Issue 28: many groups and files, so what a flush costs for each group or file shows.
    "wide": Preset(entries=20_000, commits=5_000, groups=200, notes=354),
}


@dataclass(frozen=True)
class GeneratedRepo:
    out_dir: Path
    entry_ids: list[str]
    live_ids: list[str]
    archived_ids: list[str]
    commits: int
    seconds: float


def _check_out_dir(out_dir: Path) -> None:
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise ValueError(f"{out_dir} exists and is not an empty directory; choose a new path")


def generate(
    out_dir: Path,
    *,
    entries: int = PRESETS["small"].entries,
    commits: int = PRESETS["small"].commits,
    groups: int = PRESETS["small"].groups,
    live_share: float | None = None,
    seed: int = 0,
    start: date | None = None,
    notes: int = 0,
) -> GeneratedRepo:
    """Write a memory repository with `entries` records and `commits` commits into `out_dir`.

    `live_share=None` keeps as many entries live as the line budgets comfortably allow (at most 90%);
    `start=None` starts the history so that it ends today.
    """
    began = time.perf_counter()
    out_dir = Path(out_dir)
    if entries < 1 or groups < 0 or commits < 1:
        raise ValueError("--entries must be at least 1, --commits at least 1 and --groups not negative")
    _check_out_dir(out_dir)
    rng = random.Random(seed)
    span_days = min(730, max(30, commits))
    not_after = None
    if start is None:
        now = datetime.now(tz=timezone.utc)
        start = now.date() - timedelta(days=span_days)
        not_after = int(now.timestamp()) - 60
    end = start + timedelta(days=span_days)
    group_names = [f"team-{i:02d}" for i in range(groups)]
    planner = plan_history(entries=entries, commits=commits, groups=group_names, live_share=live_share, rng=rng,
                           start=start, span_days=span_days, not_after=not_after)
    replay = Replay(planner, rng, start, end)
    replay.note_count = notes
    write_history(out_dir, planner.plans, replay)

    entry_ids, archived_ids = replay.entry_ids, replay.archived_ids
    leftover = [p for p, recs in replay.writer.records.items() if any(e.archive for e in recs)]
    if leftover or len(entry_ids) != entries or len(set(entry_ids)) != entries:
        raise RuntimeError(f"bug: plan and result differ (left in live files: {leftover[:3]})")
    archived = set(archived_ids)
    live_ids = [i for i in entry_ids if i not in archived]
    return GeneratedRepo(out_dir=out_dir, entry_ids=entry_ids, live_ids=live_ids, archived_ids=archived_ids,
                         commits=len(planner.plans), seconds=time.perf_counter() - began)


# --------------------------------------------------------------------------- CLI

def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate a synthetic apm-git memory repository.")
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR", help="new or empty directory")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="small (default), large or wide")
    parser.add_argument("--entries", type=int, help="records in the repository, live + archived")
    parser.add_argument("--commits", type=int, help="commits in the history, init included")
    parser.add_argument("--groups", type=int, help="group chats (memory/groups/<g>)")
    parser.add_argument("--notes", type=int, help="free-form notes under memory/notes/ (no records)")
    parser.add_argument("--live-share", type=float,
                        help="share of entries left live (default: as many as the line budgets allow, at most 0.9)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start-date", type=date.fromisoformat, metavar="YYYY-MM-DD",
                        help="first commit's date (default: so that the history ends today)")
    args = parser.parse_args(argv)
    preset = PRESETS[args.preset or "small"]
    try:
        repo = generate(
            args.out_dir,
            entries=preset.entries if args.entries is None else args.entries,
            commits=preset.commits if args.commits is None else args.commits,
            groups=preset.groups if args.groups is None else args.groups,
            live_share=args.live_share,
            seed=args.seed,
            notes=preset.notes if args.notes is None else args.notes,
            start=args.start_date,
        )
    except ValueError as exc:
        print(f"generate.py: error: {exc}", file=sys.stderr)
        return 2
    print(f"{repo.out_dir}: {len(repo.entry_ids)} entries, {len(repo.live_ids)} live, "
          f"{len(repo.archived_ids)} archived, {repo.commits} commits, {repo.seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
