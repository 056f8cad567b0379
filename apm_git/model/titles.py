"""Titles: the default title of a text, and when two titles are "similar" (deep sleep's recurrence).

Two titles are similar when their normalized forms are equal, or when both have at
least `MIN_WORDS` content words and those word sets overlap by at least `MIN_OVERLAP`
(Jaccard: shared words / all words).  Normalizing folds case and accents, drops
punctuation and a short list of English stop words, so "Use Redis for the cache" and
"use redis for cache." are equal, and "Redis timeouts during the nightly warmup job" is
similar to "Redis timeouts during nightly warmup jobs" but not to "Redis timeouts".
"""
from __future__ import annotations

import re
import unicodedata

TITLE_WORDS = 8
TITLE_CHARS = 60
MIN_WORDS = 3
MIN_OVERLAP = 0.8
STOP_WORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from",
    "in", "into", "is", "it", "of", "on", "or", "the", "to", "with",
))
_WORD = re.compile(r"\w+")


def default_title(text: str) -> str:
    """The first words of a text's first clause: what `journal add` uses when no title is given."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    for stop in (". ", "; ", " — ", ": "):
        first = first.split(stop)[0]
    words = first.strip().rstrip(".").split()
    title = " ".join(words[:TITLE_WORDS])
    if len(title) > TITLE_CHARS:
        title = title[:TITLE_CHARS].rsplit(" ", 1)[0]
    return title


def title_words(title: str) -> tuple[str, ...]:
    """Content words of a title: case- and accent-folded, punctuation and stop words dropped.

    A plural `s` is dropped from words longer than three letters, so "job" and "jobs" match.
    """
    folded = unicodedata.normalize("NFKD", title).casefold()
    words = []
    for word in _WORD.findall(folded):
        word = "".join(char for char in word if not unicodedata.combining(char))
        if word in STOP_WORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.append(word)
    return tuple(words)


def normalize_title(title: str) -> str:
    """The key under which two titles count as the same title."""
    return " ".join(title_words(title))


def similar(first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    """Whether two titles (as `title_words`) are similar; see the module docstring."""
    if first == second:
        return bool(first)
    a, b = set(first), set(second)
    if len(a) < MIN_WORDS or len(b) < MIN_WORDS:
        return False
    return len(a & b) / len(a | b) >= MIN_OVERLAP
