"""The SessionStart load: L1, then the Hot Files' most valuable entries as the budget allows, then the
fixed guide on writing and recalling memory, in all three formats; a warm load builds no tokenizer."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from apm_git.commands.load import GUIDE
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, run_apm
from tests.loading.conftest import TODAY, cli_json, record, write


def hot_repo(mem: MemoryRepo, run_cli: Invoke) -> None:
    write(mem, "decisions.md", "# Decisions\n\n"
          + record("2026-01-02", "Old low decision", "Rarely used.", value="LOW")
          + record("2026-04-01", "Kafka for events", "Chosen over RabbitMQ. " + "Reasons. " * 300, hits=6,
                   value="HIGH")
          + record("2026-03-30", "Monorepo", "One repository for all services.", hits=1))
    write(mem, "project-context.md", "# Project context\n\n"
          + record("2026-04-02", "Deploys on Fridays are frozen", "No deploys after Thursday noon.",
                   kind="context", hits=2, value="HIGH"))
    assert run_cli("--repo", str(mem.root), "index").exit_code == 0


def test_hot_files_most_valuable_entries_first(mem: MemoryRepo, run_cli: Invoke) -> None:
    hot_repo(mem, run_cli)
    data = cli_json(run_cli, mem, "load")
    hot = [item for item in data["files"] if item["role"] == "hot"]
    assert [item["path"] for item in hot] == [
        "memory/decisions.md:8", "memory/project-context.md:3", "memory/decisions.md:13", "memory/decisions.md:3"]
    assert hot[0]["text"].startswith("## [2026-04-01] Kafka for events") and "score" in hot[0]["why"]
    assert [item["role"] for item in data["files"][:3]] == ["L1", "journal", "journal"]  # L1 first
    assert data["guide"] == GUIDE


def test_hot_entries_only_as_the_budget_allows(mem: MemoryRepo, run_cli: Invoke) -> None:
    hot_repo(mem, run_cli)
    full = cli_json(run_cli, mem, "load")
    l1 = sum(item["tokens"] for item in full["files"] if item["role"] != "hot")
    first_hot = next(item["tokens"] for item in full["files"] if item["role"] == "hot")
    assert first_hot > l1  # so L1 keeps its whole share below
    tight = cli_json(run_cli, mem, "load", "--budget", str(l1 + first_hot + 5))
    hot = [item["path"] for item in tight["files"] if item["role"] == "hot"]
    assert hot and hot[0] == "memory/decisions.md:8" and len(hot) < 4
    assert tight["tokens"] <= tight["budget"]
    assert any(item["reason"].startswith("budget:") for item in tight["skipped"] if item["role"] == "hot")


def test_the_guide_in_all_three_formats(mem: MemoryRepo, run_cli: Invoke) -> None:
    markdown = run_cli("--repo", str(mem.root), "load").stdout
    assert markdown.endswith("\n" + GUIDE)
    hook = json.loads(run_cli("--repo", str(mem.root), "load", "--format", "claude-hook").stdout)
    assert hook["hookSpecificOutput"]["additionalContext"].endswith(GUIDE)
    assert cli_json(run_cli, mem, "load")["guide"] == GUIDE
    for needle in ("the iron rule", "apm-git journal add", "apm-git remember", "apm-git load --intent",
                   "apm-git search", "apm-git hit"):
        assert needle in GUIDE
    with_intent = cli_json(run_cli, mem, "load", "--intent", "debug the crash")
    assert with_intent["guide"] is None  # a later load with an intent does not repeat it


def test_day_one_lesson_recalled_by_day_three_intent(mem: MemoryRepo, run_cli: Invoke) -> None:
    """The demo's story: a lesson journaled on day 1 is in neither L1 journal on day 3, yet the day-3
    intent (in other words than the lesson's title) loads it."""
    env = {"APM_GIT_NOW": "2026-04-10T09:00:00"}
    write(mem, "2026-04-08.md", "# Journal 2026-04-08\n\n" + record(
        "2026-04-08", "Token refresh race", "Two workers refreshed the OAuth token at once; guard it with a lock.",
        kind="lesson"))
    ran = run_cli("--repo", str(mem.root), "--json", "load", "--intent", "the workers fight over the oauth token",
                  env=env)
    data = json.loads(ran.stdout)
    assert any(item["path"].startswith("memory/2026-04-08.md:") and "Token refresh race" in item["text"]
               for item in data["files"]), data["files"]


@pytest.mark.slow
def test_a_warm_load_builds_no_tokenizer(mem: MemoryRepo) -> None:
    write(mem, f"{TODAY}.md", f"# Journal {TODAY}\n\n" + record(TODAY, "Warm", "Counted once."))
    probe = ("import sys; sys.argv = ['apm-git', 'load', '--intent', 'debug the redis timeout'];"
             "from apm_git.cli.app import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print('TIKTOKEN' if 'tiktoken' in sys.modules else 'NO-TIKTOKEN', file=sys.stderr)")
    cold = subprocess.run((sys.executable, "-c", probe), cwd=mem.root, capture_output=True, text=True, check=False)
    warm = subprocess.run((sys.executable, "-c", probe), cwd=mem.root, capture_output=True, text=True, check=False)
    assert cold.stderr.strip().endswith("\nTIKTOKEN") or cold.stderr.strip() == "TIKTOKEN"
    assert warm.stderr.strip() == "NO-TIKTOKEN" and warm.stdout == cold.stdout
    assert (mem.git_dir / "apm-git" / "tokens.cache").is_file()
    assert run_apm("load", cwd=mem.root).exit_code == 0
