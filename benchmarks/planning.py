"""Plan a synthetic history before anything is written: which commit creates and which archives each record.

The plan fixes the kind and time of every commit (init, flush, REM), the records each flush adds
to which file (and which of them a later REM archives), so that every live file stays under its
line budget at every commit.  Stdlib only; the files' text is fastimport.py's job.
"""
from __future__ import annotations

import itertools
import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Literal

MEMORY = "memory"
JOURNAL_DAYS = 10
PREAMBLE_LINES = 2  # "# Title" + one blank line
RECORD_LINES = 5  # header, Tags, Fitness, Body, blank line
MAX_FLUSH_FILES = 3  # a flush commit touches at most this many files (soft for tiny histories)
REM_EVERY = 20  # about every 20th commit is a consolidation
DEFAULT_LIVE_CAP = 0.9  # by default at most 90% of the entries are live ...
DEFAULT_FILL = 0.9  # ... and live files are filled to at most 90% of their record capacity
SEARCH_RADIUS = 6

CATEGORIES: tuple[tuple[str, str, str, int], ...] = (
    # file, title, kind (first tag), line budget
    ("decisions.md", "Decisions", "decision", 200),
    ("lessons.md", "Lessons", "lesson", 300),
    ("project-context.md", "Project Context", "context", 150),
    ("people.md", "People", "person", 100),
    ("tools-config.md", "Tools and Config", "tool", 100),
)
JOURNAL_BUDGET = 100
EXPERIENCE_BUDGET = 300
JOURNAL_KINDS = (
    ("decision", 22),
    ("lesson", 14),
    ("context", 10),
    ("person", 6),
    ("tool", 10),
    ("pending", 20),
    ("anchor", 18),
)
EXPERIENCE_KINDS = (("decision", 55), ("lesson", 45))


