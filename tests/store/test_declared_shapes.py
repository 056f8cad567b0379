"""apm.yaml and flush-state.json are checked by what their classes declare (model/config.py's rules,
model/state_files.py's parts): every declared setting and part refuses a wrong value with its own message."""
from __future__ import annotations

import dataclasses

import pytest

from apm_git.errors import ConfigError
from apm_git.model.config import Config, OneOf, Share, Whole, rule_of
from apm_git.model.state_files import FLUSH_STATE_PARTS, flush_state_problem
from apm_git.store.config import _SECTIONS, parse_config
from apm_git.store.state import empty_flush_state

SCALARS = [(None, field) for field in dataclasses.fields(Config) if rule_of(field)] + [
    (name, field) for name, section in _SECTIONS.items() for field in dataclasses.fields(section)
]


def too_far(field: dataclasses.Field[object]) -> object:
    rule = rule_of(field)
    if isinstance(rule, Whole):
        return rule.maximum + 1
    if isinstance(rule, Share):
        return 1.5
    assert isinstance(rule, OneOf)
    return "no-such-word"


@pytest.mark.parametrize(("section", "field"), SCALARS, ids=[f"{s or ''}.{f.name}" for s, f in SCALARS])
def test_every_declared_setting_refuses_a_value_past_its_rule_on_its_line(
    section: str | None, field: dataclasses.Field[object],
) -> None:
    rule = rule_of(field)
    assert rule is not None, f"{field.name} declares no rule"
    assert rule.problem(field.default) is None, "the default keeps the rule"
    value = too_far(field)
    text = (f"memory_budget: 4000\n{section}:\n  {field.name}: {value}\n" if section
            else f"memory_dir: memory\n{field.name}: {value}\n")
    with pytest.raises(ConfigError) as refused:
        parse_config(text)
    dotted = f"{section}.{field.name}" if section else field.name
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
