"""The plans that `deep-sleep --apply` and `import --apply` read back, declared once (docs/validation.md).

A plan is what `--plan` printed (apm_git/schemas/deep-sleep-plan.schema.json, import-plan.schema.json),
possibly edited by a person or an agent.  Each plan key that holds a list is declared with the keys of
its items and the rule each value keeps; `read_plan` walks the declarations, so a key declared here is
checked, and the one-line message for a value that does not fit comes from its rule and names the item
and key (`promote[2].to …`).  Reading is more lenient than printing: `version` and `stage` may be left
out (read as 1 and the plan's own stage), so may any list and any key with a default; the keys shown
for a person only (`date`, `kept`, `skipped`) are not read.  tests/dreaming/test_plan_shape.py holds
these declarations to the schemas.  Whether the plan still fits the memory is checked later, against
the files (apm_git/dreaming/execute.py `validate`, importing.py `execute_import`).
"""
from __future__ import annotations

import dataclasses
from typing import Any

from apm_git.errors import PlanRefused
from apm_git.model.config import MAX_NUMBER, OneOf, Whole, shown
from apm_git.model.names import memory_rel
from apm_git.model.vocabulary import ENTRY_KINDS, StageName

PLAN_VERSION = 1
_MISSING = object()


@dataclasses.dataclass(frozen=True)
class Text:
    """A string with something in it; `one_line`: folded onto one line (a reason, kept as written)."""

    one_line: bool = False

    def read(self, value: object, where: str, prefix: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise PlanRefused(f"{where} must be a non-empty string (got {shown(value)})")
        return " ".join(value.split()) if self.one_line else value


@dataclasses.dataclass(frozen=True)
class MemoryPath:
    """A path under the memory dir as git shows it (`memory/decisions.md`), read as memory-relative."""

    def read(self, value: object, where: str, prefix: str) -> str:
        path = Text().read(value, where, prefix)
        rel = memory_rel(prefix, path)
        parts = rel.split("/") if rel else []
        if rel is None or not parts or any(part in ("", ".", "..") for part in parts) or "\\" in rel:
            raise PlanRefused(f"{where} {path!r} is outside the memory dir; use a path under {prefix}/")
        return rel


@dataclasses.dataclass(frozen=True)
class MemoryPaths:
    """A list of paths under the memory dir (`what` names them in the message)."""

    what: str

    def read(self, value: object, where: str, prefix: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise PlanRefused(f"{where} must be a list of {self.what}")
        return tuple(MemoryPath().read(path, where, prefix) for path in value)


@dataclasses.dataclass(frozen=True)
class Checked:
    """A value kept by one of apm.yaml's rules (a whole number in range, one of a few words)."""

    rule: Whole | OneOf

    def read(self, value: object, where: str, prefix: str) -> object:
        problem = self.rule.problem(value)
        if problem is not None:
            raise PlanRefused(f"{where} {problem}")
        return value


Rule = Text | MemoryPath | MemoryPaths | Checked


@dataclasses.dataclass(frozen=True)
class Key:
    """A key of a plan item: its rule, and the value it has when left out (`_MISSING`: it must be there)."""

    name: str
    rule: Rule
    default: object = _MISSING

    @property
    def required(self) -> bool:
        return self.default is _MISSING


@dataclasses.dataclass(frozen=True)
class Items:
    """A plan key holding a list of objects, each with `keys`."""

    name: str
    keys: tuple[Key, ...]

    def read(self, value: object, prefix: str) -> list[dict[str, Any]]:
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise PlanRefused(f"plan key {self.name!r} must be a list of objects")
        return [self._item(item, f"{self.name}[{number}]", prefix) for number, item in enumerate(value)]

    def _item(self, item: dict[str, Any], where: str, prefix: str) -> dict[str, Any]:
        known = [key.name for key in self.keys]
        unknown = sorted(set(item) - set(known))
        if unknown:
            raise PlanRefused(f"{where} has unknown key(s) {', '.join(unknown)}; use {', '.join(known)}")
        read = {}
        for key in self.keys:
            value = item.get(key.name, _MISSING)
            if value is _MISSING and key.required:
                raise PlanRefused(f"{where} needs {key.name!r}")
            read[key.name] = key.default if value is _MISSING else key.rule.read(value, f"{where}.{key.name}", prefix)
        return read


@dataclasses.dataclass(frozen=True)
class PlanShape:
    stage: StageName
    lists: tuple[Items, ...]
    shown: tuple[str, ...]  # printed for a person, not read back

    def read(self, data: object, prefix: str) -> dict[str, list[dict[str, Any]]]:
        """The plan's lists, each item's values read by their rules (paths memory-relative, defaults
        filled in); a plan that does not fit its declaration is refused whole, in one line."""
        try:
            return self._read(data, prefix)
        except PlanRefused as error:
            raise PlanRefused(f"plan refused, nothing was changed: {error}") from None

    def _read(self, data: object, prefix: str) -> dict[str, list[dict[str, Any]]]:
        fresh = f"print a fresh plan with `apm-git {self.stage} --plan`"
        if not isinstance(data, dict):
            raise PlanRefused(f"the plan must be a JSON object as printed by `apm-git {self.stage} --plan`")
        version = data.get("version", PLAN_VERSION)
        if version != PLAN_VERSION or isinstance(version, bool):
            raise PlanRefused(f"the plan has version {shown(version)}; this apm-git reads version {PLAN_VERSION} "
                              f"only: {fresh}")
        if data.get("stage", self.stage) != self.stage:
            raise PlanRefused(f"the plan is for stage {shown(data.get('stage'))}, not {self.stage}: {fresh}")
        names = [items.name for items in self.lists]
        unknown = sorted(set(data) - {"version", "stage", *names, *self.shown})
        if unknown:
            raise PlanRefused(f"unknown plan key(s) {', '.join(unknown)}; use {', '.join(names)}")
        return {items.name: items.read(data.get(items.name, []), prefix) for items in self.lists}


REASON = Key("reason", Text(one_line=True), "edited plan")  # a move's reason, as written; the default says who
SCORE = Key("score", Checked(Whole(0, MAX_NUMBER)), 0)  # shown only: the run scores the entry itself

DEEP_SLEEP_PLAN = PlanShape("deep-sleep", (
    Items("promote", (Key("id", Text()), Key("from", MemoryPath()), Key("to", MemoryPath()), REASON,
                      Key("copies", MemoryPaths("journal paths"), ()))),
    Items("archive", (Key("id", Text()), Key("from", MemoryPath()), Key("to", MemoryPath()), REASON, SCORE)),
    Items("journals", (Key("from", MemoryPath()), Key("to", MemoryPath()))),
), shown=("date", "kept"))

KIND = Key("kind", Checked(OneOf(ENTRY_KINDS, "the kinds")))  # a person may change it

IMPORT_PLAN = PlanShape("import", (  # line, form and title are shown: the section is found by file and id
    Items("import", (Key("id", Text()), Key("file", MemoryPath()), Key("line", Checked(Whole(0, MAX_NUMBER)), 0),
                     Key("form", Text(), ""), KIND, Key("title", Text(), ""))),
), shown=("date", "skipped"))
