#!/usr/bin/env python3
"""Many writers sharing one memory through `apm-git sync`: nothing may be lost (issue 12).

    .venv/bin/python benchmarks/sync_writers.py --writers 8 --rounds 50
    .venv/bin/python benchmarks/sync_writers.py --writers 32 --rounds 10 --mode per-agent --remote path
    .venv/bin/python benchmarks/sync_writers.py --writers 32 --rounds 50 --journal-budget 400

N clones of one remote (a bare repository served by a real `git daemon` on 127.0.0.1, or by path)
each run their own thread of real `apm-git` processes: random rounds of `journal add`, `hit`,
`flush`, `dream` and `sync`, with APM_GIT_NOW moving six hours a round.  Mode `one-branch`: every
writer syncs with `main`.  Mode `per-agent`: writer N syncs `--branch agents/wN --gather main` and
a consolidating agent loops `sync --gather 'agents/*'` on `main`.  At the end every clone syncs
until all hold the same memory, and the audit checks: identical memory trees, every entry ever
written live, archived, merged or superseded in HEAD and found by `history`, no conflict marker,
`git fsck` clean, `apm-git lint --from-ref <root> --to-ref HEAD` clean, and every commit clean
when linted alone against its parent(s).  Lint findings are counted by check id, a journal over its
line budget (`apm-budget (journal)`) apart from every other; `--journal-budget N` writes `budgets:
journal: N` into the seed repository's apm.yaml (committed before the clones), the setting a memory
many agents share needs (docs/sync.md), and the summary names the longest journal any commit held.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.sync_helpers import bare_remote, git, git_daemon  # noqa: E402

APM = (sys.executable, "-m", "apm_git")
START = dt.datetime(2026, 5, 4, 9, 0, tzinfo=dt.timezone.utc)
STEP = dt.timedelta(hours=6)
OPS = ("add", "hit", "flush", "dream", "sync")
WEIGHTS = (40, 15, 15, 10, 20)
HUB = "hub"
MARKERS = ("<<<<<<<", ">>>>>>>")
BUDGET = "apm-budget"
JOURNAL_BUDGET = f"{BUDGET} (journal)"  # the check id a journal's budget finding is counted under


@dataclasses.dataclass
class Ran:
    code: int
    out: str
    err: str
    seconds: float


@dataclasses.dataclass
class Tally:
    """What the writers did, shared by their threads (under `lock`)."""

    written: list[str] = dataclasses.field(default_factory=list)  # every entry id ever added
    sync_seconds: list[float] = dataclasses.field(default_factory=list)
    gather_seconds: list[float] = dataclasses.field(default_factory=list)
    final_seconds: list[float] = dataclasses.field(default_factory=list)  # the syncs that settle, at the end
    settling: bool = False
    push_retries: int = 0  # pushes rejected and done again
    gave_up: int = 0  # syncs that ran out of attempts (exit 3, the work kept locally)
    conflicts: int = 0
    budget_archived: int = 0  # entries sync archived because its merge put a file over its line budget
    journals_over: int = 0  # journals a sync's merge put over their budget (its `journals_over_budget`)
    unexpected: list[str] = dataclasses.field(default_factory=list)
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)


def apm(root: Path, *args: str, now: dt.datetime) -> Ran:
    started = time.perf_counter()
    proc = subprocess.run(
        (*APM, "--repo", str(root), *args), capture_output=True, text=True, check=False,
        env={**os.environ, "APM_GIT_NOW": now.isoformat(timespec="seconds"), "APM_GIT_LOCK_TIMEOUT": "120"},
    )
    return Ran(proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - started)


def live_ids(root: Path) -> list[str]:
    """Entry ids of the records in the clone's work tree, the archive left out (what `hit` takes)."""
    from apm_git.model.records import parse

    found = []
    memory = root / "memory"
    for path in sorted(memory.rglob("*.md")):
        if "archive" in path.relative_to(memory).parts:
            continue
        with contextlib.suppress(OSError, UnicodeDecodeError):
            found += [record.id for record in parse(path.read_text(encoding="utf-8")).entries]
    return found


def sync_args(mode: str, name: str) -> tuple[str, ...]:
    return ("--json", "sync", *(("--branch", f"agents/{name}", "--gather", "main") if mode == "per-agent" else ()))


