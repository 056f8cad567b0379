"""Hostile or broken apm.yaml and state files: one line, exit 3, nothing changed, never a hang.

The alias bombs and deep nesting run in a separate process with a timeout, so a regression
fails the test instead of hanging the suite.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import git

TIMEOUT = 20  # seconds; each case answers in well under one


def apm(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        (sys.executable, "-m", "apm_git", *args), cwd=root, capture_output=True, text=True, timeout=TIMEOUT,
        env={**os.environ, **(env or {})}, check=False,
    )


def refused(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    """The one line of a refusal with exit 3; each of `words` is in it."""
    assert proc.returncode == 3, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def alias_bomb(levels: int = 9) -> str:
    """A flow sequence whose aliases expand to 9**levels strings."""
    items = ["&a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    items += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "[" + ", ".join(items) + "]"


@pytest.mark.slow
@pytest.mark.parametrize(("key", "dotted"), [
    ("rem:\n  every_days: {bomb}\n", "rem.every_days"),
    ("memory_budget: {bomb}\n", "memory_budget"),
    ("budgets:\n  lessons.md: {bomb}\n", "budgets.lessons.md"),
    ("routing:\n  decision: {bomb}\n", "routing.decision"),
    ("append_only: {bomb}\n", "append_only"),
    ("encoding: {bomb}\n", "encoding"),
    ("deep_sleep:\n  every_days: {bomb}\n", "deep_sleep.every_days"),
])
def test_alias_bombs_are_refused_at_once_under_every_key(repo: MemoryRepo, key: str, dotted: str) -> None:
    (repo.root / "apm.yaml").write_text(key.format(bomb=alias_bomb()), encoding="utf-8")
    for command in (["status"], ["dream"], ["flush"]):
        line = refused(apm(repo.root, *command), "apm.yaml:", "anchor or alias", dotted)
        assert line.startswith("apm-git: apm.yaml:")
    assert git(repo.root, "rev-list", "--count", "HEAD").strip() == "1"


@pytest.mark.parametrize("text", [
    "base: &base 3\nrem:\n  every_days: *base\n",
    "rem: &r\n  every_days: 3\ndeep_sleep: *r\n",
    "rem:\n  <<: {every_days: 3}\n  proven_hits: &five 5\n",
])
def test_any_anchor_or_alias_is_refused(repo: MemoryRepo, text: str) -> None:
    (repo.root / "apm.yaml").write_text(text, encoding="utf-8")
    refused(apm(repo.root, "status"), "apm.yaml:", "anchor or alias")


@pytest.mark.parametrize(("text", "words"), [
    ("rem: " + "[" * 5000 + "]" * 5000 + "\n", ("apm.yaml:1: nested deeper than 8 levels",)),
    ("rem: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n", ("apm.yaml:1: nested deeper than 8 levels",)),
    ("rem:\n" + "".join(" " * depth + f"k{depth}:\n" for depth in range(1, 300)), ("apm.yaml:", "nested deeper")),
    # Block style 5,000 deep is 12 MB of indentation: refused by its size before the parser sees it.
    ("rem:\n" + "".join(" " * depth + f"k{depth}:\n" for depth in range(1, 5000)), ("apm.yaml is over 256 KB",)),
])
def test_deep_nesting_is_refused_before_it_is_built(repo: MemoryRepo, text: str, words: tuple[str, ...]) -> None:
    (repo.root / "apm.yaml").write_text(text, encoding="utf-8")
    refused(apm(repo.root, "status"), *words)


@pytest.mark.slow
@pytest.mark.parametrize(("text", "words"), [
    ("rem:\n  every_days: 100000000000000000000000000000\n", ("apm.yaml:2: rem.every_days", "from 1 to 36500")),
    ("deep_sleep:\n  look_back_days: 99999999\n", ("deep_sleep.look_back_days", "from 1 to 36500")),
    ("memory_budget: 1e400\n", ("memory_budget must be a whole number",)),
    ("rem:\n  max_archive_share: .nan\n", ("rem.max_archive_share must be a number from 0 to 1",)),
    ("flush:\n  idle_minutes: 2026-01-01\n", ("flush.idle_minutes must be a whole number",)),
])
def test_numbers_are_range_checked_when_read(repo: MemoryRepo, text: str, words: tuple[str, ...]) -> None:
    (repo.root / "apm.yaml").write_text(text, encoding="utf-8")
    for command in ("status", "dream"):
        refused(apm(repo.root, command), *words)


@pytest.mark.parametrize("memory_dir", [".git/memory", ".git", "notes/.GIT/memory"])
def test_memory_dir_inside_git_is_refused(repo: MemoryRepo, memory_dir: str) -> None:
    (repo.root / "apm.yaml").write_text(f"memory_dir: {memory_dir}\n", encoding="utf-8")
    refused(apm(repo.root, "journal", "add", "x", "--kind", "lesson"), "apm.yaml:1: memory_dir", "inside .git")
    assert not (repo.git_dir / "memory").exists()


def test_memory_dir_that_resolves_outside_the_repository_is_refused(repo: MemoryRepo, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (repo.root / "notes").symlink_to(outside, target_is_directory=True)
    (repo.root / "apm.yaml").write_text("memory_dir: notes/memory\n", encoding="utf-8")
    refused(apm(repo.root, "journal", "add", "x", "--kind", "lesson"), "notes is a symlink")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize(("routing", "extra", "words"), [
    ("decision: INDEX.md", "", "names INDEX.md, which apm-git rebuilds"),
    ("lesson: index.md", "", "which apm-git rebuilds"),
    ("context: 2026-01-05.md", "", "a daily journal"),
    ("person: notes.md", "append_only:\n  - notes.md\n  - groups/*.md\n", "an append-only file"),
    ("tool: archive/2026-01.md", "", "must name a .md file at the top of the memory dir"),
    ("decision: flush-state.json", "", "must name a .md file"),
    ("decision: main/index.md", "", "must name a .md file"),
    ("decision: groups/team.md", "", "must name a .md file"),
])
def test_routing_into_a_machine_written_file_is_refused(repo: MemoryRepo, routing: str, extra: str,
                                                        words: str) -> None:
    (repo.root / "apm.yaml").write_text(f"{extra}routing:\n  {routing}\n", encoding="utf-8")
    line = refused(apm(repo.root, "deep-sleep"), words)
    kind = routing.split(":")[0]
    assert f"apm.yaml:{extra.count(chr(10)) + 2}: routing.{kind} " in line
    assert git(repo.root, "rev-list", "--count", "HEAD").strip() == "1"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["flush-state.json", "group_names.json"])
def test_state_json_nested_100000_deep_is_one_line(repo: MemoryRepo, name: str) -> None:
    text = '{"a": ' * 100_000 + "1" + "}" * 100_000 if name == "group_names.json" else "[" * 100_000 + "]" * 100_000
    (repo.memory / name).write_text(text, encoding="utf-8")
    args = ["flush", "--room", "r"] if name == "group_names.json" else ["status"]
    refused(apm(repo.root, *args), f"memory/{name}:1:", "nested deeper than")
    lint = apm(repo.root, "lint", "--all")
    assert lint.returncode == 1 and f"memory/{name}:1: apm-state-json: not valid JSON (nested deeper" in lint.stdout
    assert (repo.memory / name).read_text(encoding="utf-8") == text


def _edit_state(repo: MemoryRepo, change: dict[str, dict[str, object]]) -> str:
    path = repo.memory / "flush-state.json"
    state = json.loads(path.read_text(encoding="utf-8"))
    for section, values in change.items():
        state.setdefault(section, {}).update(values)
    text = json.dumps(state)
    path.write_text(text, encoding="utf-8")
    return text


@pytest.mark.slow
@pytest.mark.parametrize(("change", "key"), [
    ({"dreaming": {"last_deep_sleep": "9999-12-31T23:59:59+00:00"}}, "dreaming.last_deep_sleep"),
    ({"dreaming": {"last_rem": "0001-01-01T00:00:00"}}, "dreaming.last_rem"),
    ({"main_session": {"last_flush_time": 12345}}, "main_session.last_flush_time"),
    ({"groups": {"last_flush_time": ["2026-01-01"]}}, "groups.last_flush_time"),
    ({"groups": {"team": {"last_flush_time": "yesterday"}}}, "groups.team.last_flush_time"),
])
def test_state_timestamps_of_the_wrong_type_or_range_are_a_state_error(
    repo: MemoryRepo, change: dict[str, dict[str, object]], key: str,
) -> None:
    text = _edit_state(repo, change)
    for command in ("status", "dream", "flush"):
        refused(apm(repo.root, command), "memory/flush-state.json", repr(key), "git checkout --")
    assert (repo.memory / "flush-state.json").read_text(encoding="utf-8") == text
    assert git(repo.root, "rev-list", "--count", "HEAD").strip() == "1"


@pytest.mark.slow
def test_dm_load_reports_a_bad_last_flush_time_and_still_loads(repo: MemoryRepo) -> None:
    assert apm(repo.root, "flush").returncode == 0  # creates the DM index
    _edit_state(repo, {"main_session": {"last_flush_time": 12345}})
    ran = apm(repo.root, "--json", "load", "--main")
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert result["last_flush"] == "unknown"
    assert any("'main_session.last_flush_time' must be an ISO 8601 timestamp" in item for item in result["warnings"])


def test_clock_far_in_the_future_is_refused(repo: MemoryRepo) -> None:
    refused(apm(repo.root, "dream", env={"APM_GIT_NOW": "9999-12-31"}), "APM_GIT_NOW", "1970-9000")
