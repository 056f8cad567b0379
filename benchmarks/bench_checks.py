"""Issue 3: the apm pre-commit hooks against a no-op hook on the same commit, and `apm-git lint --all`.

Hooks: on a copy of the large repository with the hook `apm-git init` writes (`apm-checks`: every
check in one hook), the same staged 3-file change is checked by `pre-commit run` with that config,
with a config of the seven separate hooks as an apm-git before `apm-checks` wrote it (entry
`apm-git-hook <id>`), and with a config holding one no-op `language: system` hook, the three
alternating round by round.  Since issue 28 the seven ids are aliases, one Python process each with
nothing shared; before it, the sh script answered six of them from a findings cache, which is deleted
before each round so every round's first hook computes all the checks.  The entry-id cache stays as a
previous commit left it (a copy's first commit builds it once: the `cold` row).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
from collections.abc import Sequence
from pathlib import Path

from harness import APM, Context, Row, alternate, cpu_timed, median_of, paired_ratio, run, timed

from apm_git.checks.manifest import EVERY, local_hook
from apm_git.operations.precommit import hook_command

try:  # the seven hooks: so the same benchmark runs an apm-git from before issue 28 side by side
    from apm_git.checks.manifest import HOOKS  # type: ignore[attr-defined,unused-ignore]
except ImportError:
    from apm_git.checks.catalog import CHECKS
    from apm_git.checks.manifest import alias

    HOOKS = tuple(alias(check) for check in CHECKS)

SECTION = "checks"
TARGET_RATIO = 1.5  # issue 15 (issue 3 asked for 2x)
TARGET_LINT = 2.0
BIN = Path(APM[0]).parent
PRE_COMMIT = (str(BIN / "pre-commit"),)
PATH = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"  # the hooks run `apm-git-hook-run` from PATH
OLD_PROGRAM = "apm-git-hook"  # what the seven hooks of a config from before `apm-checks` start
NOOP = """repos:
  - repo: local
    hooks:
      - {id: noop, name: noop, entry: "true", language: system, pass_filenames: false, always_run: true}
