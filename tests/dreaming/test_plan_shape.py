"""The plans `--apply` reads are checked by what apm_git/dreaming/plan_shape.py declares: the keys and types of
the schemas `--plan` prints under, each malformed value refused whole with its own one-line message."""
from __future__ import annotations

import copy
import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apm_git.dreaming.importing import import_from_json
from apm_git.dreaming.plan import deep_sleep_from_json
from apm_git.dreaming.plan_shape import (
    DEEP_SLEEP_PLAN,
    IMPORT_PLAN,
    Checked,
    MemoryPath,
    MemoryPaths,
    PlanShape,
    Rule,
    Text,
)
from apm_git.errors import PlanRefused
from apm_git.model.config import OneOf, Whole
from apm_git.store.repo import MemoryRepo
from tests.cli.test_json_schemas import schemas
from tests.conftest import Invoke, git

TODAY = dt.date(2026, 4, 10)

SHAPES = [("deep-sleep-plan", DEEP_SLEEP_PLAN), ("import-plan", IMPORT_PLAN)]


def schema_of(rule: Rule) -> dict[str, Any]:
    """What the schema says of a value the rule reads."""
    if isinstance(rule, (Text, MemoryPath)):
        return {"type": "string"}
    if isinstance(rule, MemoryPaths):
        return {"type": "array", "items": {"type": "string"}}
    assert isinstance(rule, Checked)
    if isinstance(rule.rule, Whole):
        return {"type": "integer", "minimum": rule.rule.minimum}
    assert isinstance(rule.rule, OneOf)
    return {"type": "string", "enum": list(rule.rule.words)}


@pytest.mark.parametrize(("name", "shape"), SHAPES, ids=[name for name, _ in SHAPES])
def test_the_declared_plan_is_the_schema_that_plan_prints_under(name: str, shape: PlanShape) -> None:
    schema = schemas()[name]
    assert schema["properties"]["stage"] == {"const": shape.stage}
    assert set(schema["properties"]) == {"version", "stage", *(items.name for items in shape.lists), *shape.shown}
    for items in shape.lists:
        item = schema["properties"][items.name]["items"]
        assert list(item["properties"]) == [key.name for key in items.keys]
        assert {key.name for key in items.keys if key.required} <= set(item["required"])
        for key in items.keys:
            assert item["properties"][key.name] == schema_of(key.rule), (items.name, key.name)


DEEP_SLEEP = {
    "version": 1, "stage": "deep-sleep", "date": "2026-04-10",
    "promote": [{"id": "2026-04-08-a", "from": "memory/2026-04-08.md", "to": "memory/lessons.md", "reason": "lesson",
                 "copies": ["memory/2026-04-09.md"]}],
    "archive": [{"id": "2026-01-01-b", "from": "memory/people.md", "to": "memory/archive/2026-04.md",
                 "reason": "value", "score": 12}],
    "journals": [{"from": "memory/2026-03-20.md", "to": "memory/archive/journals/2026-03-20.md"}],
    "kept": [{"id": "2026-04-09-odd", "from": "memory/2026-04-09.md", "reason": "no route"}],
}


def edited(plan: dict[str, Any], path: tuple[str | int, ...], value: object) -> dict[str, Any]:
    """`plan` with the value at `path` replaced (`...`: the key removed)."""
    result = copy.deepcopy(plan)
    node: Any = result
    for step in path[:-1]:
        node = node[step]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return result


def test_a_printed_plan_reads_back_as_it_was_printed() -> None:
    plan = deep_sleep_from_json(DEEP_SLEEP, "memory", TODAY)
    (promotion,) = plan.promotions
    assert (promotion.source, promotion.target, promotion.copies) == ("2026-04-08.md", "lessons.md", ("2026-04-09.md",))
    assert [(a.entry_id, a.score, a.reason) for a in plan.archivals] == [("2026-01-01-b", 12, "value")]
    assert [(m.source, m.target) for m in plan.journal_moves] == [("2026-03-20.md", "archive/journals/2026-03-20.md")]


