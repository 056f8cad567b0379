"""Count the calls that climb back up a layer while one apm-git command runs, in-process.

    python benchmarks/layer_climbs.py deep-sleep      (or rem, flush, ...)

It builds a small memory repository in a temporary folder (19 days of journal entries, each day
flushed, then one journal edited by hand and not committed, `APM_GIT_NOW` a month on), then runs the
command under `sys.setprofile`.  Layers, top to bottom (docs/architecture.md): cli 0; commands and
agents 1; operations and review 2; dreaming, model, checks, merge and secret_scan 3; store and search
4; git.py 5.  The root helpers (errors, clock, jsontext, streams, hook payloads) belong to none.  A
climb is a call whose callee sits in a higher layer than its caller.  It prints each distinct
(caller, callee) pair on stderr and their count, and the calls up into the CLI, a verb or a step (layers 0-2)
from below, the ones docs/architecture.md forbids.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

LAYERS = {"cli": 0, "commands": 1, "agents": 1, "operations": 2, "review": 2, "dreaming": 3, "model": 3,
          "checks": 3, "merge": 3, "secret_scan": 3, "store": 4, "search": 4, "git": 5}
IDENTITY = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
            "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}


def layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if parts[0] == "apm_git" and len(parts) > 1 else None


def cli(*args: str) -> None:
    from apm_git.cli.app import main

    with contextlib.suppress(SystemExit):
        main(list(args))


def build(root: Path) -> None:
    os.chdir(root)
    subprocess.run(["git", "init", "-q"], check=True)
    os.environ["APM_GIT_NOW"] = "2026-03-01"
    cli("init", "--no-install")
    for day in range(1, 20):
        os.environ["APM_GIT_NOW"] = f"2026-03-{day:02d}"
        for n in range(3):
            cli("journal", "add", f"decision {day}-{n}: use tool {n} for job {day}", "--kind", "decision")
            cli("journal", "add", f"lesson {day}-{n}: never do {n} twice on day {day}", "--kind", "lesson")
        cli("flush")
    os.environ["APM_GIT_NOW"] = "2026-04-15"
    journal = root / "memory" / "2026-03-19.md"
    journal.write_text(journal.read_text(encoding="utf-8") + "\nA note written by hand, not committed yet.\n",
                       encoding="utf-8")


def climbs(argv: list[str]) -> tuple[set[tuple[str, str, int, int]], int]:
    """The distinct climbing (caller, callee, caller's layer, callee's layer), and the climbing call events."""
    pairs: set[tuple[str, str, int, int]] = set()
    events = 0

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal events
        caller = frame.f_back
        if event != "call" or caller is None:
            return
        below, above = caller.f_globals.get("__name__", ""), frame.f_globals.get("__name__", "")
        low, high = layer(below), layer(above)
        if low is not None and high is not None and high < low:
            events += 1
            pairs.add((f"{below}.{caller.f_code.co_name}", f"{above}.{frame.f_code.co_name}", low, high))

    sys.setprofile(profile)
    try:
        cli(*argv)
    finally:
        sys.setprofile(None)
    return pairs, events


def main(argv: list[str]) -> int:
    os.environ.update(IDENTITY)
    with tempfile.TemporaryDirectory(prefix="apm-git-climbs-") as folder:
        build(Path(folder))
        pairs, events = climbs(argv)
    for caller, callee, _, _ in sorted(pairs):
        print(f"  {caller} -> {callee}", file=sys.stderr)
    into_steps = sum(1 for *_, high in pairs if high <= 2)
    print(f"{' '.join(argv)}: {len(pairs)} distinct climbing calls ({events} call events); "
          f"{into_steps} of them up into the CLI, a verb or a step")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
