"""Equality and a readable repr for the mutable classes the pre-commit hook imports.

Those classes are plain classes with `__slots__`, and their frozen neighbours NamedTuples, not
dataclasses: importing the dataclasses module (it imports inspect, ast, dis, tokenize) and the code
each `@dataclass` generates cost the hook's one short process per commit about 15 ms
(docs/hook-entry.md).  This base keeps what `@dataclass` gave them: two objects of the same class
are equal when their public slots are, they are not hashable (they are mutable), and their repr
shows their values.  Slots starting with `_` (caches, derived lookups) take no part.
"""
from __future__ import annotations


class Slotted:
    """A mutable object compared and shown by its public `__slots__` (those of its base classes first)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]  # mutable: an equal object may not stay equal (as @dataclass)

    def _public(self) -> list[tuple[str, object]]:
        return [(name, getattr(self, name)) for klass in reversed(type(self).__mro__)
                for name in getattr(klass, "__slots__", ()) if not name.startswith("_")]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Slotted)
        return self._public() == other._public()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self._public())
        return f"{type(self).__name__}({shown})"
