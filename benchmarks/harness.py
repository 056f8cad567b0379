"""Shared pieces of the benchmarks: the synthetic repositories, timing, and the report rows."""
from __future__ import annotations

import dataclasses
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from generate import PRESETS, GeneratedRepo, generate

APM = (str(Path(sys.executable).parent / "apm-git"),)
IDENTITY = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


@dataclasses.dataclass
class Context:
    workdir: Path
    repeat: int
    repos: dict[str, GeneratedRepo]

    def repo(self, preset: str) -> GeneratedRepo:
        """The generated repository of a preset, generated on first use (the wide one only for flush)."""
        if preset not in self.repos:
            self.repos.update(make_repos(self.workdir, (preset,)))
        return self.repos[preset]

    def fresh_copy(self, preset: str, name: str) -> Path:
        """A private copy of a generated repository that a benchmark may change."""
        target = self.workdir / f"{preset}-{name}"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(self.repo(preset).out_dir, target, symlinks=True)
        return target


@dataclasses.dataclass(frozen=True)
class Row:
    """One reported figure: a median, its baseline median, and the target it is held to."""

    section: str
    name: str
    median: float
    baseline: float | None = None
    target: str = ""
    passed: bool | None = None
    note: str = ""

    def format(self) -> str:
        base = f"{self.baseline:8.3f}s" if self.baseline is not None else " " * 9
        ratio = f"{self.median / self.baseline:6.2f}x" if self.baseline else " " * 7
        verdict = {True: "PASS", False: "FAIL", None: ""}[self.passed]
        figures = f"{self.median:8.3f}s {base} {ratio}"
        return f"{self.section:<9} {self.name:<44} {figures}  {verdict:<4} {self.target} {self.note}"


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, **IDENTITY, **extra}


def run(args: Sequence[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(args, cwd=cwd, env=env(**extra), capture_output=True, check=False)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return proc


def timed(args: Sequence[str], cwd: Path, **extra: str) -> float:
    start = time.perf_counter()
    run(args, cwd, **extra)
    return time.perf_counter() - start


def cpu_timed(args: Sequence[str], cwd: Path, cpu: list[float], **extra: str) -> float:
    """Wall time of one run; its CPU time (user + system, every process it started) goes to `cpu`:
    on a machine shared with other work the CPU figure holds where the wall time drifts."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed(args, cwd, **extra)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def median_of(samples: list[float]) -> float:
    return statistics.median(samples)


def alternate(repeat: int, *steps: Callable[[int], float]) -> list[list[float]]:
    """Run the steps in turn `repeat` times, so slow drifts of the machine hit all of them alike."""
    samples: list[list[float]] = [[] for _ in steps]
    for round_ in range(repeat):
        for index, step in enumerate(steps):
            samples[index].append(step(round_))
    return samples


def paired_ratio(samples: Sequence[float], baselines: Sequence[float]) -> float:
    """The median of each round's sample over the same round's baseline (`alternate`): the machine's
    speed drifts within seconds, and a round sees one speed, so this moves less between runs than
    the ratio of the two medians."""
    return statistics.median(sample / base for sample, base in zip(samples, baselines, strict=True))


def make_repos(workdir: Path, presets: Sequence[str]) -> dict[str, GeneratedRepo]:
    repos = {}
    for name in presets:
        preset = PRESETS[name]
        out = workdir / f"generated-{name}"
        if out.exists():
            shutil.rmtree(out)
        repos[name] = generate(out, entries=preset.entries, commits=preset.commits, groups=preset.groups,
                                notes=preset.notes, seed=7)
    return repos
