#!/usr/bin/env python3
"""A year in an agent's life (issue 5): the library driven in-process, day by day, on a fresh repository.

    python benchmarks/simulate_year.py [--days 365] [--seed 7] [--out DIR] [--history-sample N]
                                       [--workspace PATH] [--start YYYY-MM-DD]

Every day the agent writes about 8 journal entries of mixed kinds (a third of the days also
a Light Sleep session-notes block), returns to earlier topics (the same fact again, a changed
conclusion under the same title, or a similar title), uses entries (`apm-git hit`; popular
topics get most of the hits), flushes once (`session-end`) and
calls `dream`.  `APM_GIT_NOW` moves through the days, so every date and commit follows the
simulated clock.  At the end it checks that every entry ever written is live, archived, or
folded into one that is (`Merged`), that `history` finds them, that every commit passes
`apm-git lint` (`--from-ref C~1 --to-ref C`, in-process), and reads the line budgets, the
loose objects and the size of `.git`.  A command that fails (an apm-git error) is counted and
the day goes on.

`--workspace PATH` starts from a copy of a real agent workspace (its MEMORY.md and memory/,
as in ../shared/realworld/cases/) that `init` adopts, on the day after its newest journal;
the entries it held count as written, and a file it held over its budget may stay so, never
longer than it was.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from vocabulary import BODIES, TITLES, TOPICS, vocabulary  # noqa: E402

from apm_git import clock, git  # noqa: E402
from apm_git.commands.dream import dream  # noqa: E402
from apm_git.commands.flush import flush  # noqa: E402
from apm_git.commands.history import history  # noqa: E402
from apm_git.commands.hit import hit  # noqa: E402
from apm_git.commands.init import init  # noqa: E402
from apm_git.commands.journal import add  # noqa: E402
from apm_git.commands.lint import lint  # noqa: E402
from apm_git.dreaming.items import collect_items  # noqa: E402
from apm_git.errors import ApmGitError  # noqa: E402
from apm_git.model.dated import journal_date  # noqa: E402
from apm_git.model.records import parse  # noqa: E402
from apm_git.model.vocabulary import DECISION_VALUES, ENTRY_KINDS, one_of  # noqa: E402
from apm_git.store.repo import MemoryRepo, open_repo  # noqa: E402

START = dt.date(2026, 1, 1)
KINDS = (("decision", 20), ("lesson", 14), ("context", 12), ("person", 8), ("tool", 12), ("pending", 18),
         ("anchor", 16))
VALUES = (("HIGH", 15), ("MEDIUM", 50), ("LOW", 35))
NOTE_LABELS = (("Decision", "decision"), ("Discovery", "lesson"), ("Pending", "pending"), ("Context", "context"))
RETURN_SHARE = 0.3  # of the entries, how many return to an earlier topic
STAGES = ("light sleep", "hits", "flush", "deep sleep", "rem", "dream, nothing due", "lint", "check")


@dataclasses.dataclass
class SimulationReport:
    days: int
    seed: int
    root: Path
    written: list[str]
    live: set[str]
    archived: set[str]
    merged: set[str]
    proven: int
    commits: int
    budgets: list[tuple[str, int, int]]  # file, lines, budget
    adopted: dict[str, int] = dataclasses.field(default_factory=dict)  # a workspace's files over budget: their lines
    failed: list[str] = dataclasses.field(default_factory=list)  # commands that ended in an apm-git error
    loose_objects: int = 0
    git_bytes: int = 0  # the size of .git on disk
    lint_checked: bool = False
    lint_failures: list[str] = dataclasses.field(default_factory=list)
    refused: list[str] = dataclasses.field(default_factory=list)
    history_checked: int = 0
    history_missing: list[str] = dataclasses.field(default_factory=list)
    seconds: dict[str, float] = dataclasses.field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    total_seconds: float = 0.0

    @property
    def lost(self) -> list[str]:
        """Entries written that are neither live, archived, nor folded into another."""
        return sorted(set(self.written) - self.live - self.archived - self.merged)

    @property
    def over_budget(self) -> list[tuple[str, int, int]]:
        """Files over their budget, but a workspace's file adopted so that is no longer than it was."""
        return [row for row in self.budgets if row[1] > max(row[2], self.adopted.get(row[0], 0))]

    @property
    def ok(self) -> bool:
        return not (self.lost or self.over_budget or self.history_missing or self.lint_failures or self.failed)

    def lines(self) -> Iterator[str]:
        yield f"days simulated:          {self.days} (seed {self.seed}) in {self.root}"
        yield f"entries written:         {len(self.written)}"
        yield f"entries live:            {len(self.live & set(self.written))}"
        yield f"entries archived:        {len(self.archived & set(self.written))}"
        yield f"entries merged:          {len(self.merged & set(self.written) - self.live - self.archived)}"
        yield f"entries proven (live):   {self.proven}"
        yield f"entries lost:            {len(self.lost)}"
        yield f"commits:                 {self.commits}"
        yield f"failed commands:         {len(self.failed)}" + "".join(f"\n  {line}" for line in self.failed[:10])
        lint = f"{'yes' if not self.lint_failures else 'NO'}" if self.lint_checked else "not checked"
        yield f"every commit passes lint: {lint}" + "".join(f"\n  {line}" for line in self.lint_failures[:10])
        yield f"guard refusals:          {len(self.refused)}"
        yield f"history checked:         {self.history_checked} entries, {len(self.history_missing)} not found"
        yield "lines per file against budget at the end:"
        for file, count, budget in self.budgets:
            adopted = self.adopted.get(file)
            over = ("" if count <= budget else f"  over budget, as adopted ({adopted} lines)"
                    if adopted is not None and count <= adopted else "  OVER BUDGET")
            yield f"  {count:>4} / {budget:<4} {file}{over}"
        yield f"loose objects:           {self.loose_objects}"
        yield f".git size:               {self.git_bytes / 1e6:.1f} MB"
        yield f"total time:              {self.total_seconds:.1f} s"
        for stage in STAGES:
            yield f"  {stage:<22} {self.seconds[stage]:7.1f} s"


