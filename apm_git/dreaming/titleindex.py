"""Find similar titles fast: an inverted index of title words (see apm_git.model.titles)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from apm_git.model.titles import similar

T = TypeVar("T")


class TitleIndex(Generic[T]):
    def __init__(self) -> None:
        self._titles: list[tuple[tuple[str, ...], T]] = []
        self._by_word: dict[str, list[int]] = {}

    def add(self, words: tuple[str, ...], tag: T) -> None:
        self._titles.append((words, tag))
        for word in set(words):
            self._by_word.setdefault(word, []).append(len(self._titles) - 1)

    def similar(self, words: tuple[str, ...]) -> Iterator[T]:
        """The tags of every indexed title similar to `words`."""
        seen: set[int] = set()
        for word in set(words):
            for index in self._by_word.get(word, ()):
                if index in seen:
                    continue
                seen.add(index)
                other, tag = self._titles[index]
                if similar(words, other):
                    yield tag
