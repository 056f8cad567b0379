"""A word diff of two texts (a changed `Body`), as git's `--word-diff` shows one."""
from __future__ import annotations

import difflib
import re
from typing import NamedTuple

SAME = "="
DELETED = "-"
INSERTED = "+"
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]+")  # words, spaces, punctuation apart


class Piece(NamedTuple):
    op: str  # SAME, DELETED or INSERTED
    text: str


def word_diff(before: str, after: str) -> list[Piece]:
    """The pieces that turn `before` into `after`, word by word (white space kept as it was)."""
    old, new = _TOKEN.findall(before), _TOKEN.findall(after)
    pieces: list[Piece] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            _add(pieces, SAME, "".join(old[i1:i2]))
            continue
        _add(pieces, DELETED, "".join(old[i1:i2]))
        _add(pieces, INSERTED, "".join(new[j1:j2]))
    return pieces


def _add(pieces: list[Piece], op: str, text: str) -> None:
    if not text:
        return
    if pieces and pieces[-1].op == op:
        pieces[-1] = Piece(op, pieces[-1].text + text)
    else:
        pieces.append(Piece(op, text))


def plain(pieces: list[Piece]) -> str:
    """git's `--word-diff=plain` form: `[-old-]{+new+}`."""
    marks = {SAME: ("", ""), DELETED: ("[-", "-]"), INSERTED: ("{+", "+}")}
    return "".join(f"{marks[piece.op][0]}{piece.text}{marks[piece.op][1]}" for piece in pieces)
