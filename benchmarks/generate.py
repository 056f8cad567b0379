#!/usr/bin/env python3
"""Generate a synthetic apm-git memory repository, fast and deterministically.

    python benchmarks/generate.py OUT_DIR [--preset small|large] [--entries N] [--commits C]
        [--groups G] [--live-share F] [--seed S] [--start-date YYYY-MM-DD]

The whole history is planned in memory first and then written with one `git fast-import`
stream, so thousands of commits take seconds.  The same arguments (with an explicit
`--start-date`) give a byte-identical repository, commit ids included.

Layout (DESIGN 2): `apm.yaml`, and under `memory/` the index, the five category files, ten daily
journals ending on the end date, `group_names.json`, `flush-state.json`, per group an L0 index and
`attention/project/people/experience.md`, the DM files under `main/`, and `archive/YYYY-MM.md`.

History: commit 1 is `memory: init`; every later commit is either a flush (1-3 files: new records
appended to journals, a group's `experience.md` or a category file) or, about every 20th commit, a
REM consolidation that moves the records meant for the archive out of 1-2 source files into
`archive/<month of the commit>.md` (`Apm-Archive:` trailers).  Live files stay under their line
budgets at every commit, not only at the end.  Entry ids are unique across the whole repository.

Stdlib only; `generate()` is importable by benchmark scripts.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Literal

# --------------------------------------------------------------------------- constants

MEMORY = "memory"
IDENT = "apm-git <apm-git@example.invalid>"
BRANCH = "main"
JOURNAL_DAYS = 10
PREAMBLE_LINES = 2  # "# Title" + one blank line
RECORD_LINES = 5  # header, Tags, Fitness, Body, blank line
MAX_FLUSH_FILES = 3  # a flush commit touches at most this many files (soft for tiny histories)
REM_EVERY = 20  # about every 20th commit is a consolidation
DEFAULT_LIVE_CAP = 0.9  # by default at most 90% of the entries are live ...
DEFAULT_FILL = 0.9  # ... and live files are filled to at most 90% of their record capacity
PROVEN_SHARE = 0.05
MAX_SLUG = 60  # apm_git.model.entry_id truncates longer slugs; stay below so ids stay unique
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
HOT_FILES = ("decisions.md", "project-context.md")
SEARCH_HINTS = {
    "lessons.md": "bug root causes, workarounds",
    "people.md": "preferences, roles",
    "tools-config.md": "commands, env, proxy",
}
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
TRIGGERS = (("session-end", 45), ("pre-compact", 30), ("idle", 15), ("manual", 10))
VALUE_POINTS = {"HIGH": 50, "MEDIUM": 25, "LOW": 0}


@dataclass(frozen=True)
class Preset:
    entries: int
    commits: int
    groups: int


PRESETS: dict[str, Preset] = {
    "small": Preset(entries=100, commits=10, groups=2),
    "large": Preset(entries=20_000, commits=5_000, groups=40),
}

# --------------------------------------------------------------------------- vocabulary

TOPICS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    # tag, display, technologies, things
    ("cache", "cache", ("redis", "memcached", "varnish"),
     ("session store", "eviction policy", "warmup job", "TTL defaults", "key schema")),
    ("deploy", "deploy", ("kubernetes", "helm", "argocd", "nomad"),
     ("rollout plan", "canary stage", "rollback script", "release train", "blue-green switch")),
    ("auth", "auth", ("oauth", "jwt", "saml", "keycloak"),
     ("token refresh", "SSO login", "MFA flow", "session expiry", "password reset")),
    ("billing", "billing", ("stripe", "chargebee", "paddle"),
     ("invoice run", "refund flow", "tax rules", "proration", "dunning emails")),
    ("ci", "CI", ("github-actions", "buildkite", "gitlab-ci"),
     ("runner pool", "test sharding", "build cache", "artifact upload", "flaky test quarantine")),
    ("postgres", "Postgres", ("postgres", "pgbouncer", "patroni"),
     ("index bloat", "vacuum schedule", "read replica", "schema migration", "connection pool")),
    ("search", "search", ("elasticsearch", "opensearch", "meilisearch"),
     ("reindex job", "analyzer config", "relevance tuning", "shard layout")),
    ("queue", "queue", ("kafka", "rabbitmq", "sqs"),
     ("dead-letter queue", "consumer lag", "retry backoff", "partition count")),
    ("monitoring", "monitoring", ("prometheus", "grafana", "otel", "loki"),
     ("alert rules", "trace sampling", "log retention", "SLO dashboard")),
    ("frontend", "frontend", ("react", "vite", "nextjs"),
     ("bundle size", "hydration errors", "i18n strings", "design tokens")),
    ("api", "API", ("graphql", "rest", "grpc"),
     ("rate limits", "pagination", "versioning", "error envelope")),
    ("storage", "storage", ("s3", "gcs", "minio"),
     ("lifecycle rules", "bucket policy", "upload limits", "backup retention")),
    ("dns", "DNS", ("route53", "cloudflare"),
     ("TTL change", "TLS certificates", "domain cutover")),
    ("email", "email", ("ses", "postmark", "sendgrid"),
     ("bounce handling", "DKIM keys", "template rendering")),
    ("mobile", "mobile", ("ios", "android", "expo"),
     ("push tokens", "app review", "crash reporting")),
    ("security", "security", ("vault", "trivy", "snyk"),
     ("secret rotation", "CVE triage", "audit log")),
    ("network", "network", ("nginx", "envoy", "haproxy"),
     ("proxy timeouts", "TLS termination", "egress rules")),
    ("data", "data", ("airflow", "dbt", "snowflake"),
     ("nightly ETL", "warehouse costs", "backfill job")),
    ("ml", "ML", ("pytorch", "onnx", "triton"),
     ("embedding model", "GPU quota", "eval harness")),
    ("testing", "testing", ("pytest", "playwright", "hypothesis"),
     ("fixture setup", "e2e suite", "coverage gate")),
)
TITLES: dict[str, tuple[str, ...]] = {
    "decision": ("Use {t} for the {x}", "Adopt {t} for {T} {x}", "Keep the {x} on {t}",
                 "Move the {x} to {t}", "Pin the {t} version for {T}", "Split the {x} out of {T}"),
    "lesson": ("{t} timeouts during the {x}", "{T} {x} broke after upgrade", "Race in the {x} with {t}",
               "{t} memory leak in the {x}", "Silent {x} failure on {t}", "{T} {x} slow under load"),
    "context": ("{T} stack runs on {t}", "Where the {x} runs", "{T} {x} ownership",
                "{t} cluster layout for {T}", "{T} {x} limits"),
    "person": ("{name} prefers {pref}", "{name} owns the {x}", "{name} reviews {T} changes",
               "{name} is on call for {T}"),
    "tool": ("{t} CLI cheatsheet for {T}", "Env vars for the {x}", "Proxy settings for {t}",
             "Local {t} setup", "{t} debug flags"),
    "pending": ("Finish the {x} migration", "Follow up on {t} {x}", "Review the {x} PR",
                "Write the {x} runbook"),
    "anchor": ("Config path for the {x}", "Endpoint of the {T} {x}", "Dashboard for {t}",
               "Repo folder of the {x}"),
}
BODIES: dict[str, tuple[str, ...]] = {
    "decision": ("Use {t} for the {x}; {alt} {fail}.", "Chose {t} over {alt} for the {x}: {why}.",
                 "The {x} stays on {t} until {blocker}; {why}."),
    "lesson": ("Root cause: {cause}; fix: {fix}.", "The {x} failed because of {cause}; we {fix}.",
               "Symptom was {symptom} in the {x}; cause: {cause}."),
    "context": ("The {x} runs on {t} in {env}; {team} owns it.", "{T} uses {t} for the {x}; deploys go through {env}.",
                "The {x} handles about {n}k requests per hour on {t}."),
    "person": ("{name} is the {role}; prefers {pref}.", "{name} ({role}) wants {pref} for {T} work.",
               "Ask {name} before changing the {x}; {name} is the {role}."),
    "tool": ("Run `{cmd}` before touching the {x}; needs {envvar} set.", "Set {envvar} for {t}, then run `{cmd}`.",
             "`{cmd}` shows the {x} state; {envvar} selects the target."),
    "pending": ("Still open: the {x} on {t}; blocked on {blocker}.", "Next step for the {x}: {fixnext}.",
                "Waiting on {name} for the {x}; then {fixnext}."),
    "anchor": ("{path} holds the {x} settings for {t}.", "The {x} lives at {path}.",
               "{T} {x} config: {path} ({env})."),
}
WORDS: dict[str, tuple[str, ...]] = {
    "fail": ("lost keys on restart", "could not keep up with peak load", "needed too much manual tuning",
             "had no managed offering", "broke on every minor upgrade", "was too expensive at our volume"),
    "why": ("cheaper at our scale", "the team already knows it", "better failure isolation",
            "simpler on-call story", "native support for retries", "fewer moving parts"),
    "cause": ("a missing index on the lookup column", "connection pool exhaustion", "clock skew between nodes",
              "an unbounded retry loop", "a stale DNS record", "a default timeout of 30 s",
              "a race between two workers", "an expired certificate", "a full disk on the runner"),
    "fix": ("added the index concurrently", "capped the pool at 50", "enabled NTP on the hosts",
            "added jittered backoff", "lowered the TTL to 60 s", "added a circuit breaker",
            "took a row lock", "automated certificate renewal", "rotated logs daily"),
    "fixnext": ("write the migration script", "run the load test again", "update the runbook",
                "get sign-off from security", "flip the feature flag in staging"),
    "symptom": ("p99 latency spikes", "502 errors", "duplicate emails", "missing rows", "stuck jobs"),
    "env": ("production", "staging", "eu-west-1", "the shared cluster", "the on-prem rack"),
    "team": ("the platform team", "the payments squad", "the data team", "the web team", "SRE"),
    "role": ("tech lead", "product manager", "on-call SRE", "security reviewer", "release manager",
             "designer", "QA lead"),
    "pref": ("async reviews", "short PRs", "written RFCs", "Slack over email", "morning standups",
             "screenshots in bug reports", "small releases"),
    "name": ("Alice", "Bob", "Chen", "Dana", "Eve", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kofi",
             "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tara", "Uma", "Victor",
             "Wen", "Yusuf", "Zoe"),
    "cmd": ("make bootstrap", "kubectl rollout status", "terraform plan", "pg_dump --schema-only",
            "npm run build", "docker compose up -d", "pytest -x -q", "helm diff upgrade"),
    "envvar": ("AWS_PROFILE", "KUBECONFIG", "DATABASE_URL", "HTTPS_PROXY", "REDIS_URL", "NODE_OPTIONS"),
    "blocker": ("the vendor contract", "the Q3 freeze", "a security review", "the schema migration",
                "budget approval"),
    "path": ("config/{tag}.yaml", "infra/{tag}/main.tf", "deploy/{tag}/values.yaml",
             "https://api.internal/{tag}/v2", "/etc/{t}/{t}.conf"),
}

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def vocabulary(rng: random.Random, topic: tuple[str, str, tuple[str, ...], tuple[str, ...]]) -> dict[str, str]:
    """The words that fill TITLES and BODIES templates, for one topic."""
    tag, display, techs, things = topic
    tech = rng.choice(techs)
    others = [t for other in TOPICS for t in other[2] if t != tech]
    words = {key: rng.choice(options) for key, options in WORDS.items()}
    fill = dict(words, t=tech, T=display, x=rng.choice(things), tag=tag, alt=rng.choice(others),
                tc=tech.capitalize(), n=str(rng.randint(2, 90)))
    fill["path"] = words["path"].format(tag=tag, t=tech)
    return fill


def slugify(title: str) -> str:
    return _NOT_SLUG.sub("-", title.lower()).strip("-")


def capacity(budget: int) -> int:
    """Records a file can hold while staying strictly under its line budget."""
    return max(0, (budget - 1 - PREAMBLE_LINES) // RECORD_LINES)


# --------------------------------------------------------------------------- result

@dataclass(frozen=True)
class GeneratedRepo:
    out_dir: Path
    entry_ids: list[str]
    live_ids: list[str]
    archived_ids: list[str]
    commits: int
    seconds: float


# --------------------------------------------------------------------------- plan

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


def _weighted(rng: random.Random, options: Sequence[tuple[str, int]]) -> str:
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


# --------------------------------------------------------------------------- content

@dataclass
class Entry:
    eid: str
    title: str
    core: str  # header and fields, without the blank line that follows
    archive: bool
    source: str
    day: date
    last_referenced: date
    hits: int
    value: str
    proven: bool

    def score(self, today: date) -> int:
        recency = max(0, 100 - (today - self.last_referenced).days)
        return recency + min(50, 5 * self.hits) + VALUE_POINTS[self.value] + (30 if self.proven else 0)


class Writer:
    """Builds every file's text as the planned commits are replayed."""

    def __init__(self, rng: random.Random, end: date) -> None:
        self.rng = rng
        self.end = end
        self.counter = 100
        self.records: dict[str, list[Entry]] = {}
        self.preamble: dict[str, str] = {}
        self.archive_text: dict[str, list[str]] = {}
        self.touched_on: dict[str, date] = {}

    def entry(self, kind: str, path: str, day: date, created: date, *, archive: bool, journal: bool) -> Entry:
        rng = self.rng
        self.counter += 1
        fill = vocabulary(rng, rng.choice(TOPICS))
        tag = fill["tag"]
        base = rng.choice(TITLES[kind]).format(**fill)
        base = base[0].upper() + base[1:]
        ticket = f"({tag.upper()}-{self.counter})"
        title = f"{base} {ticket}"
        while len(slugify(title)) > MAX_SLUG and " " in base:
            base = base.rsplit(" ", 1)[0]
            title = f"{base} {ticket}"
        body = rng.choice(BODIES[kind]).format(**fill)
        proven = not (archive or journal) and rng.random() < PROVEN_SHARE
        if archive:  # low value and long unreferenced by the time REM archives it
            value = "MEDIUM" if rng.random() < 0.3 else "LOW"
            hits = rng.randint(0, 3)
            last = day + timedelta(days=rng.randint(0, min(14, (created - day).days)))
        elif journal:
            value = rng.choice(("HIGH", "MEDIUM", "MEDIUM", "LOW"))
            hits = rng.randint(0, 2)
            last = min(self.end, day + timedelta(days=rng.randint(0, 2)))
        else:
            value = rng.choice(("HIGH", "HIGH", "MEDIUM", "MEDIUM", "LOW"))
            hits = rng.randint(0, 12)
            last = self.end - timedelta(days=int((self.end - day).days * rng.random() ** 2))
        if proven:
            value = "HIGH"
            hits = max(hits, rng.randint(5, 24))
        extra = [tag, slugify(fill["t"])]
        if rng.random() < 0.4:
            extra.append(slugify(fill["x"]))
        tags = ", ".join(dict.fromkeys([kind, *extra]))
        marker = "[PROVEN] " if proven else ""
        core = (f"## [{day.isoformat()}] {marker}{title}\n"
                f"- Tags: {tags}\n"
                f"- Fitness: last_referenced={last.isoformat()}, hit_count={hits}, decision_value={value}\n"
                f"- Body: {body}\n")
        return Entry(f"{day.isoformat()}-{slugify(title)}", title, core, archive, path, day, last, hits, value,
                     proven)

    def render(self, path: str) -> str:
        return self.preamble[path] + "".join(e.core + "\n" for e in self.records[path])

    def lines(self, path: str) -> int:
        return self.render(path).count("\n")


