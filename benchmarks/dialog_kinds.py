"""The shapes of the dialog benchmark's material (benchmarks/dialog_en.py, dialog_ru.py): a kind of fact a
person tells, and a language's facts, small talk and names."""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Kind:
    """A kind of fact: what the person says (one of `say`), and the questions asked about it later."""

    key: str
    group: str  # multi-hop questions ask about all of a person's facts of one group ("hobby", "home", ...)
    slots: dict[str, tuple[str, ...]]
    say: tuple[str, ...]
    single: tuple[str, ...]  # single-hop: the fact in other words
    temporal: tuple[str, ...]  # when: answered only by the session's date ("yesterday" in the evidence)
    open: tuple[str, ...]  # open-domain: an inference the fact supports, sharing hardly a word with it


@dataclasses.dataclass(frozen=True)
class Language:
    code: str
    kinds: tuple[Kind, ...]
    groups: dict[str, tuple[str, ...]]
    filler: tuple[str, ...]
    reactions: tuple[str, ...]
    when: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]  # the two people of each conversation ("Name|gen|dat|acc|f" in Russian)
    session: str  # a session's heading: {number}, {date}
    title: str  # a month file's title: {month}
