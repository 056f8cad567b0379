"""The memory over time: what one `git log -p -U0` says, kept by commit id and extended by the commits since."""
from __future__ import annotations

import json

from apm_git.commands.flush import flush
from apm_git.store.repo import MemoryRepo
from apm_git.ui import charts
from tests.checks.helpers import record
from tests.conftest import git


def test_the_series_follow_the_history_and_the_cache_extends_it(repo: MemoryRepo) -> None:
    decisions = repo.memory / "decisions.md"
    text = decisions.read_text()
    for day in range(1, 4):
        text += record(f"2026-01-0{day}", f"Decision {day}")
        decisions.write_text(text)
        assert flush(repo).commit
    first = charts.rows(repo)
    cache = json.loads((repo.state_dir / charts.CACHE).read_text())
    assert cache["head"] == git(repo.root, "rev-parse", "HEAD").strip() and len(cache["rows"]) == len(first)
    (repo.memory / "archive").mkdir(exist_ok=True)
    (repo.memory / "archive/2026-01.md").write_text("# Archive 2026-01\n\n" + record("2026-01-01", "Decision 1"))
    decisions.write_text(text.replace(record("2026-01-01", "Decision 1"), ""))
    assert flush(repo).commit
    extended = charts.rows(repo)
    (repo.state_dir / charts.CACHE).unlink()
    assert extended == charts.rows(repo)  # the cached rows plus the new commit, as read afresh
    assert extended[: len(first)] == first and len(extended) == len(first) + 1
    path = "memory/decisions.md"
    data = charts.series(repo, extended, [path])
    assert data.entries["live"][-4:] == [1, 2, 3, 2] and data.entries["archive"][-1] == 1
    assert data.lines[path][-1] == len(decisions.read_text().splitlines())
    svg = charts.entries_chart(data) + charts.file_chart(path, data.lines[path], 200)
    assert svg.count("<polyline") == 4 and "<script" not in svg


def test_a_rewritten_history_is_read_again(repo: MemoryRepo) -> None:
    (repo.memory / "decisions.md").write_text("# Decisions\n\n" + record("2026-01-01", "One"))
    assert flush(repo).commit
    before = charts.rows(repo)
    git(repo.root, "reset", "-q", "--hard", "HEAD~1")
    assert charts.rows(repo) == before[:-1]