# --------------------------------------------------------------------------- fast-import

class Stream:
    def __init__(self, sink: IO[bytes]) -> None:
        self.sink = sink
        self.sink.write(b"feature done\n")

    @staticmethod
    def _data(text: str) -> bytes:
        raw = text.encode("utf-8")
        return b"data %d\n%s\n" % (len(raw), raw)

    def commit(self, when: int, message: str, files: Iterable[tuple[str, str]]) -> None:
        parts = [
            f"commit refs/heads/{BRANCH}\n".encode(),
            f"author {IDENT} {when} +0000\n".encode(),
            f"committer {IDENT} {when} +0000\n".encode(),
            self._data(message),
        ]
        for path, text in files:
            parts.append(f"M 100644 inline {path}\n".encode())
            parts.append(self._data(text))
        parts.append(b"\n")
        self.sink.write(b"".join(parts))

    def done(self) -> None:
        self.sink.write(b"done\n")


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX"):
        env.pop(key, None)
    return env


# --------------------------------------------------------------------------- static files

def _iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


def _day(ts: int) -> date:
    return datetime.fromtimestamp(ts, tz=timezone.utc).date()


def _flush_state(groups_ts: int, main_ts: int) -> str:
    state = {
        "groups": {"last_flush_time": _iso(groups_ts)},
        "main_session": {"last_flush_time": _iso(main_ts)},
        "pending_items": [],
    }
    return json.dumps(state, indent=2) + "\n"


