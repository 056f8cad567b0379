"""The memory's history read once (ui/timeline.py): the charts' figures and each entry's life, kept by commit id
and extended by the commits since; the life tells what `history` tells."""
from __future__ import annotations

import pytest

from apm_git.commands.flush import flush
from apm_git.commands.history import history
from apm_git.store.repo import MemoryRepo
from apm_git.ui import charts, timeline
from tests.checks.helpers import record
from tests.conftest import Invoke, git


def test_the_series_follow_the_history_and_the_cache_extends_it(repo: MemoryRepo) -> None:
    decisions = repo.memory / "decisions.md"
    text = decisions.read_text()
    for day in range(1, 4):
        text += record(f"2026-01-0{day}", f"Decision {day}")
        decisions.write_text(text)
        assert flush(repo).commit
    first = timeline.read(repo)
    assert first is not None and first.head == git(repo.root, "rev-parse", "HEAD").strip()
    (repo.memory / "archive").mkdir(exist_ok=True)
    (repo.memory / "archive/2026-01.md").write_text("# Archive 2026-01\n\n" + record("2026-01-01", "Decision 1"))
    decisions.write_text(text.replace(record("2026-01-01", "Decision 1"), ""))
    assert flush(repo).commit
    extended = timeline.read(repo)
    (repo.state_dir / timeline.CACHE).unlink()
    afresh = timeline.read(repo)
    assert extended is not None and afresh is not None
    assert (extended.rows, extended.heads, extended.entries) == (afresh.rows, afresh.heads, afresh.entries)
    assert len(extended.rows) == len(first.rows) + 1
    path = "memory/decisions.md"
    data = charts.series(repo, extended.rows, [path])
    assert data.entries["live"][-4:] == [1, 2, 3, 2] and data.entries["archive"][-1] == 1
    assert data.lines[path][-1] == len(decisions.read_text().splitlines())
    svg = charts.entries_chart(data) + charts.file_chart(path, data.lines[path], 200)
    assert svg.count("<polyline") == 4 and "<script" not in svg
    assert [what for _, what, _, _ in extended.entries["2026-01-01-decision-1"]] == ["created", "moved"]
    assert [what for _, what, _, _ in extended.entries["2026-01-02-decision-2"]] == ["created"]


def test_a_rewritten_history_is_read_again(repo: MemoryRepo) -> None:
    (repo.memory / "decisions.md").write_text("# Decisions\n\n" + record("2026-01-01", "One"))
    assert flush(repo).commit
    before = timeline.read(repo)
    git(repo.root, "reset", "-q", "--hard", "HEAD~1")
    after = timeline.read(repo)
    assert before is not None and after is not None and after.rows == before.rows[:-1]
    assert "2026-01-01-one" not in after.entries


@pytest.mark.slow
def test_an_entrys_life_is_what_history_tells(repo: MemoryRepo, run_cli: Invoke) -> None:
    """Created in a journal, hit (changed), promoted, its neighbour edited (not a change of it), proven,
    archived, restored: the same commits and the same words as `apm-git history`."""
    lesson = "2026-03-02-retry-uploads"
    days = {"APM_GIT_NOW": "2026-03-02T10:00:00+00:00"}

    def cli(*args: str, at: dict[str, str] = days) -> None:
        ran = run_cli("--repo", str(repo.root), *args, env=at)
        assert ran.exit_code == 0, (args, ran.stderr)

    cli("journal", "add", "Retry uploads twice", "--kind", "lesson", "--title", "Retry uploads")
    cli("journal", "add", "Keep the logs", "--kind", "lesson", "--title", "Keep logs")
    cli("flush")
    cli("hit", "--commit", lesson)
    cli("deep-sleep", at={"APM_GIT_NOW": "2026-03-06T10:00:00+00:00"})
    cli("hit", "--commit", "2026-03-02-keep-logs", at={"APM_GIT_NOW": "2026-03-07T10:00:00+00:00"})
    for day in range(8, 13):
        cli("hit", "--commit", lesson, at={"APM_GIT_NOW": f"2026-03-{day:02d}T10:00:00+00:00"})
    cli("rem", at={"APM_GIT_NOW": "2026-03-13T10:00:00+00:00"})
    read = timeline.read(repo)
    assert read is not None
    ours = [(read.rows[row][0][:12], what) for row, what, _, _ in read.entries[lesson]]
    theirs = [(event.commit, event.what) for event in history(repo, lesson)]
    assert ours == theirs
    assert [what for _, what in ours] == ["created", "changed", "promoted", *["changed"] * 5, "proven"]
