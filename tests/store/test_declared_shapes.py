"""apm.yaml and flush-state.json are checked by what their classes declare (model/config.py's rules,
model/state_files.py's parts): every declared setting and part refuses a wrong value with its own message."""
from __future__ import annotations

from typing import Any

import pytest

from apm_git.errors import ConfigError
from apm_git.model.config import Config, OneOf, Rule, Share, Switch, Whole, rules_of
from apm_git.model.state_files import FLUSH_STATE_PARTS, flush_state_problem
from apm_git.store.config import _SECTIONS, parse_config
from apm_git.store.state import empty_flush_state

SCALARS = [(None, Config, name, rule) for name, rule in rules_of(Config).items()] + [
    (section, kind, name, rule) for section, kind in _SECTIONS.items() for name, rule in rules_of(kind).items()
]


def too_far(rule: Rule) -> object:
    if isinstance(rule, Whole):
        return rule.maximum + 1
    if isinstance(rule, Share):
        return 1.5
    if isinstance(rule, Switch):
        return "maybe"
    assert isinstance(rule, OneOf)
    return "no-such-word"


@pytest.mark.parametrize(("section", "kind", "name", "rule"), SCALARS, ids=[f"{s or ''}.{n}" for s, _, n, _ in SCALARS])
def test_every_declared_setting_refuses_a_value_past_its_rule_on_its_line(
    section: str | None, kind: type[Any], name: str, rule: Rule,
) -> None:
    assert rule.problem(kind._field_defaults[name]) is None, "the default keeps the rule"
    value = too_far(rule)
    text = (f"memory_budget: 4000\n{section}:\n  {name}: {value}\n" if section
            else f"memory_dir: memory\n{name}: {value}\n")
    with pytest.raises(ConfigError) as refused:
        parse_config(text)
    dotted = f"{section}.{name}" if section else name
    line = 3 if section else 2
    assert str(refused.value) == f"apm.yaml:{line}: {dotted} {rule.problem(value)}; fix the file"


def test_a_whole_number_comes_back_an_int_and_a_share_a_float() -> None:
    config = parse_config("rem:\n  max_archive_share: 1\n  proven_hits: 7\n")
    assert config.rem.max_archive_share == 1.0 and isinstance(config.rem.max_archive_share, float)
    assert config.rem.proven_hits == 7


def test_the_empty_flush_state_keeps_the_declared_shape() -> None:
    assert flush_state_problem(empty_flush_state()) is None
    assert {part.key for part in FLUSH_STATE_PARTS} >= set(empty_flush_state())


@pytest.mark.parametrize("part", FLUSH_STATE_PARTS, ids=[part.key for part in FLUSH_STATE_PARTS])
def test_every_declared_part_refuses_the_wrong_type_and_a_bad_timestamp(part: object) -> None:
    from apm_git.model.state_files import Part

    assert isinstance(part, Part)
    wrong = [] if part.kind is dict else {}
    kind = "object" if part.kind is dict else "array"
    assert flush_state_problem({part.key: wrong}) == f"{part.key!r} must be a JSON {kind}"
    for stamp in part.stamps:
        problem = flush_state_problem({part.key: {stamp: "yesterday"}})
        assert problem is not None and problem.startswith(f"'{part.key}.{stamp}' ")
        if part.per_group:
            problem = flush_state_problem({part.key: {"team": {stamp: 12}}})
            assert problem is not None and problem.startswith(f"'{part.key}.team.{stamp}' ")
            assert flush_state_problem({part.key: {"team": 3}}) == f"{part.key}.team must be an object"