def test_what_may_be_left_out_is_read_with_its_default() -> None:
    bare = {"promote": [{"id": "2026-04-08-a", "from": "memory/2026-04-08.md", "to": "memory/lessons.md",
                         "reason": "  an agent's\n reason  "}],
            "archive": [{"id": "2026-01-01-b", "from": "memory/people.md", "to": "memory/archive/2026-04.md"}],
            "kept": "not read", "date": None}
    plan = deep_sleep_from_json(bare, "memory", TODAY)
    assert [(p.reason, p.copies) for p in plan.promotions] == [("an agent's reason", ())]
    assert [(a.reason, a.score) for a in plan.archivals] == [("edited plan", 0)]
    assert plan.journal_moves == []
    assert deep_sleep_from_json({}, "memory", TODAY).promotions == []
    item = {"id": "2026-05-12-x", "file": "memory/decisions.md", "kind": "lesson"}
    (read,) = import_from_json({"import": [item], "skipped": 7}, "memory", TODAY).items
    assert (read.file, read.line, read.form, read.title, read.kind) == ("decisions.md", 0, "", "", "lesson")


REFUSED = "plan refused, nothing was changed: "
FRESH = "print a fresh plan with `apm-git deep-sleep --plan`"
MALFORMED_DEEP_SLEEP: list[tuple[object, str]] = [
    ([DEEP_SLEEP], "the plan must be a JSON object as printed by `apm-git deep-sleep --plan`"),
    (edited(DEEP_SLEEP, ("version",), 2), f"the plan has version 2; this apm-git reads version 1 only: {FRESH}"),
    (edited(DEEP_SLEEP, ("version",), True), f"the plan has version True; this apm-git reads version 1 only: {FRESH}"),
    (edited(DEEP_SLEEP, ("stage",), "rem"), f"the plan is for stage 'rem', not deep-sleep: {FRESH}"),
    (edited(DEEP_SLEEP, ("merge",), []), "unknown plan key(s) merge; use promote, archive, journals"),
    (edited(DEEP_SLEEP, ("promote",), "all"), "plan key 'promote' must be a list of objects"),
    (edited(DEEP_SLEEP, ("journals",), ["memory/2026-03-20.md"]), "plan key 'journals' must be a list of objects"),
    (edited(DEEP_SLEEP, ("promote", 0, "too"), "memory/people.md"),
     "promote[0] has unknown key(s) too; use id, from, to, reason, copies"),
    (edited(DEEP_SLEEP, ("promote", 0, "id"), ...), "promote[0] needs 'id'"),
    (edited(DEEP_SLEEP, ("archive", 0, "to"), ...), "archive[0] needs 'to'"),
    (edited(DEEP_SLEEP, ("promote", 0, "id"), ""), "promote[0].id must be a non-empty string (got '')"),
    (edited(DEEP_SLEEP, ("promote", 0, "id"), 7), "promote[0].id must be a non-empty string (got 7)"),
    (edited(DEEP_SLEEP, ("promote", 0, "reason"), ["x"]), "promote[0].reason must be a non-empty string (got …)"),
    (edited(DEEP_SLEEP, ("promote", 0, "to"), "memory/../apm.yaml"),
     "promote[0].to 'memory/../apm.yaml' is outside the memory dir; use a path under memory/"),
    (edited(DEEP_SLEEP, ("promote", 0, "from"), "/etc/passwd"),
     "promote[0].from '/etc/passwd' is outside the memory dir; use a path under memory/"),
    (edited(DEEP_SLEEP, ("journals", 0, "to"), "memory\\archive\\x.md"),
     "journals[0].to 'memory\\\\archive\\\\x.md' is outside the memory dir; use a path under memory/"),
    (edited(DEEP_SLEEP, ("promote", 0, "copies"), "memory/2026-04-09.md"),
     "promote[0].copies must be a list of journal paths"),
    (edited(DEEP_SLEEP, ("promote", 0, "copies"), ["apm.yaml"]),
     "promote[0].copies 'apm.yaml' is outside the memory dir; use a path under memory/"),
    (edited(DEEP_SLEEP, ("archive", 0, "score"), "high"),
     "archive[0].score must be a whole number from 0 to 1000000 (got 'high')"),
    (edited(DEEP_SLEEP, ("archive", 0, "score"), -1),
     "archive[0].score must be a whole number from 0 to 1000000 (got -1)"),
    (edited(DEEP_SLEEP, ("archive", 0, "score"), True),
     "archive[0].score must be a whole number from 0 to 1000000 (got True)"),
]