class Agent:
    """The simulated agent: what it writes, what it comes back to, what it uses."""

    def __init__(self, repo: MemoryRepo, rng: random.Random) -> None:
        self.repo = repo
        self.rng = rng
        self.counter = 0
        self.threads: list[tuple[str, str, str, str]] = []  # kind, title, body, topic tag of earlier entries
        weights = [1 / (rank + 1) for rank in range(len(TOPICS))]
        self.popularity = dict(zip((topic[0] for topic in TOPICS), weights, strict=True))
        self.written: set[str] = set()

    def pick(self, options: tuple[tuple[str, int], ...] | tuple[tuple[str, float], ...]) -> str:
        names = [name for name, _ in options]
        return self.rng.choices(names, weights=[weight for _, weight in options])[0]

    def topic(self) -> tuple[str, str, tuple[str, ...], tuple[str, ...]]:
        return self.rng.choices(TOPICS, weights=[self.popularity[topic[0]] for topic in TOPICS])[0]

    def fresh(self, kind: str) -> tuple[str, str, str]:
        """A new title (with a ticket number, so fresh titles never collide) and body."""
        self.counter += 1
        fill = vocabulary(self.rng, self.topic())
        base = self.rng.choice(TITLES[kind]).format(**fill)
        title = f"{base[0].upper()}{base[1:]} ({fill['tag'].upper()}-{self.counter})"
        return title, self.rng.choice(BODIES[kind]).format(**fill), fill["tag"]

    def entry(self) -> tuple[str, str, str, str]:
        """kind, title, body, tag: new, or back to an earlier thread."""
        if self.threads and self.rng.random() < RETURN_SHARE:
            kind, title, body, tag = self.rng.choice(self.threads[-200:])
            how = self.rng.random()
            if how < 0.4:
                return kind, title, body, tag  # the same fact, noted again
            fill = vocabulary(self.rng, next(topic for topic in TOPICS if topic[0] == tag))
            new_body = self.rng.choice(BODIES[kind]).format(**fill)
            if how < 0.8:
                return kind, title, new_body, tag  # the conclusion changed
            return kind, f"{title} follow-up", new_body, tag  # a similar title
        kind = self.pick(KINDS)
        title, body, tag = self.fresh(kind)
        self.threads.append((kind, title, body, tag))
        return kind, title, body, tag

    def light_sleep(self, day: dt.date) -> None:
        for number in range(self.rng.randint(6, 10)):
            set_now(day, 9 + number)
            kind, title, body, tag = self.entry()
            entry_kind, value = one_of(ENTRY_KINDS, kind), one_of(DECISION_VALUES, self.pick(VALUES))
            assert entry_kind is not None and value is not None, (kind, value)
            self.written.add(add(self.repo, body, kind=entry_kind, title=title, tags=[tag], value=value).entry_id)
        if self.rng.random() < 0.35:
            self.session_notes(day)

    def session_notes(self, day: dt.date) -> None:
        set_now(day, 18)
        lines = ["## 18:00 — Session Notes"]
        for _ in range(self.rng.randint(2, 4)):
            label, kind = self.rng.choice(NOTE_LABELS)
            title, body, _ = self.fresh(kind)
            lines.append(f"- **{label}:** {title} — {body}")
        name = f"{day.isoformat()}.md"
        text = self.repo.read(name) or ""
        self.repo.write(name, text + "\n".join(lines) + "\n\n")
        items = collect_items(name, day, parse(self.repo.read(name) or ""))
        self.written.update(item.entry_id for item in items)

    def use(self, day: dt.date) -> None:
        """Entries get used (`apm-git hit`): mostly those of popular topics, sometimes one of yesterday's journal."""
        entries = [
            (record.id, record.tags)
            for name in dict.fromkeys(self.repo.config.routing.values())
            for record in parse(self.repo.read(name) or "").entries
        ]
        used = []
        for _ in range(self.rng.randint(3, 8) if entries else 0):
            tag = self.topic()[0]
            used.append(self.rng.choice([entry for entry in entries if tag in entry[1]] or entries)[0])
        yesterday = f"{(day - dt.timedelta(days=1)).isoformat()}.md"
        if self.rng.random() < 0.3 and self.repo.exists(yesterday):
            records = parse(self.repo.read(yesterday) or "").entries
            if records:
                used.append(self.rng.choice(records).id)
        if used:
            hit(self.repo, used)


