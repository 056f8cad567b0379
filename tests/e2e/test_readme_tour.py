"""The README's five-minute tour runs as written, on a fresh repository."""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.conftest import run_apm

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
DAY = "2026-12-01"  # the date in the tour's entry id


def tour_commands() -> list[list[str]]:
    block = README.split("## Five-minute tour", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    lines = block.replace("\\\n", " ").splitlines()
    commands = []
    for line in lines:
        words = shlex.split(line, comments=True)
        if "&&" in words:  # `apm-git init DIR && cd DIR`: the test runs each command in DIR
            words = words[:words.index("&&")]
        if words and words[0] == "apm-git":
            commands.append(words)
    return commands


@pytest.mark.slow
def test_the_tour_runs_as_written(tmp_path: Path) -> None:
    commands = tour_commands()
    assert [words[1] for words in commands] == [
        "init", "journal", "flush", "load", "search", "hit", "deep-sleep", "deep-sleep", "rem", "history",
        "status", "lint",
    ]
    env = {"APM_GIT_NOW": f"{DAY}T09:00:00+00:00"}
    outputs = {}
    for words in commands:
        args = [str(tmp_path / "mem") if word == "~/agent-memory" else word for word in words[1:]]
        if args[0] == "init":
            args.append("--no-install")
        ran = run_apm(*args, cwd=tmp_path / "mem" if args[0] != "init" else tmp_path, env=env)
        assert ran.exit_code == 0, (args, ran.stdout, ran.stderr)
        outputs[" ".join(args[:2])] = ran.stdout
    assert f"{DAY}-redis-for-the-session-cache" in outputs["search redis"]
    assert "promote: 2026-12-01-redis-for-the-session-cache" in outputs["deep-sleep"]
    assert "promoted" in outputs[f"history {DAY}-redis-for-the-session-cache"]
