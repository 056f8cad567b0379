"""operations/consolidation.run: the one place a consolidation runs (plan once, flush first, execute, commit)."""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection

import pytest

from apm_git.commands.flush import flush
from apm_git.errors import PlanRefused
from apm_git.operations.consolidation import Planned, run
from apm_git.operations.stages import DeepSleep, Rem
from apm_git.store.repo import MemoryRepo, open_repo
from tests.conftest import git
from tests.records import record, write

NOW = "2026-06-01T09:00:00+00:00"


@dataclasses.dataclass
class CountedDeepSleep(DeepSleep):
    """Deep sleep that counts its plans: the runner must plan a run exactly once."""

    plans: list[dt.date] = dataclasses.field(default_factory=list)

    def plan(self, repo: MemoryRepo, today: dt.date, left: Collection[str]) -> Planned:
        self.plans.append(today)
        return super().plan(repo, today, left)


@dataclasses.dataclass
class CountedRem(Rem):
    plans: list[dt.date] = dataclasses.field(default_factory=list)

    def plan(self, repo: MemoryRepo, today: dt.date, left: Collection[str]) -> Planned:
        self.plans.append(today)
        return super().plan(repo, today, left)


@pytest.fixture
def memory(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    monkeypatch.setenv("APM_GIT_NOW", NOW)
    write(repo.memory, "2026-05-30.md", record("2026-05-30", "Use Redis for sessions", "decision", value="HIGH"))
    write(repo.memory, "decisions.md", record("2026-01-10", "Old server config", value="LOW", last="2026-03-01"),
          record("2026-05-01", "Cache everything", hits=5, last="2026-05-30"))
    flush(repo)
    return repo


def uncommitted(repo: MemoryRepo) -> None:
    write(repo.memory, "people.md", record("2026-06-01", "Bob prefers short PRs", "person"))


@pytest.mark.parametrize("stage", [CountedDeepSleep, CountedRem])
def test_a_run_with_uncommitted_memory_plans_once_flushes_then_commits(memory: MemoryRepo, stage: type) -> None:
    uncommitted(memory)
    before = git(memory.root, "rev-parse", "HEAD").strip()
    counted = stage()
    result = run(memory, counted)
    assert counted.plans == [dt.date(2026, 6, 1)]  # once, though a flush came between the plan and the commit
    assert result.flushed is not None and result.commit is not None
    assert git(memory.root, "rev-parse", "HEAD~2").strip() == before
    assert git(memory.root, "rev-parse", "HEAD~1").strip() == result.flushed
    assert "memory/people.md" in git(memory.root, "show", "--name-only", "--format=", result.flushed).split()
    assert git(memory.root, "status", "--porcelain") == ""


def test_a_clean_run_plans_once_and_flushes_nothing(memory: MemoryRepo) -> None:
    counted = CountedDeepSleep()
    result = run(memory, counted)
    assert counted.plans == [dt.date(2026, 6, 1)]
    assert result.flushed is None and result.commit is not None
    assert git(memory.root, "log", "-1", "--format=%s").strip() == "memory: deep-sleep promoted 1"


def test_a_dry_run_plans_once_and_changes_nothing(memory: MemoryRepo) -> None:
    uncommitted(memory)
    before = git(memory.root, "rev-parse", "HEAD").strip()
    counted = CountedRem()
    result = run(memory, counted, dry_run=True)
    assert counted.plans == [dt.date(2026, 6, 1)]
    assert result.dry_run and result.commit is None and result.flushed is None
    assert git(memory.root, "rev-parse", "HEAD").strip() == before
    assert git(memory.root, "status", "--porcelain") == " M memory/people.md\n"


def test_a_refused_run_flushes_nothing(memory: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard refuses on the one plan, before the flush: the user's changes stay uncommitted."""
    config = (memory.root / "apm.yaml").read_text()
    config = config.replace("max_archive_share: 0.25", "max_archive_share: 0.1")
    (memory.root / "apm.yaml").write_text(config.replace("guard_min_entries: 5", "guard_min_entries: 0"))
    git(memory.root, "commit", "-qam", "a strict guard")
    uncommitted(memory)
    before = git(memory.root, "rev-parse", "HEAD").strip()
    counted = CountedRem()
    with pytest.raises(PlanRefused, match="rem would archive 1 of 3 live entries"):
        run(open_repo(memory.root), counted)
    assert len(counted.plans) == 1
    assert git(memory.root, "rev-parse", "HEAD").strip() == before
    assert git(memory.root, "status", "--porcelain") == " M memory/people.md\n"
