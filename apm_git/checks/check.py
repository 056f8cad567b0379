"""What a check declares about itself, once: the one place the rest is derived from.

Each check is a module of this package holding one `CHECK = Check(...)` beside its `validate`, as
gitlint declares a rule in one class.  `python -m apm_git.operations.generate_checks` finds them and writes what
is derived from them (docs/checks.md): the list the runner imports (`catalog.py`), the `CheckId`
words of `apm_git/model/vocabulary.py`, the hook manifest `.pre-commit-hooks.yaml`, the check ids of
the JSON Schemas and the table of docs/checks.md; `status` and the hook entry read the catalog.
Adding a check is its module and its test, then the generator.

A plain class with `__slots__`: the pre-commit hook imports every check on every commit, and a
dataclass would bring the dataclasses module onto its path (docs/hook-entry.md, "Start-up").
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from apm_git.model.snapshot import Finding, Snapshot
    from apm_git.model.vocabulary import CheckId

# "file": looks at the files it is handed (the staged files, or every file with `--all-files`);
# "snapshot": compares the base with the new side and reads deletions and renames itself.
AppliesTo = Literal["file", "snapshot"]


class Check:
    """One check: its id (a pre-commit hook id and the `hook` of its findings), what it fails on,
    what it applies to, its severity (lower is more harmful: `status` shows those first) and its function."""

    __slots__ = ("applies_to", "description", "files", "id", "severity", "validate")

    def __init__(self, check_id: CheckId, description: str, *, applies_to: AppliesTo, severity: int,
                 validate: Callable[[Snapshot], Iterable[Finding]], files: str = "") -> None:
        self.id = check_id
        self.description = description  # completes "fails when …"
        self.applies_to = applies_to
        self.severity = severity
        self.validate = validate
        self.files = files  # a regex of the files it looks at, within the memory dir; "" for every file

    @property
    def per_file(self) -> bool:
        return self.applies_to == "file"

    def __repr__(self) -> str:
        return f"Check({self.id!r})"
