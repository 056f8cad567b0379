from __future__ import annotations

from pathlib import Path

import pytest

from apm_git.errors import ConfigError
from apm_git.model.config import DEFAULT_BUDGETS, Config
from apm_git.store.config import parse_config
from apm_git.store.templates import render
from tests.conftest import Invoke


def test_template_holds_exactly_the_defaults() -> None:
    assert parse_config(render("init/apm.yaml")) == Config()


def test_empty_file_means_defaults() -> None:
    assert parse_config("") == Config()
    assert parse_config("# only a comment\n") == Config()


def test_overrides_merge_with_defaults() -> None:
    config = parse_config(
        "budgets:\n  decisions.md: 50\n  memory/main/attention.md: 40\n  people.md: null\n"
        "rem:\n  archive_below: 70\nappend_only:\n  - memory/groups/*.md\n",
    )
    assert config.budget_for("decisions.md") == 50
    assert config.budget_for("main/attention.md") == 40
    assert config.budget_for("people.md") is None
    assert config.budget_for("lessons.md") == DEFAULT_BUDGETS["lessons.md"]
    assert config.budget_for("2026-04-06.md") == 100
    assert config.budget_for("groups/team/experience.md") == 300
    assert config.budget_for("groups/team/conventions/api.md") is None
    assert config.rem.archive_below == 70 and config.rem.every_days == 7
    assert config.is_append_only("groups/team.md") and not config.is_append_only("groups/team/attention.md")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("memory_budget: lots\n", "apm.yaml:1: memory_budget"),
        ("rem:\n  every_days: 7\n  archive_below: -5\n", "apm.yaml:3: rem.archive_below"),
        ("rem:\n  max_archive_share: 2\n", "apm.yaml:2: rem.max_archive_share"),
        ("budgets:\n  decisions.md: many\n", "apm.yaml:2: budgets.decisions.md"),
        ("budget:\n  decisions.md: 3\n", "apm.yaml:1: budget is not a setting"),
        ("deep_sleep:\n  every_weeks: 1\n", "apm.yaml:2: deep_sleep.every_weeks"),
        ("encoding: o200k_base\n", "apm.yaml:1: encoding"),
        ("routing:\n  decision: ../etc/passwd\n", "apm.yaml:2: routing.decision"),
        ("memory_dir: ../outside\n", "apm.yaml:1: memory_dir"),
        ("rem: [1, 2\n", "apm.yaml:2"),
    ],
)
def test_invalid_values_name_key_and_line(text: str, where: str) -> None:
    with pytest.raises(ConfigError, match="^" + where.replace(".", r"\.").replace("[", r"\[")):
        parse_config(text)


def test_invalid_config_exits_3_with_one_line(repo_root: Path, run_cli: Invoke) -> None:
    (repo_root / "apm.yaml").write_text("rem:\n  proven_hits: zero\n")
    ran = run_cli("--repo", str(repo_root), "status")
    assert ran.exit_code == 3
    assert ran.stderr.strip().splitlines() == [
        "apm-git: apm.yaml:2: rem.proven_hits must be a whole number from 1 to 1000000 (got 'zero'); fix the file",
    ]


def test_the_same_text_is_parsed_once_and_its_settings_cannot_be_changed_in_place() -> None:
    text = "budgets:\n  decisions.md: 51\nrouting:\n  lesson: lessons.md\n"
    config = parse_config(text)
    assert parse_config(text) is config  # kept per text: a process that reads it again does not parse again
    with pytest.raises(TypeError):
        config.budgets["decisions.md"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        config.routing["lesson"] = "x.md"  # type: ignore[index]
    assert parse_config(text).budget_for("decisions.md") == 51


def test_settings_read_back_from_the_cache_are_read_only_too(tmp_path: Path) -> None:
    from apm_git.store.config import load_config

    (tmp_path / "apm.yaml").write_text("budgets:\n  decisions.md: 51\n", encoding="utf-8")
    cache = tmp_path / "config.cache"
    parsed = load_config(tmp_path, cache)
    cached = load_config(tmp_path, cache)  # this time from the cache, without ruamel.yaml
    assert cached == parsed and cached is not parsed and cached.budget_for("decisions.md") == 51
    with pytest.raises(TypeError):
        cached.budgets["decisions.md"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        cached.routing["lesson"] = "x.md"  # type: ignore[index]
