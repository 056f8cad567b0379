"""The two guards of `load`: the budget circuit breaker and the session's loading discipline."""
from __future__ import annotations

import dataclasses
from typing import Final

from apm_git.model.config import Load
from apm_git.model.vocabulary import LoadRole
from apm_git.store import tokens
from apm_git.store.session import Held

CORE = ("P0", "P1", "P2")
CONVENTIONS: Final = "conventions"
MIN_CUT = 40  # tokens: a cut that keeps less than this is not worth loading


@dataclasses.dataclass
class LoadedFile:
    path: str  # repo-relative
    role: LoadRole
    priority: str | None
    tokens: int
    file_tokens: int  # the whole file's count; more than `tokens` when it was cut
    text: str
    cut: str | None = None
    why: str | None = None  # why it was chosen (an L2 section: the words it matched)


@dataclasses.dataclass(frozen=True)
class SkippedFile:
    path: str
    role: LoadRole
    priority: str | None
    reason: str


class Breaker:
    """Loads files in order until the next would pass the budget; then stops, saying why.

    Only the first file is ever cut (at a record boundary, or a line boundary in a file
    without records): a later file that does not fit trips the breaker whole.
    """

    def __init__(self, budget: int, counter: tokens.Counter) -> None:
        self.budget = budget
        self.counter = counter
        self.used = 0
        self.loaded: list[LoadedFile] = []
        self.skipped: list[SkippedFile] = []
        self.tripped: str | None = None

    def offer(self, path: str, text: str, role: LoadRole, priority: str | None = None) -> LoadedFile | None:
        if self.tripped is not None:
            self.skipped.append(SkippedFile(path, role, priority, f"not loaded: the circuit breaker tripped at "
                                                                  f"{self.tripped}"))
            return None
        full = self.counter.count(text)
        if self.used + full <= self.budget:
            return self._take(LoadedFile(path, role, priority, full, full, text))
        self.tripped = path
        if self.loaded:
            self.skipped.append(SkippedFile(
                path, role, priority,
                f"budget: its {full} tokens would bring the total to {self.used + full}, past the budget of "
                f"{self.budget}",
            ))
            return None
        fit = self.counter.fit(text, self.budget - self.used)
        units = f"{fit.unit}s" if fit.total != 1 else fit.unit
        cut = (f"cut at a {fit.unit} boundary: kept {fit.kept} of {fit.total} {units} ({fit.tokens} of {full} "
               f"tokens) to stay within the budget of {self.budget}")
        return self._take(LoadedFile(path, role, priority, fit.tokens, full, fit.text, cut))

    def offer_within(
        self, path: str, text: str, role: LoadRole, limit: int, why: str | None = None,
    ) -> LoadedFile | None:
        """Load `text` whole or, when it passes `limit` (a level's share of the budget), cut to fit;
        never trips the breaker, so the next level still gets its share."""
        full = self.counter.count(text)
        room = min(limit, self.budget) - self.used
        if full <= room:
            return self._take(LoadedFile(path, role, None, full, full, text, why=why))
        if room > 0:
            fit = self.counter.fit(text, room)
            if fit.kept and fit.tokens >= MIN_CUT:
                units = f"{fit.unit}s" if fit.total != 1 else fit.unit
                cut = (f"cut at a {fit.unit} boundary: kept {fit.kept} of {fit.total} {units} ({fit.tokens} of "
                       f"{full} tokens) to stay within its share of {min(limit, self.budget)} tokens")
                return self._take(LoadedFile(path, role, None, fit.tokens, full, fit.text, cut, why))
        self.skipped.append(SkippedFile(path, role, None, f"budget: its {full} tokens do not fit the {max(room, 0)} "
                                                          f"tokens left of its share"))
        return None

    def offer_if_room(self, path: str, text: str, role: LoadRole, why: str | None = None) -> LoadedFile | None:
        """Load `text` whole when it fits what is left of the budget; otherwise skip it (a later, smaller
        one may still fit)."""
        full = self.counter.count(text)
        if self.used + full <= self.budget:
            return self._take(LoadedFile(path, role, None, full, full, text, why=why))
        self.skipped.append(SkippedFile(path, role, None, f"budget: its {full} tokens would bring the total to "
                                                          f"{self.used + full}, past the budget of {self.budget}"))
        return None

    def _take(self, loaded: LoadedFile) -> LoadedFile:
        self.used += loaded.tokens
        self.loaded.append(loaded)
        return loaded


class Discipline:
    """APM rule 3: at most `max_core_files` P0-P2 files, `max_p3_files` P3 files and one
    `conventions/` file, counted across the loads of one session (or one load without a session).
    A file the session already holds is delivered again without counting twice.
    """

    def __init__(self, limits: Load, held: list[Held]) -> None:
        self.limits = limits
        self.held = list(held)

    def refusal(self, path: str, priority: str | None, role: LoadRole) -> str | None:
        if any(item.path == path for item in self.held):
            return None
        if role == CONVENTIONS:
            taken = [item.path for item in self.held if item.role == CONVENTIONS]
            limit, what = 1, "conventions/ file"
        elif priority == "P3":
            taken = [item.path for item in self.held if item.priority == "P3"]
            limit, what = self.limits.max_p3_files, "P3 file"
        elif priority in CORE:
            taken = [item.path for item in self.held if item.priority in CORE]
            limit, what = self.limits.max_core_files, "P0-P2 files"
        else:
            return None
        if len(taken) < limit:
            return None
        return (f"discipline: this session already holds {len(taken)} {what} (limit {limit}: "
                f"{', '.join(taken)}); start a new session or switch scope to reset")

    def hold(self, path: str, priority: str | None, role: LoadRole) -> None:
        if all(item.path != path for item in self.held):
            self.held.append(Held(path, priority, role))
