"""What the page never shows: a section that holds a suspected secret, as `load` never hands it to an agent.

A section (a record, or free-form text under a `## ` heading, or the text before the first heading) that
holds what the secret scan flags, and the findings baseline does not excuse (`apm-git allow-secret`), is
shown as one line that says it is left out, its heading kept unless the heading holds the suspect: the
same rule and the same words as `load` (apm_git/operations/withheld.py, model/withhold.py).  It applies
wherever the page shows memory text: a file's sections (the work tree: what flush keeps uncommitted), an
entry's record and the diff of each step of its life, a proposal's records before and after, and the
snippets of search.  Such a record is never offered for editing from the page (the text in the form
would be the note).
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from apm_git.errors import ApmGitError
from apm_git.model.withhold import sections_of
from apm_git.store.repo import MemoryRepo

if TYPE_CHECKING:
    from apm_git.commands.search import SearchHit


class Withholding:
    """One per view: the scan's findings are cached by blob id across views (operations/withheld.Redactor)."""

    def __init__(self, repo: MemoryRepo) -> None:
        from apm_git.operations.withheld import Redactor

        self.repo = repo
        self.redactor = Redactor(repo)

    def text(self, path: str, text: str | None) -> str | None:
        """`text` (a whole file, or one record or section of the file at repo path `path`) with each section
        that holds a suspected secret replaced by the line saying so."""
        return self.redactor.text(path, text) if text else text

    def held(self, path: str, text: str | None) -> bool:
        return bool(text) and bool(self.redactor.suspects(path, text or ""))

    def starts(self, path: str, text: str) -> dict[int, bool]:
        """The first line of each section of `text` that holds a suspect -> whether its heading holds it."""
        found = self.redactor.suspects(path, text)
        starts: dict[int, bool] = {}
        for section in sections_of(text, found) if found else []:
            starts[section.start] = starts.get(section.start, False) or section.heading_flagged
        return starts

    def hits(self, hits: list[SearchHit]) -> list[SearchHit]:
        """Search hits with the snippet (and the heading, when it holds the suspect) of a withheld section
        replaced by the line saying so; the hit stays, as the section is still there."""
        shown = []
        flagged: dict[str, dict[int, bool]] = {}
        for hit in hits:
            path = hit.file
            if path not in flagged:
                rel = self.repo.memory_rel(path)
                try:
                    text = self.repo.read(rel) if rel is not None else None
                except ApmGitError:
                    text = None
                flagged[path] = self.starts(path, text) if text else {}
            heading_held = flagged[path].get(hit.section)  # the section's first line (hit.line: its best passage's)
            if heading_held is None:
                shown.append(hit)
                continue
            shown.append(dataclasses.replace(hit, snippet=LEFT_OUT,
                                             heading="(a heading left out)" if heading_held else hit.heading))
        return shown

    def save(self) -> None:
        self.redactor.save()


LEFT_OUT = "[apm-git: left out here: this section holds what looks like a credential]"