def set_now(day: dt.date, hour: int = 9) -> None:
    os.environ[clock.ENV_NOW] = f"{day.isoformat()}T{hour:02d}:00:00+00:00"


def simulate(
    root: Path,
    days: int = 365,
    seed: int = 7,
    *,
    start: dt.date | None = None,
    workspace: Path | None = None,
    history_sample: int | None = None,
    lint: Callable[[MemoryRepo], list[str]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> SimulationReport:
    """Simulate `days` days in a new repository at `root` (a copy of `workspace`, adopted, when given);
    `history_sample` entries (all when None) are looked up."""
    started = time.perf_counter()
    saved_now = os.environ.get(clock.ENV_NOW)
    seconds = dict.fromkeys(STAGES, 0.0)
    refused: list[str] = []
    failed: list[str] = []
    try:
        if workspace is not None:
            copy_workspace(workspace, root)
            start = start or max(START, newest_day(root) + dt.timedelta(days=1))
        start = start or START
        set_now(start)
        init(root, install=False)
        # git packs in the foreground: the count at the end is exact, and the packing is timed with `dream`.
        subprocess.run(("git", "config", "gc.autoDetach", "false"), cwd=root, check=True)
        repo = open_repo(root)
        agent = Agent(repo, random.Random(seed))
        adopted: dict[str, int] = {}
        if workspace is not None:
            first = _inventory(repo, set(), 0, seed)
            agent.written |= first.live | first.archived
            adopted = {file: count for file, count, budget in first.budgets if count > budget}
        for number in range(days):
            day = start + dt.timedelta(days=number)
            _timed(seconds, failed, day, "light sleep", agent.light_sleep, day)
            _timed(seconds, failed, day, "hits", agent.use, day)
            set_now(day, 20)
            _timed(seconds, failed, day, "flush", flush, repo, trigger="session-end", session=f"day-{number}")
            set_now(day, 21)
            moment = time.perf_counter()
            try:
                result = dream(repo)
            except ApmGitError as error:
                failed.append(f"{day}: dream: {error}")
                continue
            for stage in result.ran:
                seconds["deep sleep" if stage.stage == "deep-sleep" else "rem"] += stage.elapsed
            seconds["dream, nothing due"] += time.perf_counter() - moment - sum(s.elapsed for s in result.ran)
            if result.refused:
                refused.append(f"{day}: {result.refused}")
            if progress and (number + 1) % 30 == 0:
                progress(f"day {number + 1}: {time.perf_counter() - started:.0f} s")
        report = _inventory(repo, agent.written, days, seed)
        report.refused = refused
        report.failed = failed
        report.adopted = adopted
        report.loose_objects, report.git_bytes = repository_size(repo)
        if lint is not None:
            moment = time.perf_counter()
            report.lint_checked = True
            report.lint_failures = lint(repo)
            seconds["lint"] = time.perf_counter() - moment
        moment = time.perf_counter()
        _check_history(repo, report, history_sample, random.Random(seed))
        seconds["check"] = time.perf_counter() - moment
    finally:
        if saved_now is None:
            os.environ.pop(clock.ENV_NOW, None)
        else:
            os.environ[clock.ENV_NOW] = saved_now
    report.seconds = seconds
    report.total_seconds = time.perf_counter() - started
    return report


def _timed(seconds: dict[str, float], failed: list[str], day: dt.date, stage: str, step: Callable[..., object],
           *args: Any, **kwargs: Any) -> None:
    """Run one step of the day, timed; an apm-git error is counted in `failed` and the day goes on."""
    moment = time.perf_counter()
    try:
        step(*args, **kwargs)
    except ApmGitError as error:
        failed.append(f"{day}: {stage}: {error}")
    seconds[stage] += time.perf_counter() - moment


def copy_workspace(workspace: Path, root: Path) -> None:
    """The workspace's files (all but the corpus's own SOURCE.txt) at `root`, which must not exist yet."""
    shutil.copytree(workspace, root, symlinks=True, ignore=shutil.ignore_patterns("SOURCE.txt"))


def newest_day(root: Path) -> dt.date:
    """The newest date named by a journal (a `YYYY-MM-DD.md` anywhere under `root`), else the first day."""
    days = [journal_date(path.name) for path in root.rglob("*.md")]
    return max((day for day in days if day is not None), default=START - dt.timedelta(days=1))


def repository_size(repo: MemoryRepo) -> tuple[int, int]:
    """The loose objects git counts, and the bytes under .git."""
    out = subprocess.run(("git", "count-objects", "-v"), cwd=repo.root, capture_output=True, text=True, check=True)
    counts = dict(line.split(": ", 1) for line in out.stdout.splitlines())
    size = sum(path.stat().st_size for path in (repo.root / ".git").rglob("*") if path.is_file())
    return int(counts["count"]), size


def _inventory(repo: MemoryRepo, written: set[str], days: int, seed: int) -> SimulationReport:
    live: set[str] = set()
    archived: set[str] = set()
    merged: set[str] = set()
    proven = 0
    budgets = []
    for rel in repo.markdown_files():
        text = repo.read(rel) or ""
        doc = parse(text)
        name = rel.rsplit("/", 1)[-1]
        day = journal_date(name)
        ids = {item.entry_id for item in collect_items(rel, day, doc)} if day else {r.id for r in doc.entries}
        in_archive = rel.startswith("archive/")
        (archived if in_archive else live).update(ids)
        for record in doc.entries:
            merged.update(part.strip() for part in (record.field("Merged") or "").split(",") if part.strip())
            proven += record.proven and not in_archive
        budget = repo.config.budget_for(rel)
        if budget is not None:
            budgets.append((repo.repo_path(rel), doc.line_count, budget))
    commits = len(git.rev_list(repo.root, "HEAD"))
    return SimulationReport(days, seed, repo.root, sorted(written), live, archived, merged, proven, commits, budgets)


def _check_history(repo: MemoryRepo, report: SimulationReport, sample: int | None, rng: random.Random) -> None:
    ids = report.written if sample is None else rng.sample(report.written, min(sample, len(report.written)))
    for entry_id in ids:
        try:
            found = history(repo, entry_id)
        except ApmGitError:
            found = []
        if not found:
            report.history_missing.append(entry_id)
    report.history_checked = len(ids)


def lint_every_commit(repo: MemoryRepo) -> list[str]:
    """`apm-git lint --from-ref C~1 --to-ref C` of every commit, in-process; the findings, with their commit.

    The first commit has no parent: all of its files get the per-file checks (`--all`).
    """
    shas = git.rev_list(repo.root, "HEAD")
    failures = []
    for number, sha in enumerate(shas):
        result = lint(repo, from_ref=f"{sha}~1" if number else sha, to_ref=sha, all_files=number == 0)
        failures += [f"{sha[:12]} {finding}" for finding in result.findings]
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, help="where to make the repository (default: a new temp dir)")
    parser.add_argument("--history-sample", type=int, default=200,
                        help="how many written entries to look up with history (default 200; 0: all)")
    parser.add_argument("--no-lint", action="store_true", help="skip `apm-git lint` of every commit")
    parser.add_argument("--workspace", type=Path,
                        help="start from a copy of this agent workspace (MEMORY.md, memory/), adopted by `init`")
    parser.add_argument("--start", type=dt.date.fromisoformat,
                        help="the first day (default 2026-01-01, or the day after the workspace's newest journal)")
    args = parser.parse_args(argv)
    if args.workspace is not None and not (args.workspace / "memory").is_dir():
        parser.error(f"--workspace {args.workspace} holds no memory/ folder")
    root = args.out or Path(tempfile.mkdtemp(prefix="apm-git-year-")) / "memory-repo"
    report = simulate(root, args.days, args.seed, start=args.start, workspace=args.workspace,
                      history_sample=args.history_sample or None, lint=None if args.no_lint else lint_every_commit,
                      progress=lambda line: print(f"# {line}", file=sys.stderr, flush=True))
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