IMPORT = {"version": 1, "stage": "import", "date": "2026-05-20",
          "import": [{"id": "2026-05-12-x", "file": "memory/decisions.md", "line": 5, "form": "dated",
                      "kind": "decision", "title": "X"}],
          "skipped": []}
MALFORMED_IMPORT: list[tuple[object, str]] = [
    ("import everything", "the plan must be a JSON object as printed by `apm-git import --plan`"),
    (edited(IMPORT, ("stage",), "deep-sleep"),
     "the plan is for stage 'deep-sleep', not import: print a fresh plan with `apm-git import --plan`"),
    (edited(IMPORT, ("version",), "1"),
     "the plan has version '1'; this apm-git reads version 1 only: print a fresh plan with `apm-git import --plan`"),
    (edited(IMPORT, ("promote",), []), "unknown plan key(s) promote; use import"),
    (edited(IMPORT, ("import",), {"id": "x"}), "plan key 'import' must be a list of objects"),
    (edited(IMPORT, ("import", 0, "kind"), "mood"),
     "import[0].kind must be one of the kinds: decision, lesson, context, person, tool, pending, anchor"),
    (edited(IMPORT, ("import", 0, "kind"), ...), "import[0] needs 'kind'"),
    (edited(IMPORT, ("import", 0, "file"), "../x.md"),
     "import[0].file '../x.md' is outside the memory dir; use a path under memory/"),
    (edited(IMPORT, ("import", 0, "line"), 4.5), "import[0].line must be a whole number from 0 to 1000000 (got 4.5)"),
    (edited(IMPORT, ("import", 0, "title"), None), "import[0].title must be a non-empty string (got …)"),
    (edited(IMPORT, ("import", 0, "section"), 2),
     "import[0] has unknown key(s) section; use id, file, line, form, kind, title"),
]


MALFORMED = [(deep_sleep_from_json, *case) for case in MALFORMED_DEEP_SLEEP] + [
    (import_from_json, *case) for case in MALFORMED_IMPORT]


@pytest.mark.parametrize(("read", "data", "message"), MALFORMED, ids=[message for _, _, message in MALFORMED])
def test_a_malformed_plan_is_refused_in_one_line(read: Callable[..., object], data: object, message: str) -> None:
    with pytest.raises(PlanRefused) as refused:
        read(data, "memory", TODAY)
    assert str(refused.value) == f"{REFUSED}{message}"


def test_import_apply_refuses_a_malformed_plan_whole_and_changes_nothing(
    repo: MemoryRepo, run_cli: Invoke, tmp_path: Path,
) -> None:
    (repo.memory / "decisions.md").write_text("# Decisions\n\n## 2026-05-13 — Email checks\n- gog only\n")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(edited(IMPORT, ("import", 0, "kind"), "mood")))
    head = git(repo.root, "rev-parse", "HEAD")
    ran = run_cli("--repo", str(repo.root), "import", "--apply", str(plan))
    assert ran.exit_code == 1
    assert ran.stderr.strip() == ("apm-git: plan refused, nothing was changed: import[0].kind must be one of the "
                                  "kinds: decision, lesson, context, person, tool, pending, anchor")
    assert git(repo.root, "rev-parse", "HEAD") == head  # not even the flush ran
    assert git(repo.root, "status", "--porcelain", "--", "memory/decisions.md").strip() == "M memory/decisions.md"
