"""File names that are not UTF-8 (`caf\\xe9.md`, saved on a Latin-1 system): skipped, and said once.

The OS and git hand such a name over as bytes, and Python keeps each byte that is not UTF-8 as a
lone surrogate, which no UTF-8 text can hold: INDEX.md, a commit message, flush-state.json and the
search index would all fail on it.  So apm-git never reads, lists or commits such a file: every
listing of the memory dir leaves it out (it stays on disk and in git as it is), and the command
names it once on stderr, its bytes escaped, with the fix (docs/robustness.md, "Hostile input").

No imports: the pre-commit hook's path (the checks' gathering of files) imports this module.
"""
from __future__ import annotations

# The odd names this process has met, in order, each said once (`take_notices`).
_SKIPPED: dict[str, None] = {}
_SAID: set[str] = set()


def is_utf8(name: str) -> bool:
    """Whether a path as Python holds it (surrogates standing for bytes that are not UTF-8) is UTF-8."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(name: str) -> str:
    """The name as one printable line: bytes that are not UTF-8 as `\\xe9`, UTF-8 kept as it is."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def skipped(name: str) -> bool:
    """True (and noted for `take_notices`) when `name` is not UTF-8 and so must be left out."""
    if is_utf8(name):
        return False
    _SKIPPED.setdefault(name, None)
    return True


def take_notices() -> list[str]:
    """One line per odd name met since the last call and not said before in this process."""
    notes = [f"skipped {shown(name)}: its name is not valid UTF-8, so apm-git neither reads nor commits it; "
             "rename it to a UTF-8 name (`git mv OLD NEW` when it is tracked)"
             for name in _SKIPPED if name not in _SAID]
    _SAID.update(_SKIPPED)
    _SKIPPED.clear()
    return notes
