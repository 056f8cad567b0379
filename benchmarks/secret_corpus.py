#!/usr/bin/env python3
"""The secret scanner on its corpus: recall, false positives per 1,000 prose lines, and speed.

    python benchmarks/secret_corpus.py [--cases DIR]

Recall is over tests/secret_scan/credentials.tsv (fake credentials in the shapes agents write
them, one per line); false positives are findings on tests/secret_scan/prose.md (memory prose
full of hashes, uuids, ids, base64 and markers, and no credential) and, when the real
workspaces are at hand (`../shared/realworld/cases`, or `--cases`, or APM_GIT_REALWORLD_CASES),
on every Markdown file of theirs that their SOURCE.txt does not list as holding a credential.
tests/secret_scan/test_corpus.py asserts the targets; this script prints the figures.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

from apm_git.secret_scan import scan
from apm_git.secret_scan.prefilter import candidates

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "secret_scan"
TARGET_RECALL = 0.95
TARGET_FALSE_PER_1000 = 1.0


@dataclasses.dataclass
class Figures:
    credentials: int = 0
    found: int = 0
    missed: list[str] = dataclasses.field(default_factory=list)  # kind: line, of each credential missed
    kinds: set[str] = dataclasses.field(default_factory=set)
    prose_lines: int = 0
    false_positives: list[str] = dataclasses.field(default_factory=list)  # path:line: kind

    @property
    def recall(self) -> float:
        return self.found / self.credentials if self.credentials else 0.0

    @property
    def false_per_1000(self) -> float:
        return 1000 * len(self.false_positives) / self.prose_lines if self.prose_lines else 0.0


def credentials(path: Path = CORPUS / "credentials.tsv") -> list[tuple[str, str]]:
    """(kind, line) of each fake credential of the corpus."""
    rows = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            kind, line = raw.split("\t", 1)
            rows.append((kind, line))
    return rows


def realworld_cases(given: Path | None = None) -> Path | None:
    """The folder of real workspaces, if present: --cases, APM_GIT_REALWORLD_CASES, or ../shared beside the clone
    (beside the main checkout, for a git worktree)."""
    clones = [ROOT]
    dot_git = ROOT / ".git"
    if dot_git.is_file():  # a worktree: "gitdir: <main>/.git/worktrees/<name>"
        gitdir = Path(dot_git.read_text(encoding="utf-8").partition("gitdir:")[2].strip())
        clones.append(gitdir.parents[2])
    beside = [clone.parent / "shared" / "realworld" / "cases" for clone in clones]
    for candidate in (given, os.environ.get("APM_GIT_REALWORLD_CASES"), *beside):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def _listed(case: Path) -> set[str]:
    """The files that a workspace's SOURCE.txt names as holding a credential (replaced by a random one)."""
    source = case / "SOURCE.txt"
    text = source.read_text(encoding="utf-8") if source.exists() else ""
    return set(re.findall(r"^\s+(\S+) \(\d+\)$", text, re.MULTILINE))


def realworld_prose(cases: Path) -> list[Path]:
    """Markdown files of the real workspaces that SOURCE.txt does not name as holding a credential."""
    files = []
    for case in sorted(path for path in cases.iterdir() if path.is_dir()):
        listed = _listed(case)
        files += [path for path in sorted(case.rglob("*.md")) if path.relative_to(case).as_posix() not in listed]
    return files


def realworld_credentials(cases: Path) -> dict[Path, int]:
    """Each file SOURCE.txt names as holding a credential, with the number of suspects found in it."""
    return {case / name: len(scan((case / name).read_text(encoding="utf-8", errors="replace"), name))
            for case in sorted(path for path in cases.iterdir() if path.is_dir()) for name in sorted(_listed(case))}


def measure(cases: Path | None = None) -> Figures:
    figures = Figures()
    for kind, line in credentials():
        figures.credentials += 1
        figures.kinds.add(kind)
        if scan(line):
            figures.found += 1
        else:
            figures.missed.append(f"{kind}: {line}")
    prose = [CORPUS / "prose.md", *(realworld_prose(cases) if cases else [])]
    for path in prose:
        text = path.read_text(encoding="utf-8", errors="replace")
        figures.prose_lines += len(text.splitlines())
        figures.false_positives += [f"{path}:{suspect.line}: {suspect.kind}" for suspect in scan(text, str(path))]
    return figures


def _timed_ms(function: object, *args: object, repeat: int = 5) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args)  # type: ignore[operator]
        samples.append(time.perf_counter() - start)
    return 1000 * sorted(samples)[len(samples) // 2]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=Path, help="the real workspaces (default: ../shared/realworld/cases)")
    args = parser.parse_args(argv)
    cases = realworld_cases(args.cases)
    own = measure(None)
    every = measure(cases) if cases else own
    print(f"credentials: {own.found}/{own.credentials} found, {len(own.kinds)} kinds, "
          f"recall {own.recall:.3f} (target >= {TARGET_RECALL})")
    for missed in own.missed:
        print(f"  missed {missed}")
    print(f"prose (tests/secret_scan/prose.md): {own.prose_lines} lines, {len(own.false_positives)} false positives, "
          f"{own.false_per_1000:.2f} per 1,000 lines (target <= {TARGET_FALSE_PER_1000})")
    if cases:
        print(f"prose and real workspaces ({cases}): {every.prose_lines} lines, {len(every.false_positives)} false "
              f"positives, {every.false_per_1000:.3f} per 1,000 lines")
        for false in every.false_positives:
            print(f"  {false}")
        listed = realworld_credentials(cases)
        print(f"real workspaces' files that SOURCE.txt lists as holding a credential: "
              f"{sum(1 for count in listed.values() if count)}/{len(listed)} have a finding")
        for path, count in listed.items():
            print(f"  {count} {path.relative_to(cases)}")
        texts = [path.read_text(encoding="utf-8", errors="replace") for path in realworld_prose(cases)]
        size = sum(len(text) for text in texts) / 1e6
        files = sum(1 for text in texts if candidates(text))
        print(f"prefilter over the real workspaces' prose ({size:.1f} MB, {len(texts)} files): "
              f"{_timed_ms(lambda: [candidates(text) for text in texts]):.0f} ms; "
              f"{files} files have a candidate line")
    journal = (CORPUS / "prose.md").read_text(encoding="utf-8")
    plain = "\n".join(line for line in journal.splitlines() if not candidates(line))
    took = _timed_ms(candidates, plain, repeat=51)
    print(f"prefilter, a {len(plain) // 1000} KB journal with no candidate line: {took:.2f} ms")
    ok = own.recall >= TARGET_RECALL and own.false_per_1000 <= TARGET_FALSE_PER_1000
    ok &= every.false_per_1000 <= TARGET_FALSE_PER_1000
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
