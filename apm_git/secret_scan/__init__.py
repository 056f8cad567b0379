"""Suspected credentials in a memory file: `scan(text)` gives each one's line, kind and fingerprint.

A cheap prefilter (`prefilter.py`, no detect-secrets) picks the lines that might hold one;
only then are detect-secrets' plugins and apm-git's own (`plugins.py`) run on those lines,
through detect-secrets' filters (`scanner.py`).  See docs/secrets.md.

A `Suspect` never holds the secret: its fingerprint is the SHA-1 of the secret's value, as
detect-secrets' `hashed_secret` in a `.secrets.baseline`, so a baseline can name a suspect
that a person marked as a false positive without repeating it.
"""
from __future__ import annotations

from typing import NamedTuple


class Suspect(NamedTuple):
    line: int  # 1-based
    kind: str  # the detect-secrets secret type, e.g. "AWS Access Key", "Secret Keyword"
    fingerprint: str  # SHA-1 hex of the secret's value (detect-secrets' hashed_secret)


def scan(text: str, path: str = "memory.md") -> list[Suspect]:
    """The suspected secrets of a text, by line; lines with `pragma: allowlist secret` are skipped.

    Linear in the text (docs/secrets.md): an over-long token run is judged by the prefilter's one
    rule and fingerprinted here; the plugins read candidate lines in bounded pieces."""
    import hashlib

    from apm_git.secret_scan.prefilter import LONG_RUN_KIND, find

    found = find(text)
    suspects = [Suspect(run.number, LONG_RUN_KIND, hashlib.sha1(run.text.encode()).hexdigest()) for run in found.runs]
    if found.pieces:
        from apm_git.secret_scan.scanner import detect

        suspects += detect(path, found.pieces)
    return sorted(suspects)