def _group_index(g: str) -> str:
    return (
        f"# Group memory: {g}\n\n"
        "## Hard Rules\n\n"
        "- This index is the only entry point; load one file at a time.\n"
        "- At most 2 P0-P2 files and 1 P3 file per session.\n\n"
        "## Routing\n\n"
        "| Trigger keywords | File | Priority |\n"
        "|---|---|---|\n"
        "| task, todo, blocker, deadline, urgent | attention.md | P0 |\n"
        "| project, stack, architecture, roadmap | project.md | P1 |\n"
        "| decision, lesson, why, how did we, incident | experience.md | P2 |\n"
        "| who, owner, contact, role | people.md | P3 |\n"
    )


def _attention(title: str, tasks: list[str]) -> str:
    return f"# {title}\n\n" + "".join(f"- {t}\n" for t in tasks)


def _index_md(writer: Writer, journals: list[str], end: date) -> str:
    out = [
        "# Memory Index\n",
        f"> Last rebuilt: {end.isoformat()} | Total files: {len(CATEGORIES) + len(journals)} | "
        "Budget: 4000 tokens\n",
        "\n## Hot Files (load on session start)\n\n",
        "| File | Lines | Last Updated | Recent Entries |\n",
        "|------|-------|-------------|----------------|\n",
    ]

    def recent(path: str, n: int = 2) -> str:
        titles = [re.sub(r" \([A-Z]+-\d+\)$", "", e.title) for e in writer.records[path][-n:]]
        return ", ".join(titles) or "-"

    def updated(path: str) -> str:
        return writer.touched_on[path].isoformat() if path in writer.touched_on else "-"

    for name in HOT_FILES:
        path = f"{MEMORY}/{name}"
        out.append(f"| {name} | {writer.lines(path)} | {updated(path)} | {recent(path)} |\n")
    out += [
        "\n## On-Demand Files (load when relevant)\n\n",
        "| File | Lines | Last Updated | Search Hint |\n",
        "|------|-------|-------------|-------------|\n",
    ]
    for name, hint in SEARCH_HINTS.items():
        path = f"{MEMORY}/{name}"
        out.append(f"| {name} | {writer.lines(path)} | {updated(path)} | {hint} |\n")
    out += [
        "\n## Daily Journals\n\n",
        "| Date | Exists | Key Events |\n",
        "|------|--------|------------|\n",
    ]
    for path in reversed(journals):
        day = Path(path).stem
        out.append(f"| {day} | ✅ | {recent(path)} |\n")
    return "".join(out)


