"""`search --meaning` at scale: what a query costs when the index holds tens of thousands of passages.

Embedding 20,000 passages takes minutes of CPU, and what a query costs does not depend on the vectors'
values, so this writes the vectors file of a repository's search index with random unit vectors, in the
format and under the model name `apm-git embed` uses (apm_git/search/meaning.py), then runs `apm-git search`
and `apm-git search --meaning` as new processes, alternating, and reports the medians of their CPU time
(user + system) and their peak memory (GNU time's `%M`).  The recall figures are recall_dialogs.py's.

    python benchmarks/generate.py /tmp/large --preset large --commits 20
    python benchmarks/meaning_scale.py /tmp/large --repeat 7
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from apm_git.commands.search import search
from apm_git.search import meaning
from apm_git.search.engine import engine, numpy
from apm_git.search.index import Index, SearchScope
from apm_git.store.repo import open_repo

BIN = Path(sys.executable).parent
QUERIES = ("redis timeout on the session cache", "who owns the deploy pipeline", "what broke the nightly build")


def fill(root: Path) -> int:
    """Random unit vectors for every passage of the memory's index; how many passages."""
    repo = open_repo(root)
    search(repo, "warm up the index", limit=1)
    model = engine()
    np = numpy()
    index = Index(repo, SearchScope())
    try:
        passages = meaning.passages_of(index)
        texts, where = passages.texts, passages.where
    finally:
        index.close()
    keys = list(texts)
    vectors = np.random.default_rng(7).standard_normal((len(keys), model.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    row = {key: at for at, key in enumerate(keys)}
    places = {spot: row[key] for spot, key in where}
    meaning.VectorsPlace(repo, SearchScope()).write(
        meaning.Vectors(model.name, keys, model.dim, vectors, places,
                        meaning.crowding(vectors, np, passages.live_rows(keys))), np)
    return len(keys)


def run(root: Path, args: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak KB of one process: `apm-git ARGS`, or for `hook` the installed
    UserPromptSubmit hook (`apm-git-recall --hook-input -`) with a real payload on stdin."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    if args[0] == "hook":
        command: tuple[str, ...] = (str(BIN / "apm-git-recall"), "--repo", str(root), "--hook-input", "-")
        payload = json.dumps({"session_id": "bench", "hook_event_name": "UserPromptSubmit", "cwd": str(root),
                              "prompt": args[1]})
    else:
        command, payload = (str(BIN / "apm-git"), "--repo", str(root), *args), ""
    started = time.perf_counter()
    ran = subprocess.run(("/usr/bin/time", "-f", "%M", *command), input=payload, capture_output=True, text=True,
                         check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, int(ran.stderr.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("repo", type=Path, help="A memory repository (benchmarks/generate.py makes one).")
    parser.add_argument("--repeat", type=int, default=7, help="Rounds of the queries, each way.")
    args = parser.parse_args(argv)
    started = time.process_time()
    passages = fill(args.repo)
    size = (args.repo / ".git" / "apm-git" / "search" / "memory.vectors").stat().st_size
    print(f"{passages} distinct passages, vectors file {size / 1e6:.1f} MB "
          f"(written in {time.process_time() - started:.1f} s of CPU, index build included)")
    ways = {"search": ["search"], "search --meaning": ["search", "--meaning"], "hook (apm-git-recall)": ["hook"]}
    walls: dict[str, list[float]] = {way: [] for way in ways}
    cpus: dict[str, list[float]] = {way: [] for way in ways}
    peaks: dict[str, list[int]] = {way: [] for way in ways}
    for _ in range(args.repeat):
        for query in QUERIES:
            for way, words in ways.items():
                wall, cpu, peak = run(args.repo, [*words, query])
                walls[way].append(wall)
                cpus[way].append(cpu)
                peaks[way].append(peak)
    for way in ways:
        print(f"{way}: wall median {statistics.median(walls[way]):.3f} s, CPU median "
              f"{statistics.median(cpus[way]):.3f} s, peak RSS median {statistics.median(peaks[way]) / 1024:.0f} MB "
              f"({len(cpus[way])} processes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
