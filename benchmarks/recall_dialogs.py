"""Conversational recall: generated multi-session dialogs in English and Russian (benchmarks/dialogs.py), each
written into a memory repository made by `apm-git init`, and questions in other words whose evidence turns are
known (single-hop, multi-hop, temporal, open-domain).

For each language, memory layout and category it reports:

- `search`: recall@1/5/10, the share of a question's evidence turns that the first k hits hold (a hit holds a
  turn when the turn's line is within the hit's lines), averaged over the questions;
- the per-prompt hook (`recall` at its default budget): the share of evidence turns whose text it returns,
  for temporal questions the share it returns together with the session's date, how often it returns
  nothing although `search` has a hit, and the tokens it spends;
- how many questions have a section `init` wrote (a template) in search's top 5.

The kinds of fact are split in two halves by a hash of their name; "held-out" is the half that no change was
tuned on (read both: a change that lifts one half only is tuned to it).

    .venv/bin/python benchmarks/recall_dialogs.py                  # the table
    .venv/bin/python benchmarks/recall_dialogs.py --latency        # and warm search / hook times, by subprocess
    .venv/bin/python benchmarks/recall_dialogs.py --misses 20      # and some questions whose evidence was missed
    .venv/bin/python benchmarks/recall_dialogs.py --meaning        # `search --meaning`, after `embed` (the extra)

With `--meaning` each repository's passages are embedded first (`apm-git embed`'s code, its CPU time reported
per passage and extrapolated to 20,000), and `search` is `search --meaning`; the hook (`recall`) finds the
vectors and ranks by meaning and words too.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dialog_en import ENGLISH
from dialog_kinds import Language
from dialog_ru import RUSSIAN
from dialogs import CATEGORIES, FOLDER, Dialog, Question, generate, heading_date, write

from apm_git.commands.embed import embed
from apm_git.commands.init import init
from apm_git.commands.recall import markdown, recall
from apm_git.commands.search import search
from apm_git.model import text_sections as sections
from apm_git.store.repo import MemoryRepo, open_repo

BIN = Path(sys.executable).parent
LANGUAGES: tuple[tuple[Language, int], ...] = ((ENGLISH, 4), (RUSSIAN, 3))  # and how many conversations each
LAYOUTS = ("session", "turn")
SEED = 25
KS = (1, 5, 10)


@dataclasses.dataclass
class Outcome:
    question: Question
    layout: str
    found: dict[int, float]  # k: share of the evidence in the first k hits
    hook: float  # share of the evidence the hook returned
    dated: bool | None  # temporal: the hook returned the evidence with its session's date
    empty_with_hit: bool  # the hook returned nothing although search had a hit
    tokens: int
    template_top5: bool
    search_seconds: float
    hook_seconds: float
    search_cpu: float


@dataclasses.dataclass
class Built:
    passages: int = 0
    embedded: int = 0
    cpu: float = 0.0  # the whole `embed`, index and start-up included
    reused: int = 0  # a second `embed` of the same repository: passages embedded again must be 0


BUILT = Built()


def prepare(dialog: Dialog, layout: str, folder: Path) -> tuple[MemoryRepo, dict[int, tuple[str, int]]]:
    root = folder / f"{dialog.language.code}-{dialog.number}-{layout}"
    root.mkdir(parents=True)
    init(root, install=False)
    repo = open_repo(root)
    return repo, write(dialog, repo.memory, layout)


def spans(repo: MemoryRepo, path: str) -> dict[int, int]:
    """First line -> last line of each section of a memory file (for hits that do not say their last line)."""
    text = (repo.memory / path).read_text(encoding="utf-8")
    return {section.line: section.end for section in sections.split(text, path)}


def measure(repo: MemoryRepo, dialog: Dialog, where: dict[int, tuple[str, int]], layout: str,
            question: Question, meaning: bool = False) -> Outcome:
    started, cpu = time.perf_counter(), time.process_time()
    hits = search(repo, question.text, limit=max(KS), meaning=meaning).hits
    search_seconds, search_cpu = time.perf_counter() - started, time.process_time() - cpu
    places: list[tuple[str, int, int]] = []
    cache: dict[str, dict[int, int]] = {}
    for hit in hits:
        path = repo.memory_rel(hit.file) or hit.file
        last = getattr(hit, "last", None)
        if not isinstance(last, int):
            last = cache.setdefault(path, spans(repo, path)).get(hit.line, hit.line)
        places.append((path, hit.line, last))
    evidence = [where[turn] for turn in question.evidence]
    found = {k: sum(any(path == p and first <= line <= last for p, first, last in places[:k])
                    for path, line in evidence) / len(evidence) for k in KS}
    template = any(not path.startswith(f"{FOLDER}/") for path, _, _ in places[:5])
    started = time.perf_counter()
    result = recall(repo, question.text)
    hook_seconds = time.perf_counter() - started
    text = markdown(result)
    blocks = text.split("<!-- apm-git:")
    turns = [dialog.turns[turn] for turn in question.evidence]
    hook = sum(any(turn.text in block for block in blocks) for turn in turns) / len(turns)
    dated = None
    if question.category == "temporal":
        day = dialog.dates[turns[0].session]
        shown = (heading_date(dialog, day), day.isoformat())
        dated = any(turns[0].text in block and any(form in block for form in shown) for block in blocks)
    return Outcome(question, layout, found, hook, dated, not result.sections and bool(hits), result.tokens,
                   template, search_seconds, hook_seconds, search_cpu)


def run(folder: Path, meaning: bool = False) -> tuple[list[Outcome], list[tuple[MemoryRepo, Question]]]:
    outcomes: list[Outcome] = []
    samples: list[tuple[MemoryRepo, Question]] = []
    for language, conversations in LANGUAGES:
        for number in range(conversations):
            dialog = generate(language, number, SEED)
            for layout in LAYOUTS:
                repo, where = prepare(dialog, layout, folder)
                search(repo, "warm up the index", limit=1)
                if meaning:
                    cpu = time.process_time()
                    built = embed(repo)
                    BUILT.cpu += time.process_time() - cpu
                    BUILT.passages += built.passages
                    BUILT.embedded += built.embedded
                    BUILT.reused += embed(repo).embedded
                outcomes += [measure(repo, dialog, where, layout, question, meaning) for question in dialog.questions]
                if number == 0 and layout == "session":
                    samples += [(repo, question) for question in dialog.questions[:12]]
    return outcomes, samples


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def row(label: str, outcomes: list[Outcome]) -> str:
    recalls = "  ".join(f"{mean([o.found[k] for o in outcomes]):6.1%}" for k in KS)
    dated = [1.0 if o.dated else 0.0 for o in outcomes if o.dated is not None]
    nonempty = [o.tokens for o in outcomes if o.tokens]
    return (f"{label:<26} {len(outcomes):>4}  {recalls}  {mean([o.hook for o in outcomes]):6.1%}  "
            f"{(f'{mean(dated):6.1%}' if dated else '     -'):>6}  "
            f"{mean([1.0 if o.empty_with_hit else 0.0 for o in outcomes]):6.1%}  "
            f"{mean([float(t) for t in nonempty]):6.0f}  "
            f"{mean([1.0 if o.template_top5 else 0.0 for o in outcomes]):6.1%}")


def report(outcomes: list[Outcome]) -> None:
    print(f"{'':<26} {'n':>4}  {'r@1':>6}  {'r@5':>6}  {'r@10':>6}  {'hook':>6}  {'dated':>6}  {'empty':>6}  "
          f"{'tokens':>6}  {'templ5':>6}")
    for layout in LAYOUTS:
        mine = [o for o in outcomes if o.layout == layout]
        print(f"-- layout: {layout}")
        for code in dict.fromkeys(o.question.language for o in mine):
            for category in CATEGORIES:
                print(row(f"{code} {category}", [o for o in mine if o.question.language == code
                                                 and o.question.category == category]))
        for code in dict.fromkeys(o.question.language for o in mine):
            print(row(f"{code} all", [o for o in mine if o.question.language == code]))
        print(row("all", mine))
        print(row("all, held-out kinds", [o for o in mine if o.question.held_out]))
        print(row("all, other kinds", [o for o in mine if not o.question.held_out]))
    if BUILT.passages:
        print(f"embed: {BUILT.passages} passages, {BUILT.embedded} embedded in {BUILT.cpu:.1f} s of CPU "
              f"({BUILT.cpu / max(BUILT.embedded, 1) * 1000:.1f} ms a passage; 20,000 passages about "
              f"{BUILT.cpu / max(BUILT.embedded, 1) * 20_000:.0f} s); a second embed embedded {BUILT.reused}")
    cpus = sorted(o.search_cpu for o in outcomes)
    print(f"in-process search CPU: median {statistics.median(cpus) * 1000:.1f} ms, "
          f"p95 {cpus[int(len(cpus) * 0.95)] * 1000:.1f} ms")
    searches = sorted(o.search_seconds for o in outcomes)
    hooks = sorted(o.hook_seconds for o in outcomes)
    print(f"in-process: search median {statistics.median(searches) * 1000:.1f} ms, "
          f"p95 {searches[int(len(searches) * 0.95)] * 1000:.1f} ms; recall median "
          f"{statistics.median(hooks) * 1000:.1f} ms, p95 {hooks[int(len(hooks) * 0.95)] * 1000:.1f} ms")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def latency(samples: list[tuple[MemoryRepo, Question]], meaning: bool = False) -> None:
    """Warm `apm-git search` (and `search --meaning`, alternating, with `--meaning`) and the installed hook
    (`apm-git-recall --hook-input -`), each a new process: wall and CPU (user + system) medians."""
    ways = {"search": ["search"], **({"search --meaning": ["search", "--meaning"]} if meaning else {})}
    walls: dict[str, list[float]] = {way: [] for way in [*ways, "hook"]}
    cpus: dict[str, list[float]] = {way: [] for way in walls}
    for repo, question in samples:
        for way, args in ways.items():
            started, cpu = time.perf_counter(), children_cpu()
            subprocess.run((str(BIN / "apm-git"), "--repo", str(repo.root), *args, question.text),
                           capture_output=True, check=True)
            walls[way].append(time.perf_counter() - started)
            cpus[way].append(children_cpu() - cpu)
        payload = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": question.text,
                              "cwd": str(repo.root), "session_id": "bench"})
        started, cpu = time.perf_counter(), children_cpu()
        subprocess.run((str(BIN / "apm-git-recall"), "--repo", str(repo.root), "--hook-input", "-"),
                       input=payload.encode(), capture_output=True, check=True)
        walls["hook"].append(time.perf_counter() - started)
        cpus["hook"].append(children_cpu() - cpu)
    print(f"processes ({len(samples)} prompts), medians: " + ", ".join(
        f"{way} {statistics.median(walls[way]):.3f} s (CPU {statistics.median(cpus[way]):.3f} s)" for way in walls))


def misses(outcomes: list[Outcome], count: int) -> None:
    missed = [o for o in outcomes if o.layout == "turn" and o.found[5] < 1.0]
    for outcome in missed[:: max(1, len(missed) // count)][:count]:
        print(f"  miss@5 {outcome.question.language} {outcome.question.category}: {outcome.question.text}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--latency", action="store_true", help="Also time search and the hook as processes.")
    parser.add_argument("--misses", type=int, default=0, help="List this many missed questions (turn layout).")
    parser.add_argument("--meaning", action="store_true", help="`embed`, then `search --meaning` (apm-git[meaning]).")
    args = parser.parse_args(argv)
    os.environ.setdefault("APM_GIT_NOW", "2023-12-01T12:00:00")
    with tempfile.TemporaryDirectory(prefix="apm-dialogs-") as temp:
        outcomes, samples = run(Path(temp), args.meaning)
        report(outcomes)
        if args.misses:
            misses(outcomes, args.misses)
        if args.latency:
            latency(samples, args.meaning)
    return 0


if __name__ == "__main__":
    sys.exit(main())
