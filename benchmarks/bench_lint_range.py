"""Issue 12 (lint across merges): the CI gate on a range with merge commits, against the same change flat.

On a copy of the large repository, eight branches each add one record to a different group's
`experience.md`; `pr` merges them one by one (`--no-ff`, eight merge commits), and `flat` holds the
same eight records in one commit. `apm-git lint --from-ref BASE --to-ref pr` compares the two ends
and each merge with both its parents (16 more comparisons); `--to-ref flat` compares the two ends
only. The two alternate round by round.
"""
from __future__ import annotations

from pathlib import Path

from harness import APM, Context, Row, alternate, median_of, run, timed

SECTION = "lintrange"
BRANCHES = 8


def _record(n: int) -> str:
    return (f"\n## [2026-11-20] Range benchmark entry {n}\n- Tags: lesson, bench\n"
            "- Fitness: last_referenced=2026-11-20, hit_count=0, decision_value=MEDIUM\n- Body: one branch's lesson.\n")


def _git(root: Path, *args: str) -> str:
    return run(("git", *args), root).stdout.decode().strip()


def _branches(root: Path) -> str:
    """The base commit; branches `pr` (eight merges) and `flat` (one commit) with the same change."""
    base = _git(root, "rev-parse", "HEAD")
    files = [f"memory/groups/team-{n:02d}/experience.md" for n in range(1, BRANCHES + 1)]
    for n, name in enumerate(files, start=1):
        _git(root, "checkout", "-q", "-b", f"side-{n}", base)
        path = root / name
        path.write_text(path.read_text(encoding="utf-8") + _record(n), encoding="utf-8")
        _git(root, "commit", "-q", "--no-verify", "-am", f"side {n}")
    _git(root, "checkout", "-q", "-b", "pr", base)
    for n in range(1, BRANCHES + 1):
        _git(root, "merge", "-q", "--no-ff", "--no-verify", "-m", f"merge side {n}", f"side-{n}")
    _git(root, "checkout", "-q", "-b", "flat", base)
    _git(root, "checkout", "-q", "pr", "--", *files)
    _git(root, "commit", "-q", "--no-verify", "-m", "the same change, flat")
    if _git(root, "diff", "pr", "flat", "--stat"):
        raise RuntimeError("pr and flat should hold the same tree")
    return base


def run_section(ctx: Context) -> list[Row]:
    root = ctx.fresh_copy("large", "lintrange")
    base = _branches(root)
    for tip in ("pr", "flat"):
        check = run((*APM, "lint", "--from-ref", base, "--to-ref", tip), root)
        if check.returncode != 0 or b"finding" not in check.stderr:
            raise RuntimeError(f"lint of the {tip} range did not pass:\n{check.stdout.decode()}")

    def lint(tip: str) -> float:
        return timed((*APM, "lint", "--from-ref", base, "--to-ref", tip), root)

    merged, flat = alternate(ctx.repeat, lambda _: lint("pr"), lambda _: lint("flat"))
    return [Row(SECTION, f"lint range, {BRANCHES} merges vs flat, large", median_of(merged), median_of(flat),
                note=f"{BRANCHES} merge commits checked against both parents")]
