"""Snapshots built in memory, for the table-driven tests of each check."""
from __future__ import annotations

from apm_git.checks.run import run_checks
from apm_git.model.config import Config
from apm_git.model.entries import EntryIndex, summarize
from apm_git.model.records import parse
from apm_git.model.snapshot import Finding, Snapshot, SnapshotChange

MEM = "memory"


def record(day: str, title: str, *, tags: str = "decision", body: str = "Some body.", extra: str = "") -> str:
    return (f"## [{day}] {title}\n- Tags: {tags}\n"
            f"- Fitness: last_referenced={day}, hit_count=0, decision_value=MEDIUM\n- Body: {body}\n{extra}\n")


def snapshot(
    base: dict[str, str],
    new: dict[str, str],
    *,
    unchanged: dict[str, str] | None = None,
    config: Config | None = None,
) -> Snapshot:
    """A comparison of `base` with `new` (memory-relative names); `unchanged` files are the same on both sides."""
    rest = {f"{MEM}/{name}": text for name, text in (unchanged or {}).items()}
    before = {f"{MEM}/{name}": text for name, text in base.items()}
    after = {f"{MEM}/{name}": text for name, text in new.items()}
    changes = [SnapshotChange("D", path) for path in before if path not in after]
    changes += [SnapshotChange("A" if path not in before else "M", path) for path, text in after.items()
                if before.get(path) != text]
    texts = {**rest, **after}
    summaries = {path: summarize(parse(text)) for path, text in texts.items() if path.endswith(".md")}
    return Snapshot(
        config or Config(), changes, {p: t for p, t in before.items() if p in {c.path for c in changes}},
        texts, sorted(c.path for c in changes if c.status != "D"), frozenset(texts), EntryIndex(summaries),
    )


def findings(snap: Snapshot, hook: str) -> list[Finding]:
    return run_checks(snap, [hook])