# --------------------------------------------------------------------------- generate

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

    planner = Planner(entries=entries, commits=commits, groups=group_names, live_share=live_share, rng=rng)
    planner.schedule()
    window = planner.window(span_days)
    live_at = planner.place_live()
    planner.place_archived(live_at)
    planner.fill_empty()
    planner.timestamps(start, span_days, window, not_after)
    plans = planner.plans

    journal_paths = [f"{MEMORY}/{(end - timedelta(days=JOURNAL_DAYS - 1 - d)).isoformat()}.md"
                     for d in range(JOURNAL_DAYS)]
    real_path = {f"#journal{d}": journal_paths[d] for d in range(JOURNAL_DAYS)}
    budgets = {f"{MEMORY}/{name}": budget for name, _, _, budget in CATEGORIES}
    budgets.update(dict.fromkeys(journal_paths, JOURNAL_BUDGET))
    budgets.update({f"{MEMORY}/groups/{g}/experience.md": EXPERIENCE_BUDGET for g in group_names})
    kinds = {f.path: f.kinds for f in planner.sources}
    kinds.update({real_path[f.path]: f.kinds for f in planner.journal_files})

    writer = Writer(rng, end)
    for name, title, _, _ in CATEGORIES:
        writer.preamble[f"{MEMORY}/{name}"] = f"# {title}\n\n"
    for g in group_names:
        writer.preamble[f"{MEMORY}/groups/{g}/experience.md"] = f"# Experience: {g}\n\n"
    for p in journal_paths:
        writer.preamble[p] = f"# Journal {Path(p).stem}\n\n"
    for p in writer.preamble:
        writer.records[p] = []
    attention = {path: [_task_line(rng, start), _task_line(rng, start)]
                 for path in [f"{MEMORY}/main/attention.md"]
                 + [f"{MEMORY}/groups/{g}/attention.md" for g in group_names]}
    attention_title = {p: ("Attention (DM)" if "/main/" in p else f"Attention: {p.split('/')[2]}")
                       for p in attention}

    git_env = _git_env()
    subprocess.run(["git", "init", "-q", "-b", BRANCH, str(out_dir)], check=True, env=git_env)
    entry_ids: list[str] = []
    archived_ids: list[str] = []
    last_group_ts = plans[0].when
    session = 0
    session_open = False
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=out_dir, stdin=subprocess.PIPE,
                                stderr=errors, env=git_env)
        assert proc.stdin is not None
        try:
            stream = Stream(proc.stdin)
            for plan in plans:
                day = _day(plan.when)
                if plan.kind == "init":
                    stream.commit(plan.when, "memory: init\n",
                                  _init_files(writer, group_names, attention, attention_title, plan.when))
                    continue
                files: list[tuple[str, str]] = []
                if plan.kind == "rem":
                    trailers: list[str] = []
                    month = f"{MEMORY}/archive/{day:%Y-%m}.md"
                    moved = writer.archive_text.setdefault(month, [])
                    for src in plan.rem_files:
                        gone = [e for e in writer.records[src] if e.archive]
                        if not gone:
                            continue
                        writer.records[src] = [e for e in writer.records[src] if not e.archive]
                        for e in gone:
                            score = e.score(day)
                            moved.append(
                                f"{e.core}- Archived: {day.isoformat()} (fitness score: {score}, "
                                f"last_referenced: {e.last_referenced.isoformat()}, from {src})\n\n")
                            trailers.append(f"Apm-Archive: {e.eid} {src} -> {month} (score {score})")
                            archived_ids.append(e.eid)
                        files.append((src, writer.render(src)))
                        writer.touched_on[src] = day
                    files.append((month, f"# Archive {day:%Y-%m}\n\n" + "".join(moved)))
                    n = len(trailers)
                    message = f"memory: rem archive {n} entr{'y' if n == 1 else 'ies'}\n\n" + "\n".join(trailers) + "\n"
                    stream.commit(plan.when, message, files)
                    continue
                # a flush
                for key, flags in plan.touches.items():
                    path = real_path.get(key, key)
                    if path in (f"{MEMORY}/INDEX.md", f"{MEMORY}/flush-state.json"):
                        continue
                    journal = key in real_path
                    for archive in flags:
                        kind = _weighted(rng, kinds[path])
                        if journal:
                            rec_day = date.fromisoformat(Path(path).stem)
                        elif archive:  # promoted from an older journal, then left unreferenced
                            rec_day = max(start, day - timedelta(days=rng.randint(0, 60)))
                        else:
                            rec_day = max(start, day - timedelta(days=rng.choice((0, 0, 0, 1, 2))))
                        e = writer.entry(kind, path, rec_day, day, archive=archive, journal=journal)
                        writer.records[path].append(e)
                        entry_ids.append(e.eid)
                    files.append((path, writer.render(path)))
                    writer.touched_on[path] = day
                    if writer.lines(path) >= budgets[path]:
                        raise RuntimeError(f"bug: {path} reached its line budget at {day}")
                if plan.attention:
                    tasks = attention[plan.attention]
                    tasks.append(_task_line(rng, day))
                    del tasks[:-6]
                    files.append((plan.attention, _attention(attention_title[plan.attention], tasks)))
                if any("/groups/" in p for p, _ in files):
                    last_group_ts = plan.when
                if plan.final:
                    files.append((f"{MEMORY}/flush-state.json", _flush_state(last_group_ts, plan.when)))
                    files.append((f"{MEMORY}/INDEX.md", _index_md(writer, journal_paths, end)))
                if not session_open:
                    session += 1
                trigger = _weighted(rng, TRIGGERS)
                session_open = trigger == "pre-compact" and not plan.final
                if plan.final:
                    trigger = "session-end"
                message = (f"memory: flush {len(files)} file{'' if len(files) == 1 else 's'} ({trigger})\n\n"
                           f"Apm-Trigger: {trigger}\nApm-Scope: {_scope([p for p, _ in files])}\n"
                           f"Apm-Session: sess-{session:04d}\n")
                stream.commit(plan.when, message, files)
            stream.done()
            proc.stdin.close()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if proc.wait() != 0:
            errors.seek(0)
            raise RuntimeError("git fast-import failed: " + errors.read().decode("utf-8", "replace").strip())
    subprocess.run(["git", "reset", "--hard", "-q"], cwd=out_dir, check=True, env=git_env)

    leftover = [p for p, recs in writer.records.items() if any(e.archive for e in recs)]
    if leftover or len(entry_ids) != entries or len(set(entry_ids)) != entries:
        raise RuntimeError(f"bug: plan and result differ (left in live files: {leftover[:3]})")
    archived = set(archived_ids)
    live_ids = [i for i in entry_ids if i not in archived]
    return GeneratedRepo(out_dir=out_dir, entry_ids=entry_ids, live_ids=live_ids, archived_ids=archived_ids,
                         commits=len(plans), seconds=time.perf_counter() - began)