def record_sync(tally: Tally, name: str, ran: Ran, *, gather: bool = False) -> None:
    with tally.lock:
        times = tally.final_seconds if tally.settling else tally.gather_seconds if gather else tally.sync_seconds
        times.append(ran.seconds)
        if ran.code in (0, 1) and ran.out.strip():
            data = json.loads(ran.out)
            tally.push_retries += max(0, data["push_attempts"] - 1)
            tally.conflicts += len(data["conflicts"])
            tally.budget_archived += sum(len(step["archived"]) for step in data["integrated"])
            tally.journals_over += len(data["journals_over_budget"])
        elif ran.code == 3 and "rejected the push" in ran.err:
            tally.gave_up += 1
            tally.push_retries += 5
        else:
            tally.unexpected.append(f"{name} sync exit {ran.code}: {ran.err.strip()[:300]}")


def writer(root: Path, name: str, rounds: int, mode: str, seed: int, tally: Tally) -> None:
    rng = random.Random(seed)
    for number in range(rounds):
        now = START + STEP * number + dt.timedelta(minutes=rng.randrange(60))
        op = rng.choices(OPS, WEIGHTS)[0]
        if op == "add":
            title = f"{name} round {number} {rng.choice(('cache', 'deploy', 'schema', 'retry', 'budget'))}"
            ran = apm(root, "--json", "journal", "add", f"{title}: what {name} learned", "--kind",
                      rng.choice(("decision", "lesson", "context")), "--title", title, now=now)
            if ran.code == 0:
                with tally.lock:
                    tally.written.append(json.loads(ran.out)["entry_id"])
        elif op == "hit":
            ids = live_ids(root)
            ran = apm(root, "hit", rng.choice(ids), now=now) if ids else Ran(0, "", "", 0.0)
        elif op == "sync":
            ran = apm(root, *sync_args(mode, name), now=now)
            record_sync(tally, name, ran)
            continue
        else:
            ran = apm(root, op, now=now)
        if ran.code not in (0, 1):
            with tally.lock:
                tally.unexpected.append(f"{name} {op} exit {ran.code}: {ran.err.strip()[:300]}")


def consolidator(hub: Path, stop: threading.Event, rounds: int, tally: Tally) -> None:
    """Per-agent mode: merge every agent branch into main, again and again, until the writers are done."""
    number = 0
    while not stop.is_set():
        ran = apm(hub, "--json", "sync", "--gather", "agents/*", now=START + STEP * min(number, rounds))
        record_sync(tally, HUB, ran, gather=True)
        number += 1
        stop.wait(0.2)


