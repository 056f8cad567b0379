from __future__ import annotations

import pytest

from apm_git.commands.journal import add
from apm_git.model.records import parse
from apm_git.model.titles import default_title
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke

NOW = {"APM_GIT_NOW": "2026-04-06T14:30:00"}


def test_journal_add_appends_a_well_formed_record(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "journal", "add", "Use Redis for sessions. Memcached lost keys.",
                  "--kind", "decision", "--tags", "cache, redis", "--value", "HIGH", env=NOW)
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout.strip() == "memory/2026-04-06.md:3: added 2026-04-06-use-redis-for-sessions"
    text = (repo.memory / "2026-04-06.md").read_text()
    assert text == (
        "# Journal 2026-04-06\n\n"
        "## [2026-04-06] Use Redis for sessions\n"
        "- Tags: decision, cache, redis\n"
        "- Fitness: last_referenced=2026-04-06, hit_count=0, decision_value=HIGH\n"
        "- Body: Use Redis for sessions. Memcached lost keys.\n\n"
    )
    ran = run_cli("--repo", str(repo.root), "journal", "add", "Deploy runs from CI", "--kind", "context", env=NOW)
    records = parse((repo.memory / "2026-04-06.md").read_text()).entries
    assert [r.kind for r in records] == ["decision", "context"]
    assert records[1].fitness is not None and records[1].fitness.decision_value == "MEDIUM"
    assert records[1].line_no == 8


def test_same_title_twice_gets_a_distinct_id(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-06")
    first = add(repo, "Pending: ship v2", kind="pending", title="Ship v2")
    second = add(repo, "Pending: ship v2 again", kind="pending", title="Ship v2")
    assert first.entry_id == "2026-04-06-ship-v2" and second.entry_id == "2026-04-06-ship-v2-2"


def test_appends_with_the_file_line_ends(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-06")
    original = b"\xef\xbb\xbf# Journal\r\n\r\nhand-written note without newline"
    (repo.memory / "2026-04-06.md").write_bytes(original)
    add(repo, "line one\nline two", kind="lesson")
    data = (repo.memory / "2026-04-06.md").read_bytes()
    assert data.startswith(original + b"\r\n\r\n## [2026-04-06] line one\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")
    (record,) = parse(data.decode()).entries
    assert record.extra_lines == ["  line two"]


def test_multiline_text_cannot_forge_a_record(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-06")
    add(repo, "first\n## [2026-01-01] injected\n- Tags: x", kind="lesson")
    assert len(parse((repo.memory / "2026-04-06.md").read_text()).records) == 1


@pytest.mark.parametrize(("args", "code"), [(["--kind", "rumour"], 2), (["--kind", "lesson", "--value", "HUGE"], 2)])
def test_bad_arguments_are_usage_errors(repo: MemoryRepo, run_cli: Invoke, args: list[str], code: int) -> None:
    ran = run_cli("--repo", str(repo.root), "journal", "add", "text", *args)
    assert ran.exit_code == code
    assert not list(repo.memory.glob("2*.md"))


def test_empty_text_is_refused(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "journal", "add", "   ", "--kind", "lesson")
    assert ran.exit_code == 2 and "empty" in ran.stderr


def test_default_title() -> None:
    assert default_title("Use Redis for the session cache; Memcached lost keys.") == "Use Redis for the session cache"
    words = "one two three four five six seven eight"
    assert default_title(words + " nine ten") == words


def test_a_long_title_twice_on_one_day_still_gets_a_distinct_id(repo: MemoryRepo,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-06")
    title = "Dashboard for the gitlab-ci artifact upload runner pool (CI-2015) follow-up"
    ids = [add(repo, f"text {n}", kind="anchor", title=title).entry_id for n in range(3)]
    assert len(set(ids)) == 3
    assert ids[1].endswith("-2") and ids[2].endswith("-3")
    assert all(len(entry_id) <= len("2026-04-06-") + 60 for entry_id in ids)


def test_kind_and_value_in_any_case(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "journal", "add", "ship on Tuesdays", "--kind", "Decision",
                  "--value", "high")
    assert ran.exit_code == 0, ran.stderr
    text = "".join(path.read_text() for path in repo.memory.glob("20*.md"))
    assert "- Tags: decision" in text and "decision_value=HIGH" in text
    ran = run_cli("--repo", str(repo.root), "journal", "add", "x", "--kind", "Nope")
    assert ran.exit_code == 2 and "'Nope' is not one of 'decision'" in ran.stderr
