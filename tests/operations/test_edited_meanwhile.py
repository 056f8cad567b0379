"""A consolidation never overwrites an edit made after it read the memory: it refuses, changing nothing.

The edit lands between planning and applying, which the test reaches by calling the stages'
own functions in order (plan, then carry out) with the edit in between.
"""
from __future__ import annotations

import datetime as dt

import pytest

from apm_git.commands.flush import flush
from apm_git.dreaming.execute import Changes, execute_deep_sleep
from apm_git.dreaming.plan_deep_sleep import plan_deep_sleep
from apm_git.dreaming.plan_rem import plan_rem
from apm_git.errors import StateError
from apm_git.operations.apply import commit_run
from apm_git.operations.consolidation import read_memory
from apm_git.store.repo import MemoryRepo
from tests.commands.test_deep_sleep import head, snapshot
from tests.conftest import git
from tests.records import record, write

NOW = "2026-06-01T09:00:00+00:00"
TODAY = dt.date(2026, 6, 1)
EDIT = record("2026-06-01", "Written by the agent meanwhile", "decision")


@pytest.fixture
def memory(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    monkeypatch.setenv("APM_GIT_NOW", NOW)
    write(repo.memory, "2026-05-31.md", record("2026-05-31", "Use Redis for sessions", "decision", value="HIGH"))
    write(repo.memory, "2026-05-01.md", record("2026-05-01", "Ask Bob", "pending"))  # old: moves to the archive
    write(repo.memory, "decisions.md", record("2026-01-10", "Old server config", value="LOW", last="2026-01-10"),
          *(record("2026-05-20", f"Healthy decision {n}", last="2026-05-30", hits=1) for n in range(4)))
    flush(repo)
    return repo


def _refused(repo: MemoryRepo, changes: Changes, stage: str, edited: str) -> None:
    path = repo.memory / edited
    path.write_text(path.read_text() + EDIT)
    before, files = head(repo.root), snapshot(repo.root)
    with pytest.raises(StateError) as refused:
        commit_run(repo, changes, stage, f"{stage} test", [("Apm-Trigger", stage)], "", TODAY)
    assert refused.value.exit_code == 3
    assert str(refused.value) == (
        f"memory/{edited} was edited while {stage} ran; nothing was changed — flush that edit if you want it kept, "
        f"then run `apm-git {stage}` again"
    )
    assert head(repo.root) == before and snapshot(repo.root) == files  # the edit is there, nothing else changed
    assert git(repo.root, "diff", "--cached", "--name-only") == ""


@pytest.mark.parametrize("edited", ["2026-05-31.md", "2026-05-01.md", "decisions.md"])
def test_deep_sleep_refuses_a_file_edited_after_planning(memory: MemoryRepo, edited: str) -> None:
    read = read_memory(memory)
    plan = plan_deep_sleep(read, TODAY, memory.config)
    assert [p.source for p in plan.promotions] == ["2026-05-31.md"]  # rewrites that journal and decisions.md
    assert [m.source for m in plan.journal_moves] == ["2026-05-01.md"]  # and moves this one
    _refused(memory, execute_deep_sleep(plan, read, memory.config, {}), "deep-sleep", edited)


def test_rem_refuses_a_file_edited_after_planning(memory: MemoryRepo) -> None:
    outcome = plan_rem({"decisions.md": (memory.memory / "decisions.md").read_text()}, None, TODAY, memory.config)
    assert [a.entry_id for a in outcome.plan.archivals] == ["2026-01-10-old-server-config"]
    _refused(memory, Changes(outcome.writes, [], outcome.read), "rem", "decisions.md")