@contextlib.contextmanager
def isolated_git(base: Path) -> Iterator[None]:
    """A HOME of its own: a pinned identity, `main` as the first branch, no user or system config."""
    home = base / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text("[user]\n\tname = Writer\n\temail = writer@example.invalid\n"
                                     "[init]\n\tdefaultBranch = main\n")
    saved = {name: os.environ.get(name) for name in ("HOME", "GIT_CONFIG_NOSYSTEM")}
    os.environ.update({"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclasses.dataclass
class Outcome:
    writers: int
    rounds: int
    mode: str
    remote: str
    seconds: float  # the writers' random rounds, wall clock
    final_seconds: float  # the final syncs until every clone holds the same memory
    tally: Tally
    audit: Audit
    journal_budget: int | None = None  # `budgets: journal:` of the seed repository; None: the default


def simulate(
    base: Path, *, writers: int, rounds: int, mode: str = "one-branch", remote: str = "daemon", seed: int = 1,
    check_history: bool = True, journal_budget: int | None = None,
) -> Outcome:
    bare = bare_remote(base)
    with contextlib.ExitStack() as stack:
        stack.enter_context(isolated_git(base))
        url = str(bare) if remote == "path" else stack.enter_context(git_daemon(base)) + bare.name
        hub = base / HUB
        subprocess.run((*APM, "init", "--no-install", str(hub)), check=True, capture_output=True)
        if journal_budget is not None:
            set_journal_budget(hub, journal_budget)
        git(hub, "remote", "add", "origin", url)
        ran = apm(hub, "sync", now=START)
        assert ran.code == 0, ran.err
        names = [f"w{number}" for number in range(writers)]
        for name in names:
            git(base, "clone", "-q", url, str(base / name))
        tally = Tally()
        threads = [threading.Thread(target=writer, args=(base / name, name, rounds, mode, seed * 1000 + index, tally))
                   for index, name in enumerate(names)]
        stop = threading.Event()
        if mode == "per-agent":
            threads.append(threading.Thread(target=consolidator, args=(hub, stop, rounds, tally)))
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads[:writers]:
            thread.join()
        stop.set()
        for thread in threads[writers:]:
            thread.join()
        seconds = time.perf_counter() - started
        started = time.perf_counter()
        end = START + STEP * rounds
        roots = [base / name for name in names]
        settle(hub, roots, names, mode, end, tally)
        final_seconds = time.perf_counter() - started
        audit = audit_clones([hub, *roots], tally.written, check_history=check_history)
    return Outcome(writers, rounds, mode, remote, seconds, final_seconds, tally, audit, journal_budget)


def set_journal_budget(hub: Path, budget: int) -> None:
    """`budgets: journal: N` in the seed repository's apm.yaml, committed by a flush (the clones start from it)."""
    from apm_git.model.config import DEFAULT_BUDGETS, JOURNAL_KEY

    config = hub / "apm.yaml"
    text = config.read_text(encoding="utf-8")
    default = f"  {JOURNAL_KEY}: {DEFAULT_BUDGETS[JOURNAL_KEY]}\n"
    assert default in text, "apm-git init no longer writes the journal budget where expected"
    config.write_text(text.replace(default, f"  {JOURNAL_KEY}: {budget}\n"), encoding="utf-8")
    ran = apm(hub, "flush", now=START)
    assert ran.code == 0 and not git(hub, "status", "--porcelain", "--", "apm.yaml"), ran.err


def settle(hub: Path, roots: Sequence[Path], names: Sequence[str], mode: str, end: dt.datetime, tally: Tally) -> None:
    """Every clone syncs until all hold the same memory: each pushes what it has, then each takes the result."""
    tally.settling = True
    for _ in range(2):
        for root, name in zip(roots, names, strict=True):
            record_sync(tally, name, apm(root, *sync_args(mode, name), now=end))
        if mode == "per-agent":
            record_sync(tally, HUB, apm(hub, "--json", "sync", "--gather", "agents/*", now=end), gather=True)
        else:
            record_sync(tally, HUB, apm(hub, "--json", "sync", now=end))


def memory_texts(root: Path, rev: str = "HEAD") -> dict[str, str]:
    listing = git(root, "ls-tree", "-r", "-z", "--name-only", rev, "--", "memory").split("\0")
    return {path: git(root, "show", f"{rev}:{path}") for path in listing if path}


def accounted(texts: dict[str, str]) -> set[str]:
    """Every id that is an entry (live or archived) or named in a Merged/Supersedes field."""
    from apm_git.model.entries import summarize
    from apm_git.model.records import parse

    ids: set[str] = set()
    for path, text in texts.items():
        if path.endswith(".md"):
            ids.update(row.split("\t")[2] for row in summarize(parse(text)).splitlines())
    return ids


@dataclasses.dataclass
class Audit:
    identical: bool  # every clone's HEAD holds the same memory tree
    written: int
    lost: list[str]  # ids written and now nowhere on record
    markers: list[str]  # files holding conflict markers
    fsck_failed: list[str]
    history_missing: list[str]  # ids `history` does not find
    lint_exit: int
    lint_output: str
    dirty: list[str]  # clones whose memory differs from their HEAD
    merges: int  # merge commits in the history
    commits: int = 0  # commits linted one by one (each against its first parent; a merge against each parent)
    commit_findings: list[str] = dataclasses.field(default_factory=list)  # what lint found in any one of them
    range_by_check: dict[str, int] = dataclasses.field(default_factory=dict)  # the range lint's findings, by check
    commit_by_check: dict[str, int] = dataclasses.field(default_factory=dict)  # the per-commit findings, by check
    longest_journal: int = 0  # lines of the longest journal any commit held

    @property
    def ok(self) -> bool:
        return self.identical and not (self.lost or self.markers or self.fsck_failed or self.history_missing
                                       or self.dirty or self.commit_findings) and self.lint_exit == 0


def check_id(path: str, hook: str) -> str:
    """The id a lint finding is counted under: a journal over its line budget apart from other budgets."""
    from apm_git.model.dated import journal_date

    return JOURNAL_BUDGET if hook == BUDGET and journal_date(path.removeprefix("memory/")) else hook


def by_check(findings: Sequence[tuple[str, str]]) -> dict[str, int]:
    """(path, check) pairs counted by `check_id`, most first."""
    counts: dict[str, int] = {}
    for path, hook in findings:
        name = check_id(path, hook)
        counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def lint_each_commit(root: Path) -> tuple[int, list[str], dict[str, int]]:
    """`apm-git lint --from-ref C^ --to-ref C` for every commit C but the root, in-process: the files C
    changed pass every check, and a merge is checked against each parent too.  (How many, the findings,
    the findings by check.)"""
    from apm_git.commands.lint import lint
    from apm_git.store.repo import open_repo

    repo = open_repo(root)
    commits = [line.split() for line in git(root, "rev-list", "--parents", "HEAD").splitlines()]
    findings, checks = [], []
    for commit, *parents in commits:
        if parents:
            found = lint(repo, from_ref=parents[0], to_ref=commit).findings
            findings += [f"{commit[:12]}: {finding}" for finding in found]
            checks += [(finding.path, finding.hook) for finding in found]
    return sum(1 for _, *parents in commits if parents), findings, by_check(checks)


def longest_journal(root: Path) -> int:
    """Lines of the longest day's journal (`memory/YYYY-MM-DD.md`) that any commit of HEAD's history held.  A
    blob is listed once, under the path git meets it at first: an old journal moved whole to
    `memory/archive/journals/` is the same blob, so that path counts too."""
    from apm_git.model.dated import journal_date
    from apm_git.model.records import count_lines

    blobs = set()
    for line in git(root, "rev-list", "--objects", "HEAD").splitlines():
        blob, _, path = line.partition(" ")
        if path.startswith("memory/") and journal_date(path.rsplit("/", 1)[-1]):
            blobs.add(blob)
    request = "".join(f"{blob}\n" for blob in sorted(blobs)).encode()
    data = subprocess.run(("git", "cat-file", "--batch"), cwd=root, input=request, capture_output=True,
                          check=True).stdout
    longest, position = 0, 0
    while position < len(data):  # `<id> blob <size>\n<bytes>\n` per blob
        header_end = data.index(b"\n", position)
        size = int(data[position:header_end].split()[2])
        body = data[header_end + 1:header_end + 1 + size]
        longest = max(longest, count_lines(body.decode("utf-8", "replace")))
        position = header_end + 1 + size + 1
    return longest


def audit_clones(roots: Sequence[Path], written: Sequence[str], *, check_history: bool = True) -> Audit:
    from apm_git.commands.history import history
    from apm_git.errors import ApmGitError
    from apm_git.store.repo import open_repo

    trees = {git(root, "rev-parse", "HEAD:memory").strip() for root in roots}
    texts = memory_texts(roots[0])
    lost = sorted(set(written) - accounted(texts))
    markers = sorted(path for path, text in texts.items()
                     if any(line.startswith(MARKERS) for line in text.splitlines()))
    fsck = [str(root) for root in roots if subprocess.run(("git", "fsck", "--strict", "--no-progress"), cwd=root,
                                                          capture_output=True, check=False).returncode != 0]
    unfound = []
    if check_history:
        repo = open_repo(roots[0])
        for entry in written:
            try:
                if not history(repo, entry):
                    unfound.append(entry)
            except ApmGitError:
                unfound.append(entry)
    root_commit = git(roots[0], "rev-list", "--max-parents=0", "HEAD").split()[-1]
    lint = subprocess.run((*APM, "--repo", str(roots[0]), "--json", "lint", "--from-ref", root_commit, "--to-ref",
                           "HEAD"), capture_output=True, text=True, check=False)
    try:
        found = json.loads(lint.stdout)["findings"]
        lint_text = "\n".join(f"{item['path']}:{item['line']}: {item['hook']}: {item['message']}" for item in found)
    except (ValueError, KeyError, TypeError):
        found, lint_text = [], lint.stdout
    range_by_check = by_check([(item["path"], item["hook"]) for item in found])
    dirty = [str(root) for root in roots if git(root, "status", "--porcelain", "--", "memory", "apm.yaml")]
    merges = int(git(roots[0], "rev-list", "--count", "--merges", "HEAD").strip())
    commits, commit_findings, commit_by_check = lint_each_commit(roots[0])
    return Audit(len(trees) == 1, len(written), lost, markers, fsck, unfound, lint.returncode,
                 (lint_text + "\n" + lint.stderr).strip()[:2000], dirty, merges, commits, commit_findings,
                 range_by_check, commit_by_check, longest_journal(roots[0]))


def counted(checks: dict[str, int]) -> str:
    """`apm-budget (journal) 12, apm-budget 1`, or `none`."""
    return ", ".join(f"{name} {count}" for name, count in checks.items()) or "none"


def summary(outcome: Outcome) -> str:
    tally, audit = outcome.tally, outcome.audit
    times = sorted(tally.sync_seconds)
    median = statistics.median(times) if times else 0.0
    p90 = times[int(0.9 * (len(times) - 1))] if times else 0.0
    gathers = statistics.median(tally.gather_seconds) if tally.gather_seconds else 0.0
    journals = audit.commit_by_check.get(JOURNAL_BUDGET, 0)
    return (f"{outcome.writers:>3} writers x {outcome.rounds:>3} rounds  {outcome.mode:<10} {outcome.remote:<6} "
            f"{outcome.seconds:7.1f} s  final {outcome.final_seconds:5.1f} s  syncs {len(times):>4}  "
            f"median {median:.2f} s  p90 {p90:.2f} s  max {max(times, default=0):.2f} s  "
            f"retries {tally.push_retries:>4}  gave up {tally.gave_up:>3}  "
            f"gathers {len(tally.gather_seconds)} (median {gathers:.2f} s)  "
            f"written {audit.written}  lost {len(audit.lost)}  identical {audit.identical}  "
            f"markers {len(audit.markers)}  fsck {'clean' if not audit.fsck_failed else 'FAILED'}  "
            f"history missing {len(audit.history_missing)}  lint exit {audit.lint_exit}  "
            f"commits linted {audit.commits} (findings {len(audit.commit_findings)}: journal budget {journals}, "
            f"other {len(audit.commit_findings) - journals})  "
            f"lint by check: range [{counted(audit.range_by_check)}] commits [{counted(audit.commit_by_check)}]  "
            f"journal budget {outcome.journal_budget or 'default'} (longest journal {audit.longest_journal} lines)  "
            f"merges {audit.merges}  conflicts {tally.conflicts}  archived for budget {tally.budget_archived}  "
            f"journals over budget after a sync merge {tally.journals_over}  "
            f"unexpected {len(tally.unexpected)}")


@contextlib.contextmanager
def workdir(keep: str | None) -> Iterator[Path]:
    if keep:
        path = Path(keep)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    path = Path(tempfile.mkdtemp(prefix="apm-sync-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--writers", type=int, nargs="+", default=[8])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--mode", choices=("one-branch", "per-agent", "both"), default="both")
    parser.add_argument("--remote", choices=("daemon", "path"), default="daemon")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-history", action="store_true", help="skip `history` of every entry (slow at 32 writers)")
    parser.add_argument("--workdir", help="keep the clones here (default: a temporary folder, removed)")
    parser.add_argument("--journal-budget", type=int, metavar="N",
                        help="`budgets: journal: N` in the seed repository's apm.yaml (default: apm-git's, 100 lines)")
    args = parser.parse_args(argv)
    if args.journal_budget is not None and args.journal_budget < 1:
        parser.error("--journal-budget must be a whole number of lines, 1 or more")
    modes = ("one-branch", "per-agent") if args.mode == "both" else (args.mode,)
    failed = False
    for count in args.writers:
        for mode in modes:
            with workdir(args.workdir and f"{args.workdir}/{count}-{mode}") as base:
                outcome = simulate(base, writers=count, rounds=args.rounds, mode=mode, remote=args.remote,
                                   seed=args.seed, check_history=not args.no_history,
                                   journal_budget=args.journal_budget)
            print(summary(outcome), flush=True)
            for line in outcome.tally.unexpected[:10]:
                print(f"  unexpected: {line}")
            audit = outcome.audit
            if not audit.ok or outcome.tally.unexpected:
                failed = True
                print(f"  audit: {json.dumps(dataclasses.asdict(audit))[:3000]}")
            if audit.lint_exit != 0:
                print(f"  lint: {audit.lint_output[:1500]}")
            for line in audit.commit_findings[:10]:
                print(f"  lint of one commit: {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
