"""Issue 5: `apm-git rem` over 20,000 entries, and `apm-git history` in the 5,000-commit repository.

REM: a copy of the large repository with every archived entry put back, live, into the category
files (budgets lifted, so all 20,000 are scored), then `apm-git rem --force`; baseline: `git add`
+ `git commit` of exactly the tree that REM committed.  The large repository as generated (2,443
live entries of 20,000) is measured the same way, and once more with a record added by hand and not
committed, which REM flushes first (issue 15: planned once, the flush step under the same lock).
history: `apm-git history ID` of an archived and of a live entry; baseline: `git log --follow` of the
file that holds the entry now.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from harness import APM, Context, Row, alternate, median_of, run, timed

from apm_git.model.records import parse

SECTION = "dreaming"
TARGET_REM = 3.0
TARGET_HISTORY = 1.0
ROUTING = {"decision": "decisions.md", "lesson": "lessons.md", "context": "project-context.md",
           "person": "people.md", "tool": "tools-config.md"}


def _git(root: Path, *args: str) -> str:
    return run(("git", *args), root).stdout.decode()


def _today(root: Path) -> str:
    journals = sorted(path.stem for path in (root / "memory").glob("20*.md"))
    return f"{journals[-1]}T12:00:00+00:00"


def _all_live(root: Path) -> tuple[int, int]:
    """Put every archived entry back into the category files, lift their budgets, commit.

    Returns the entries REM scores (category files and experience) and those in journals.
    """
    memory = root / "memory"
    texts: dict[str, list[str]] = {}
    for path in sorted((memory / "archive").glob("*.md")):
        for record in parse(path.read_text(encoding="utf-8")).entries:
            lines = [line for line in record.lines if not line.startswith("- Archived:")]
            texts.setdefault(ROUTING[record.kind], []).append("".join(lines).rstrip("\n") + "\n\n")
        path.unlink()
    for name, records in texts.items():
        path = memory / name
        path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + "".join(records), encoding="utf-8")
    config = root / "apm.yaml"
    lifted = "".join(f"  {name}: null\n" for name in ROUTING.values())
    config.write_text(config.read_text(encoding="utf-8") + f"budgets:\n{lifted}", encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "bench: every entry live")
    counts = [0, 0]
    for path in memory.rglob("*.md"):
        counts[path.stem.startswith("20")] += len(parse(path.read_text(encoding="utf-8")).entries)
    return counts[0], counts[1]


def _uncommitted_edit(root: Path, now: str) -> None:
    """A record added by hand to a category file and not committed: `rem` flushes it first."""
    path = root / "memory" / "people.md"
    day = now[:10]
    record = (f"\n## [{day}] Bench person added by hand\n- Tags: person\n"
              f"- Fitness: last_referenced={day}, hit_count=0, decision_value=MEDIUM\n- Body: Prefers short reviews.\n")
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n" + record, encoding="utf-8")


def _measure_rem(ctx: Context, root: Path, *, dirty: bool = False) -> tuple[float, float, str]:
    base = _git(root, "rev-parse", "HEAD").strip()
    now = _today(root)
    summary = ""

    def rem(_: int) -> float:
        nonlocal summary
        _git(root, "reset", "-q", "--hard", base)
        if dirty:
            _uncommitted_edit(root, now)
        seconds = timed((*APM, "rem", "--force"), root, APM_GIT_NOW=now)
        summary = _git(root, "log", "-1", "--format=%s").strip()
        return seconds

    def bare(_: int) -> float:
        rem_commit = _git(root, "rev-parse", "HEAD").strip()
        _git(root, "reset", "-q", "--hard", base)
        _git(root, "checkout", rem_commit, "--", ".")
        _git(root, "reset", "-q")
        return timed(("git", "add", "-A", "--", "memory"), root) + timed(("git", "commit", "-q", "-m", "bare"), root)

    rems, bares = alternate(ctx.repeat, rem, bare)
    return median_of(rems), median_of(bares), summary


def _entry_file(root: Path, entry_id: str) -> str:
    grep = subprocess.run(("git", "grep", "-l", "-F", "-e", f"## [{entry_id[:10]}]", "HEAD", "--", "memory"),
                          cwd=root, capture_output=True, check=False).stdout.decode().split()
    for spec in grep:
        path = spec.removeprefix("HEAD:")
        if any(record.id == entry_id for record in parse((root / path).read_text(encoding="utf-8")).entries):
            return path
    raise RuntimeError(f"{entry_id} is not in the repository")


def _measure_history(ctx: Context, root: Path, entry_id: str) -> tuple[float, float, int]:
    current = _entry_file(root, entry_id)
    events = run((*APM, "--json", "history", entry_id), root).stdout.decode().count('"commit"')
    histories, follows = alternate(
        ctx.repeat,
        lambda _: timed((*APM, "history", entry_id), root),
        lambda _: timed(("git", "log", "--follow", "--format=%H", "--", current), root),
    )
    return median_of(histories), median_of(follows), events


def run_section(ctx: Context) -> list[Row]:
    rows = []
    live_root = ctx.fresh_copy("large", "rem-all-live")
    scored, journaled = _all_live(live_root)
    rem, bare, summary = _measure_rem(ctx, live_root)
    rows.append(Row(SECTION, f"rem --force, {scored + journaled:,} entries ({scored:,} scored)", rem, bare,
                    f"<= {TARGET_REM:g}s",
                    rem <= TARGET_REM, f"({summary}; baseline: git add+commit of the same tree)"))
    as_generated = ctx.fresh_copy("large", "rem")
    rem, bare, summary = _measure_rem(ctx, as_generated)
    rows.append(Row(SECTION, "rem --force, large repo as generated", rem, bare, f"<= {TARGET_REM:g}s",
                    rem <= TARGET_REM, f"({summary})"))
    rem, bare, summary = _measure_rem(ctx, ctx.fresh_copy("large", "rem-dirty"), dirty=True)
    rows.append(Row(SECTION, "rem --force, an uncommitted edit flushed first", rem, bare, f"<= {TARGET_REM:g}s",
                    rem <= TARGET_REM, f"({summary}; the flush commit, then the run's: planned once)"))
    generated = ctx.repo("large")
    root = ctx.fresh_copy("large", "history")
    picks = (("archived", generated.archived_ids[len(generated.archived_ids) // 2]),
             ("live", generated.live_ids[len(generated.live_ids) // 2]))
    for label, entry_id in picks:
        seconds, follow, events = _measure_history(ctx, root, entry_id)
        rows.append(Row(SECTION, f"history of a {label} entry, 5,000 commits", seconds, follow,
                        f"<= {TARGET_HISTORY:g}s", seconds <= TARGET_HISTORY,
                        f"({events} events; baseline: git log --follow of its file)"))
    return rows