"""
CHANGED = ("memory/{today}.md", "memory/lessons.md", "memory/groups/team-01/experience.md")
# The floor under the hook: a Python process that imports the standard modules the runner needs and runs
# its three git processes (the first two side by side), with no apm-git code at all.
FLOOR = """import datetime, os, pathlib, re, subprocess, sys, typing
env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "env": env}
listing = subprocess.Popen(["git", "ls-files", "-s", "-z", "--", "memory"], **pipes)
diff = subprocess.Popen(["git", "diff-index", "--cached", "HEAD", "--raw", "-z", "-M", "--", "memory"], **pipes)
listing.communicate()
out, _ = diff.communicate()
blobs = "".join(part.split()[3].decode() + "\\n" for part in out.split(b"\\0") if part.startswith(b":"))
subprocess.run(["git", "cat-file", "--batch"], input=blobs.encode(), **pipes)
"""


def _stage_change(root: Path) -> None:
    """One new record in each of three memory files, staged."""
    today = dt.date.today().isoformat()
    for name in CHANGED:
        path = root / name.format(today=today)
        text = path.read_text(encoding="utf-8") if path.exists() else f"# Journal {today}\n"
        path.write_text(
            text + f"\n## [{today}] Benchmark entry for {path.stem}\n- Tags: lesson, bench\n"
            f"- Fitness: last_referenced={today}, hit_count=0, decision_value=MEDIUM\n- Body: measured change.\n",
            encoding="utf-8",
        )
    run(("git", "add", "-A", "--", "memory"), root)


def _cpu_timed(args: Sequence[str], root: Path, cpu: list[float]) -> float:
    return cpu_timed(args, root, cpu, PATH=PATH)


def _hooks(ctx: Context) -> list[Row]:
    root = ctx.fresh_copy("large", "hooks")
    run((*APM, "init", "--no-install"), root)  # the hooks config, committed as `memory: init`
    run((*APM, "index"), root)  # the copy's index predates this apm-git: bring it up to date ...
    run(("git", "commit", "-qam", "index", "--no-verify"), root)
    run(("git", "update-index", "-q", "--refresh"), root)  # ... and the stat data of the copied files
    noop = ctx.workdir / "noop-config.yaml"
    noop.write_text(NOOP, encoding="utf-8")
    seven = ctx.workdir / "seven-config.yaml"  # JSON is YAML
    hooks = [local_hook(hook, "memory", hook_command(OLD_PROGRAM)) for hook in HOOKS]
    seven.write_text(json.dumps({"repos": [{"repo": "local", "hooks": hooks}]}, indent=2), encoding="utf-8")
    floor_script = ctx.workdir / "floor.py"
    floor_script.write_text(FLOOR, encoding="utf-8")
    floor = ctx.workdir / "floor-config.yaml"
    floor_hook = {**local_hook(EVERY, "memory", hook_command()), "id": "floor", "name": "floor",
                  "entry": f"sh -c 'exec {BIN / 'python'} {floor_script}'"}  # through sh, as init's entry is
    floor.write_text(json.dumps({"repos": [{"repo": "local", "hooks": [floor_hook]}]}, indent=2), encoding="utf-8")
    config = root / ".pre-commit-config.yaml"
    _stage_change(root)
    state = root / ".git" / "apm-git"
    (state / "entries.cache").unlink(missing_ok=True)
    cold = timed((*PRE_COMMIT, "run", "--hook-stage", "pre-commit", "-c", str(config)), root, PATH=PATH)
    check = run((*PRE_COMMIT, "run", "--hook-stage", "pre-commit", "-c", str(config)), root, PATH=PATH)
    if check.returncode != 0:
        raise RuntimeError(f"the apm hooks failed on the benchmark change:\n{check.stdout.decode()}")

    apm_cpu: list[float] = []
    seven_cpu: list[float] = []
    noop_cpu: list[float] = []

    def apm(_: int) -> float:
        return _cpu_timed((*PRE_COMMIT, "run", "--hook-stage", "pre-commit", "-c", str(config)), root, apm_cpu)

    def separate(_: int) -> float:
        (state / "hook-findings").unlink(missing_ok=True)  # the cache of an apm-git before issue 28
        return _cpu_timed((*PRE_COMMIT, "run", "--hook-stage", "pre-commit", "-c", str(seven)), root, seven_cpu)

    def bare(_: int) -> float:
        return _cpu_timed((*PRE_COMMIT, "run", "--hook-stage", "pre-commit", "-c", str(noop)), root, noop_cpu)

    def lowest(_: int) -> float:
        return _cpu_timed((*PRE_COMMIT, "run", "--hook-stage", "pre-commit", "-c", str(floor)), root, floor_cpu)

    floor_cpu: list[float] = []
    apm_times, seven_times, noop_times, floor_times = alternate(ctx.repeat, apm, separate, bare, lowest)
    baseline = median_of(noop_times)
    rows = []
    for name, times, cpu in (("apm-checks (what init writes) vs no-op hook, large", apm_times, apm_cpu),
                             ("the seven old hook ids vs no-op hook, large", seven_times, seven_cpu),
                             ("the floor: stdlib imports and the 3 git reads", floor_times, floor_cpu)):
        median = median_of(times)
        ratio, cpu_ratio = median / baseline, median_of(cpu) / median_of(noop_cpu)
        rows.append(Row(SECTION, name, median, baseline, f"<= {TARGET_RATIO}x", ratio <= TARGET_RATIO,
                        f"3 files; ratio {ratio:.2f}x; CPU {median_of(cpu):.3f}s vs {median_of(noop_cpu):.3f}s, "
                        f"{cpu_ratio:.2f}x; round by round {paired_ratio(times, noop_times):.2f}x"))
    rows[1:] = [dataclasses.replace(row, target="", passed=None) for row in rows[1:]]  # reported only
    return [*rows, Row(SECTION, "apm hooks, first commit after a clone", cold, baseline,
                       note="builds the entry-id cache once")]


def _lint_all(ctx: Context) -> list[Row]:
    root = ctx.fresh_copy("large", "lint")
    run((*APM, "lint", "--all"), root)  # warm-up: the parsed apm.yaml cache

    def lint(_: int) -> float:
        return timed((*APM, "lint", "--all"), root)

    (samples,) = alternate(ctx.repeat, lint)
    median = median_of(samples)
    return [Row(SECTION, "lint --all, large (20,000 entries)", median, None, f"<= {TARGET_LINT}s",
                median <= TARGET_LINT)]


def run_section(ctx: Context) -> list[Row]:
    return _hooks(ctx) + _lint_all(ctx)