def capacity(budget: int) -> int:
    """Records a file can hold while staying strictly under its line budget."""
    return max(0, (budget - 1 - PREAMBLE_LINES) // RECORD_LINES)


@dataclass
class LiveFile:
    path: str
    cap: int
    kinds: tuple[tuple[str, int], ...]
    live: int = 0
    group: str | None = None


@dataclass
class CommitPlan:
    kind: Literal["init", "flush", "rem"]
    when: int = 0
    # flush: path -> one flag per new record (True = meant for the archive)
    touches: dict[str, list[bool]] = field(default_factory=dict)
    journal_day: int = -1  # the window day (0..9) this flush belongs to, or -1
    attention: str | None = None  # a flush without records updates an attention file
    final: bool = False
    rem_files: list[str] = field(default_factory=list)


def _apportion(total: int, weights: Sequence[int]) -> list[int]:
    """Split `total` in proportion to `weights`, never giving a share more than its weight."""
    room = sum(weights)
    if total > room:
        raise ValueError(f"cannot fit {total} into {room}")
    if total == 0 or room == 0:
        return [0] * len(weights)
    shares = [total * w // room for w in weights]
    left = total - sum(shares)
    order = sorted(range(len(weights)), key=lambda i: (-((total * weights[i]) % room), i))
    while left:
        for i in order:
            if left and shares[i] < weights[i]:
                shares[i] += 1
                left -= 1
    return shares


def weighted(rng: random.Random, options: Sequence[tuple[str, int]]) -> str:
    return rng.choices([o for o, _ in options], weights=[w for _, w in options])[0]


def _split(rng: random.Random, total: int, low: int, high: int) -> list[int]:
    sizes: list[int] = []
    while total > 0:
        size = min(total, rng.randint(low, high))
        sizes.append(size)
        total -= size
    return sizes


def _window_days(j: int, w: int) -> list[int]:
    """Journal days (0..9, 9 = end date) that the j-th of w window flushes writes."""
    if w >= JOURNAL_DAYS:
        return [j * JOURNAL_DAYS // w]
    if w == 1:
        return list(range(JOURNAL_DAYS))
    if j == w - 1:
        return [JOURNAL_DAYS - 1]
    last = JOURNAL_DAYS - 1
    return list(range(j * last // (w - 1), (j + 1) * last // (w - 1)))


class Planner:
    """Decides, before anything is written, which commit creates and which archives each record."""

    def __init__(self, *, entries: int, commits: int, groups: list[str], live_share: float | None,
                 rng: random.Random) -> None:
        self.rng = rng
        self.n_entries = entries
        self.n_commits = commits
        self.groups = groups
        self.journal_files = [LiveFile(f"#journal{d}", capacity(JOURNAL_BUDGET), JOURNAL_KINDS)
                              for d in range(JOURNAL_DAYS)]
        self.sources = [LiveFile(f"{MEMORY}/{name}", capacity(budget), ((kind, 1),))
                        for name, _, kind, budget in CATEGORIES]
        self.sources += [LiveFile(f"{MEMORY}/groups/{g}/experience.md", capacity(EXPERIENCE_BUDGET),
                                  EXPERIENCE_KINDS, group=g) for g in groups]
        live_files = self.journal_files + self.sources
        max_live = sum(f.cap for f in live_files)
        if live_share is None:
            self.n_live = min(round(DEFAULT_LIVE_CAP * entries), int(DEFAULT_FILL * max_live))
        else:
            if not 0.0 <= live_share <= 1.0:
                raise ValueError("--live-share must be between 0 and 1")
            self.n_live = round(live_share * entries)
            if self.n_live > max_live:
                raise ValueError(
                    f"--live-share {live_share} asks for {self.n_live} live entries, but the live files hold "
                    f"at most {max_live} under their line budgets; lower it or add --groups")
        self.n_archived = entries - self.n_live
        for f, share in zip(live_files, _apportion(self.n_live, [f.cap for f in live_files]), strict=True):
            f.live = share
        self.plans: list[CommitPlan] = []
        self.flush_idx: list[int] = []

    # ..... commit kinds and the journal window
    def schedule(self) -> None:
        c = self.n_commits
        minimum = 4 if self.n_archived else 2
        if c < minimum:
            raise ValueError(f"--commits must be at least {minimum} for this many archived entries")
        k = 0
        if self.n_archived:
            k = min(self.n_archived, max(1, (c - 1) // REM_EVERY))
        rems = {1 + (i + 1) * (c - 2) // (k + 1) for i in range(k)}
        self.plans = [CommitPlan("init")]
        for i in range(1, c):
            self.plans.append(CommitPlan("rem" if i in rems else "flush"))
        self.flush_idx = [i for i, p in enumerate(self.plans) if p.kind == "flush"]
        self.plans[-1].final = True

    def window(self, span_days: int) -> list[int]:
        """Mark the last flushes as the journal window; return their indices."""
        n_flush = len(self.flush_idx)
        w = min(n_flush, max(4, round((self.n_commits - 1) * JOURNAL_DAYS / span_days)))
        window = self.flush_idx[n_flush - w:]
        covering: list[list[int]] = [[] for _ in range(JOURNAL_DAYS)]
        for j, ci in enumerate(window):
            days = _window_days(j, w)
            self.plans[ci].journal_day = days[-1]
            for d in days:
                covering[d].append(ci)
        for d, commits in enumerate(covering):
            count = self.journal_files[d].live
            path = self.journal_files[d].path
            per = [0] * len(commits)
            for r in range(count):
                per[r * len(commits) // count] += 1
            if count and per[-1] == 0 and commits[-1] == window[-1]:
                per[-1] += 1
                per[max(i for i, n in enumerate(per[:-1]) if n)] -= 1
            for n, ci in zip(per, commits, strict=True):
                if n or ci == commits[0]:
                    self.plans[ci].touches[path] = [False] * n
        final = self.plans[-1]
        final.touches.setdefault(f"{MEMORY}/INDEX.md", [])
        final.touches.setdefault(f"{MEMORY}/flush-state.json", [])
        return window

    # ..... placing records on flush commits
    def _place(self, path: str, target: int, lo: int, hi: int, flags: list[bool]) -> int:
        """Put `flags` (new records of `path`) on a flush commit near position `target`; return its index."""
        best: tuple[int, int, int] | None = None
        for radius in (SEARCH_RADIUS, hi - lo):
            for pos in range(max(lo, target - radius), min(hi, target + radius + 1)):
                touches = self.plans[self.flush_idx[pos]].touches
                if path not in touches and len(touches) >= MAX_FLUSH_FILES:
                    continue
                key = (len(touches), abs(pos - target), pos)
                if best is None or key < best:
                    best = key
            if best is not None:
                break
        if best is None:  # every commit in range is full: overflow the least loaded one (tiny histories)
            best = min((len(self.plans[self.flush_idx[p]].touches), abs(p - target), p) for p in range(lo, hi))
        ci = self.flush_idx[best[2]]
        self.plans[ci].touches.setdefault(path, []).extend(flags)
        return ci

    def place_live(self) -> dict[str, tuple[list[int], list[int]]]:
        """Spread live records of category and experience files, more of them late in the history."""
        n = len(self.flush_idx)
        work: list[tuple[str, int]] = []
        for f in self.sources:
            work += [(f.path, size) for size in _split(self.rng, f.live, 1, 3)]
        self.rng.shuffle(work)
        made: dict[str, list[tuple[int, int]]] = {f.path: [] for f in self.sources}
        for path, size in work:
            target = min(n - 1, int(self.rng.random() ** (1 / 3) * n))
            ci = self._place(path, target, 0, n, [False] * size)
            made[path].append((ci, size))
        prefix: dict[str, tuple[list[int], list[int]]] = {}
        for path, items in made.items():
            items.sort()
            at = [ci for ci, _ in items]
            sums: list[int] = []
            total = 0
            for _, size in items:
                total += size
                sums.append(total)
            prefix[path] = (at, sums)
        return prefix

    def place_archived(self, live_at: dict[str, tuple[list[int], list[int]]]) -> None:
        rem_idx = [i for i, p in enumerate(self.plans) if p.kind == "rem"]
        if not rem_idx:
            return
        # round robin over the source files, category files spread evenly among the group files
        cats = [f for f in self.sources if f.group is None]
        exps = [f for f in self.sources if f.group is not None]
        self.rng.shuffle(cats)
        self.rng.shuffle(exps)
        spread = [((i + 0.5) / len(cats), f) for i, f in enumerate(cats)]
        spread += [(i / len(exps), f) for i, f in enumerate(exps)]
        order = [f for _, f in sorted(spread, key=lambda item: item[0])]
        by_path = {f.path: f for f in order}

        def live_before(path: str, ci: int) -> int:
            at, sums = live_at[path]
            i = bisect_left(at, ci)
            return sums[i - 1] if i else 0

        def flush_range(lo_ci: int, hi_ci: int) -> tuple[int, int]:
            return bisect_right(self.flush_idx, lo_ci), bisect_left(self.flush_idx, hi_ci)

        m = len(order)
        for s in range(min(2, m), m + 1):
            slots: list[tuple[int, str, int, int, int]] = []  # rem #, path, room, flush lo, flush hi
            last: dict[str, int] = {}
            for k, ri in enumerate(rem_idx):
                picked = [order[(k * s + t) % m].path for t in range(s)]
                picked = list(dict.fromkeys(picked))
                self.plans[ri].rem_files = picked
                for path in picked:
                    lo, hi = flush_range(last.get(path, 0), ri)
                    last[path] = ri
                    room = by_path[path].cap - live_before(path, ri) if hi > lo else 0
                    slots.append((k, path, max(0, room), lo, hi))
            per_rem = [0] * len(rem_idx)
            for k, _, room, _, _ in slots:
                per_rem[k] += room
            if sum(per_rem) >= self.n_archived and min(per_rem) > 0:
                break
        else:
            raise ValueError(
                f"{self.n_archived} archived entries do not fit in {len(rem_idx)} consolidations without "
                "breaking the line budgets; raise --commits or --live-share")
        counts = [0] * len(slots)
        for k in range(len(rem_idx)):  # every consolidation archives at least one entry
            best = max((i for i, sl in enumerate(slots) if sl[0] == k), key=lambda i: (slots[i][2], -i))
            counts[best] = 1
        extra = _apportion(self.n_archived - len(rem_idx), [sl[2] - c for sl, c in zip(slots, counts, strict=True)])
        for i, (_, path, _, lo, hi) in enumerate(slots):
            for size in _split(self.rng, counts[i] + extra[i], 1, 4):
                self._place(path, self.rng.randrange(lo, hi), lo, hi, [True] * size)

    def fill_empty(self) -> None:
        """A flush that got no records updates an attention file instead (a task status change)."""
        targets = [f"{MEMORY}/main/attention.md"] + [f"{MEMORY}/groups/{g}/attention.md" for g in self.groups]
        for ci in self.flush_idx:
            plan = self.plans[ci]
            if not plan.touches:
                plan.attention = self.rng.choice(targets)

    def timestamps(self, start: date, span_days: int, window: list[int], not_after: int | None) -> None:
        def midnight(day: date) -> int:
            return int(datetime(day.year, day.month, day.day, tzinfo=timezone.utc).timestamp())

        end = start + timedelta(days=span_days)
        anchors: dict[int, int] = {0: midnight(start) + 9 * 3600}
        per_day: dict[int, list[int]] = {}
        for ci in window:
            per_day.setdefault(self.plans[ci].journal_day, []).append(ci)
        for day, commits in per_day.items():
            base = midnight(end - timedelta(days=JOURNAL_DAYS - 1 - day)) + 8 * 3600
            slot = 14 * 3600 // len(commits)
            for m, ci in enumerate(commits):
                anchors[ci] = base + m * slot + self.rng.randrange(max(1, slot // 2))
        keys = sorted(anchors)
        for a, b in itertools.pairwise(keys):
            inner = b - a - 1
            for i, ci in enumerate(range(a + 1, b)):
                frac = (i + 1 + self.rng.uniform(-0.4, 0.4)) / (inner + 1)
                anchors[ci] = anchors[a] + int((anchors[b] - anchors[a]) * frac)
        prev = 0
        for ci, plan in enumerate(self.plans):
            plan.when = max(anchors[ci], prev + 1)
            prev = plan.when
        if not_after is not None:  # a history that ends today must not end in the future
            for plan in reversed(self.plans):
                plan.when = min(plan.when, not_after)
                not_after = plan.when - 1


def plan_history(*, entries: int, commits: int, groups: list[str], live_share: float | None, rng: random.Random,
                 start: date, span_days: int, not_after: int | None) -> Planner:
    """Every commit planned: its kind, the journal window, the records it adds or archives, its time."""
    planner = Planner(entries=entries, commits=commits, groups=groups, live_share=live_share, rng=rng)
    planner.schedule()
    window = planner.window(span_days)
    live_at = planner.place_live()
    planner.place_archived(live_at)
    planner.fill_empty()
    planner.timestamps(start, span_days, window, not_after)
    return planner
