"""Suspected secrets on the reading side (issue 23.2): what `load` leaves out of an agent's context, and
which sections flush keeps uncommitted, for the notice at session start.

The notice names each section (file, line, heading, kinds) and how to clear it; neither it nor the
loaded text ever holds the secret.  A suspect marked a false positive in the baseline
(`apm-git allow-secret`) or a line with the pragma is neither left out nor named.
"""
from __future__ import annotations

from collections.abc import Sequence

from apm_git.checks import baseline
from apm_git.errors import ApmGitError
from apm_git.model import names
from apm_git.model.snapshot import Finding
from apm_git.model.withhold import WithheldSection, blank_sections, sections_of
from apm_git.store.repo import MemoryRepo

CACHE_FILE = "suspects.cache"  # under .git/apm-git/: line and kind of each suspect, by the blob id of the text
KEEP = 2_000  # texts remembered; the oldest go first


class Redactor:
    """Suspected secrets of the memory texts one command reads, and the baseline that may excuse them.

    What a text holds is cached by its blob id (lines and kinds only, never a secret), so a session
    start that loads the same journal again does not pay the detect-secrets import (about 80 ms) again."""

    def __init__(self, repo: MemoryRepo) -> None:
        from apm_git.store import cache

        self.repo = repo
        self._known: baseline.Baseline | None = None
        self.path = repo.state_dir / CACHE_FILE
        stored = cache.read(self.path)
        self.cached: dict[str, list[tuple[int, str]]] = stored if isinstance(stored, dict) else {}
        self.changed = False

    def _scan(self, path: str, text: str) -> list[tuple[int, str]]:
        from apm_git.store.blob import blob_id

        key = blob_id(text.encode("utf-8"))
        found = self.cached.get(key)
        if not isinstance(found, list):
            from apm_git.secret_scan import scan

            found = self.cached[key] = [(suspect.line, suspect.kind) for suspect in scan(text, path)]
            self.changed = True
        return found

    def save(self) -> None:
        if self.changed:
            from apm_git.store import cache

            cache.write(self.path, dict(list(self.cached.items())[-KEEP:]))
            self.changed = False

    @property
    def known(self) -> baseline.Baseline:
        if self._known is None:
            try:
                self._known = baseline.parse(self.repo.read(names.BASELINE))
            except ApmGitError:  # unreadable: nothing is excused
                self._known = baseline.Baseline()
        return self._known

    def suspects(self, path: str, text: str) -> dict[int, list[str]]:
        """Line -> kinds of the suspected secrets of `text` (repo path `path`) that the baseline does not excuse."""
        if not text:
            return {}
        found: dict[int, list[str]] = {}
        suspected = self._scan(path, text)
        if not suspected:
            return found
        from apm_git.checks import no_secrets  # here: the recall hook reads texts that hold none

        for line, kind in suspected:
            if not self.known.false_positive(Finding(path, line, no_secrets.ID, ""), text):
                found.setdefault(line, []).append(kind)
        return found

    def text(self, path: str, text: str) -> str:
        """`text` with the sections that hold a suspected secret left out (one line says so)."""
        found = self.suspects(path, text)
        return blank_sections(text, found) if found else text

    def sections(self, path: str, text: str) -> list[WithheldSection]:
        found = self.suspects(path, text)
        return [WithheldSection(path, section.line, None if section.heading_flagged else section.heading,
                                sorted(set(found[section.line])))
                for section in sections_of(text, found)]


def uncommitted(repo: MemoryRepo, pathspecs: Sequence[str], redactor: Redactor | None = None) -> list[WithheldSection]:
    """The sections of the changed memory files under `pathspecs` that hold a suspected secret: what the next
    flush keeps uncommitted.  Files that cannot be read are passed over (flush names them)."""
    from apm_git import git  # here: the recall hook, which never asks for changed files, runs no git

    redactor = redactor or Redactor(repo)
    found: list[WithheldSection] = []  # (the caller saves the redactor's cache)
    for change in git.status(repo.root, pathspecs):
        rel = repo.memory_rel(change.path)
        if rel is None or "D" in change.xy or rel == names.BASELINE:
            continue
        try:
            text = repo.read(rel)
        except ApmGitError:
            continue
        found += redactor.sections(change.path, text or "")
    return sorted(found)