def _scope(paths: list[str]) -> str:
    groups = {p.split("/")[2] for p in paths if p.startswith(f"{MEMORY}/groups/")}
    if len(groups) == 1 and all(p.startswith(f"{MEMORY}/groups/") for p in paths):
        return f"group:{groups.pop()}"
    if all(p.startswith(f"{MEMORY}/main/") for p in paths):
        return "main"
    return "all"


def _task_line(rng: random.Random, day: date) -> str:
    _, display, _, things = rng.choice(TOPICS)
    status = rng.choice(("[ ]", "[ ]", "[x]", "[blocked]"))
    owner = rng.choice(WORDS["name"])
    return f"{status} {display} {rng.choice(things)} (owner: {owner}, updated {day.isoformat()})"


def _init_files(writer: Writer, groups: list[str], attention: dict[str, list[str]],
                attention_title: dict[str, str], when: int) -> list[tuple[str, str]]:
    files = [
        ("apm.yaml", "# apm-git configuration (synthetic benchmark repository)\nmemory_dir: memory\n"),
        (f"{MEMORY}/INDEX.md", _index_md(writer, [], _day(when))),
    ]
    files += [(f"{MEMORY}/{name}", writer.render(f"{MEMORY}/{name}")) for name, _, _, _ in CATEGORIES]
    rooms = {f"room-{i + 1:04d}": g for i, g in enumerate(groups)}
    files.append((f"{MEMORY}/group_names.json", json.dumps(rooms, indent=2) + "\n"))
    files.append((f"{MEMORY}/flush-state.json", _flush_state(when, when)))
    for g in groups:
        base = f"{MEMORY}/groups/{g}"
        files += [
            (f"{base}.md", _group_index(g)),
            (f"{base}/attention.md", _attention(attention_title[f"{base}/attention.md"],
                                                attention[f"{base}/attention.md"])),
            (f"{base}/project.md", f"# Project: {g}\n\nStack, architecture and milestones of {g}.\n"),
            (f"{base}/experience.md", writer.render(f"{base}/experience.md")),
            (f"{base}/people.md", f"# People: {g}\n\nTeam roles and contacts for {g}.\n"),
        ]
    files += [
        (f"{MEMORY}/main/index.md",
         "# DM memory index\n\n## Routing\n\n| Trigger keywords | File | Priority |\n|---|---|---|\n"
         "| task, todo, blocker, today | attention.md | P0 |\n"
         "| background, preference, history, long-term | longterm.md | P1 |\n"),
        (f"{MEMORY}/main/attention.md", _attention(attention_title[f"{MEMORY}/main/attention.md"],
                                                   attention[f"{MEMORY}/main/attention.md"])),
        (f"{MEMORY}/main/longterm.md",
         "# Long-term memory\n\nDistilled from MEMORY.md: the user works on a SaaS platform and prefers short, "
         "reviewed changes.\n"),
    ]
    return files


# --------------------------------------------------------------------------- CLI

def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate a synthetic apm-git memory repository.")
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR", help="new or empty directory")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="small (default) or large")
    parser.add_argument("--entries", type=int, help="records in the repository, live + archived")
    parser.add_argument("--commits", type=int, help="commits in the history, init included")
    parser.add_argument("--groups", type=int, help="group chats (memory/groups/<g>)")
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
