"""Counters merged as counters (issue 22, case 2): any interleaving of hits on 2 to 4 real clones of a bare
remote, synced in any order, adds up exactly; `last_referenced` is the day of the last hit."""
from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Invoke
from tests.sync_helpers import bare_remote, clone, first_clone, git

ENTRIES = ("2026-05-04-shared-lesson", "2026-05-04-other-lesson")
RUNS = itertools.count()

# One step: (what, which clone, which entry).  The day moves on every fourth step, so hits on one
# clone never go back in time, and a sync may merge hits of different days as well as of the same second.
steps = st.lists(st.tuples(st.sampled_from(("hit", "hit", "sync")), st.integers(0, 3), st.integers(0, 1)),
                 min_size=1, max_size=14)


def now(step: int) -> str:
    return f"2026-05-{4 + step // 4:02d}T10:00:00"


def fitness(root: Path, ident: str) -> tuple[int, str]:
    text = (root / "memory/2026-05-04.md").read_text()
    title = ident[11:].replace("-", " ")
    match = re.search(rf"^## \[2026-05-04\] {title}\n(?:- .*\n)*?- Fitness: last_referenced=(\S+), hit_count=(\d+),",
                      text, re.MULTILINE | re.IGNORECASE)
    assert match, f"{ident} is missing from {root.name}"
    return int(match[2]), match[1]


def run(run_cli: Invoke, root: Path, *args: str, at: str) -> None:
    ran = run_cli("--repo", str(root), *args, env={"APM_GIT_NOW": at})
    assert ran.exit_code == 0, f"{args}: {ran.stdout}{ran.stderr}"


@pytest.mark.slow
@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(clones=st.integers(2, 4), plan=steps)
def test_hits_on_any_number_of_clones_synced_in_any_order_add_up(
    run_cli: Invoke, tmp_path: Path, clones: int, plan: list[tuple[str, int, int]],
) -> None:
    home = tmp_path / f"run{next(RUNS)}"
    home.mkdir()
    url = str(bare_remote(home))
    first = first_clone(home / "clone0", url)
    for title in ("shared lesson", "other lesson"):
        run(run_cli, first, "journal", "add", f"{title}: what was learned", "--kind", "lesson", "--title", title,
            at=now(0))
    run(run_cli, first, "sync", at=now(0))
    roots = [first, *(clone(home / f"clone{n}", url) for n in range(1, clones))]
    start = {ident: fitness(first, ident) for ident in ENTRIES}
    hits = dict.fromkeys(ENTRIES, 0)
    last = {ident: start[ident][1] for ident in ENTRIES}
    for step, (what, which, entry) in enumerate(plan):
        root, ident = roots[which % clones], ENTRIES[entry]
        if what == "hit":
            run(run_cli, root, "hit", ident, at=now(step))
            hits[ident] += 1
            last[ident] = now(step)[:10]
        else:
            run(run_cli, root, "sync", at=now(step))
    for root in roots * 2:  # the first round gathers every clone's hits, the second hands them to all
        run(run_cli, root, "sync", at=now(len(plan)))
    heads = {git(root, "rev-parse", "HEAD").strip() for root in roots}
    assert len(heads) == 1
    for root in roots:
        for ident in ENTRIES:
            assert fitness(root, ident) == (start[ident][0] + hits[ident], last[ident]), (root.name, ident, plan)
