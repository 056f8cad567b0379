"""`apm-git deep-sleep` on real repositories: promotion, routing, the commit, journal moves, plan/apply."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.commands.flush import flush
from apm_git.commands.lint import lint
from apm_git.model import trailers
from apm_git.model.records import parse
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git
from tests.records import memory_file, record, write

NOW = "2026-04-10T09:00:00+00:00"
NOTES = (
    "## 14:30 — Session Notes\n"
    "- **Decision:** Keep Postgres 15 — the pgvector build needs it\n"
    "- **Discovery:** The cron job runs in UTC — not local time\n"
    "- **Pending:** Ask Bob about the deploy window\n\n"
)


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*")) if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def lint_findings(repo: MemoryRepo, rev: str = "HEAD") -> list[str]:
    """`apm-git lint --from-ref REV~1 --to-ref REV`: what the checks say about one commit."""
    return [str(finding) for finding in lint(repo, from_ref=f"{rev}~1", to_ref=rev).findings]


def commit_trailers(root: Path, rev: str = "HEAD") -> list[tuple[str, str]]:
    """A commit's trailers but `Apm-Clone`, the clone's random id (tests/commands/test_flush.py checks it)."""
    return [pair for pair in trailers.parse(git(root, "log", "-1", "--format=%B", rev)) if pair[0] != "Apm-Clone"]


@pytest.fixture
def journals(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    monkeypatch.setenv("APM_GIT_NOW", NOW)
    write(repo.memory, "2026-04-08.md",
          record("2026-04-08", "Use Redis for sessions", "decision", value="HIGH"),
          record("2026-04-08", "Token refresh race", "lesson", body="Await the refresh before retrying."),
          record("2026-04-08", "Plain decision", "decision", value="LOW"),
          record("2026-04-08", "Finish the billing migration", "pending", value="HIGH"))
    (repo.memory / "2026-04-09.md").write_text(memory_file(title="Journal") + NOTES)
    flush(repo)
    return repo


def test_promotes_by_criterion_and_kind_in_one_commit(journals: MemoryRepo, run_cli: Invoke) -> None:
    repo = journals
    before = int(git(repo.root, "rev-list", "--count", "HEAD"))
    ran = run_cli("--repo", str(repo.root), "deep-sleep")
    assert ran.exit_code == 0, ran.stderr
    assert int(git(repo.root, "rev-list", "--count", "HEAD")) == before + 1
    assert git(repo.root, "log", "-1", "--format=%s").strip() == "memory: deep-sleep promoted 4"
    assert commit_trailers(repo.root) == [
        ("Apm-Promote", "2026-04-08-use-redis-for-sessions memory/2026-04-08.md -> memory/decisions.md (high-value)"),
        ("Apm-Promote", "2026-04-09-keep-postgres-15 memory/2026-04-09.md -> memory/decisions.md (decision)"),
        ("Apm-Promote", "2026-04-08-token-refresh-race memory/2026-04-08.md -> memory/lessons.md (lesson)"),
        ("Apm-Promote", "2026-04-09-the-cron-job-runs-in-utc memory/2026-04-09.md -> memory/lessons.md (lesson)"),
        ("Apm-Trigger", "deep-sleep"),
        ("Apm-Scope", "all"),
    ]
    lessons = {r.id: r for r in parse((repo.memory / "lessons.md").read_text()).entries}
    assert lessons["2026-04-08-token-refresh-race"].field("Source") == "memory/2026-04-08.md"
    assert lessons["2026-04-08-token-refresh-race"].body == "Await the refresh before retrying."
    cron = lessons["2026-04-09-the-cron-job-runs-in-utc"]
    assert (cron.kind, cron.body, cron.field("Source")) == (
        "lesson", "The cron job runs in UTC — not local time", "memory/2026-04-09.md",
    )
    left = [r.title for r in parse((repo.memory / "2026-04-08.md").read_text()).entries]
    assert left == ["Plain decision", "Finish the billing migration"]  # a LOW decision and pending items stay
    notes = (repo.memory / "2026-04-09.md").read_text()
    assert "Keep Postgres 15" not in notes and "Ask Bob" in notes and "cron job" not in notes
    state = json.loads((repo.memory / "flush-state.json").read_text())
    assert state["dreaming"]["last_deep_sleep"] == NOW
    committed = git(repo.root, "show", "--name-only", "--format=", "HEAD").split()
    assert "memory/flush-state.json" in committed and "memory/INDEX.md" in committed
    assert git(repo.root, "status", "--porcelain") == ""
    assert lint_findings(repo) == []


def test_uncommitted_memory_is_flushed_first_in_its_own_commit(journals: MemoryRepo, run_cli: Invoke) -> None:
    repo = journals
    write(repo.memory, "people.md", record("2026-04-10", "Bob prefers short PRs", "person"))
    (repo.root / "notes.txt").write_text("not memory\n")
    ran = run_cli("--repo", str(repo.root), "deep-sleep")
    assert ran.exit_code == 0, ran.stderr
    assert "flushed first" in ran.stdout
    flushed = git(repo.root, "show", "--name-only", "--format=%s", "HEAD~1").split("\n")
    assert flushed[0].startswith("memory: flush") and "memory/people.md" in flushed
    assert "memory/people.md" not in git(repo.root, "show", "--name-only", "--format=", "HEAD").split()
    assert git(repo.root, "status", "--porcelain") == "?? notes.txt\n"


def test_old_journal_moves_as_a_pure_rename_that_log_follow_keeps(repo: MemoryRepo, run_cli: Invoke,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", "2026-03-20T09:00:00+00:00")
    write(repo.memory, "2026-03-20.md", record("2026-03-20", "Finish the migration", "pending"),
          record("2026-03-20", "Config path", "anchor"), record("2026-03-20", "A plain context", "context"))
    flush(repo)
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-03T09:00:00+00:00")  # 14 days: not yet
    assert run_cli("--repo", str(repo.root), "deep-sleep").exit_code == 0
    assert (repo.memory / "2026-03-20.md").exists()
    monkeypatch.setenv("APM_GIT_NOW", "2026-04-04T09:00:00+00:00")  # 15 days
    ran = run_cli("--repo", str(repo.root), "deep-sleep")
    assert ran.exit_code == 0, ran.stderr
    assert not (repo.memory / "2026-03-20.md").exists()
    assert parse((repo.memory / "archive/journals/2026-03-20.md").read_text()).entries[0].title == (
        "Finish the migration"
    )
    status = git(repo.root, "show", "-M", "--name-status", "--format=", "HEAD")
    assert "R100\tmemory/2026-03-20.md\tmemory/archive/journals/2026-03-20.md" in status
    assert ("Apm-Move", "memory/2026-03-20.md -> memory/archive/journals/2026-03-20.md") in commit_trailers(repo.root)
    follow = git(repo.root, "log", "--follow", "--format=%s", "--", "memory/archive/journals/2026-03-20.md")
    assert follow.splitlines()[-1].startswith("memory: flush")  # the history before the move is kept
    index = (repo.memory / "INDEX.md").read_text()
    assert "2026-03-20" not in index.split("## Daily Journals")[1]  # no longer a live journal
    assert "| archive/ |" in index and "1 archived file:" in index
    assert lint_findings(repo) == []


def test_plan_changes_nothing_and_an_edited_plan_is_applied(journals: MemoryRepo, run_cli: Invoke,
                                                            tmp_path: Path) -> None:
    repo = journals
    before, files = head(repo.root), snapshot(repo.root)
    ran = run_cli("--repo", str(repo.root), "deep-sleep", "--plan")
    assert ran.exit_code == 0, ran.stderr
    assert head(repo.root) == before and snapshot(repo.root) == files
    plan = json.loads(ran.stdout)
    assert [(p["id"], p["from"], p["to"], p["reason"]) for p in plan["promote"]] == [
        ("2026-04-08-use-redis-for-sessions", "memory/2026-04-08.md", "memory/decisions.md", "high-value"),
        ("2026-04-09-keep-postgres-15", "memory/2026-04-09.md", "memory/decisions.md", "decision"),
        ("2026-04-08-token-refresh-race", "memory/2026-04-08.md", "memory/lessons.md", "lesson"),
        ("2026-04-09-the-cron-job-runs-in-utc", "memory/2026-04-09.md", "memory/lessons.md", "lesson"),
    ]
    # The agent drops two promotions, reroutes one, and adds an unpromoted decision.
    plan["promote"] = plan["promote"][2:]
    plan["promote"][1]["to"] = "memory/tools-config.md"
    plan["promote"].append({"id": "2026-04-08-plain-decision", "from": "memory/2026-04-08.md",
                            "to": "memory/decisions.md", "reason": "agent"})
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    ran = run_cli("--repo", str(repo.root), "deep-sleep", "--apply", str(path))
    assert ran.exit_code == 0, ran.stderr
    assert [value for key, value in commit_trailers(repo.root) if key == "Apm-Promote"] == [
        "2026-04-08-token-refresh-race memory/2026-04-08.md -> memory/lessons.md (lesson)",
        "2026-04-09-the-cron-job-runs-in-utc memory/2026-04-09.md -> memory/tools-config.md (lesson)",
        "2026-04-08-plain-decision memory/2026-04-08.md -> memory/decisions.md (agent)",
    ]
    assert "Use Redis for sessions" in (repo.memory / "2026-04-08.md").read_text()
    assert "The cron job runs in UTC" in (repo.memory / "tools-config.md").read_text()


@pytest.mark.parametrize(("edit", "message"), [
    (lambda p: p["promote"][0].update(id="2026-04-08-no-such-entry"), "no such entry in memory/2026-04-08.md"),
    (lambda p: p["promote"][0].update(to="memory/INDEX.md"), "target memory/INDEX.md is not a category file"),
    (lambda p: p["promote"][0].update(to="memory/../apm.yaml"), "is outside the memory dir"),
    (lambda p: p["promote"][0].update(to="/etc/passwd"), "is outside the memory dir"),
    (lambda p: p["promote"][0].update(id="2026-04-08-finish-the-billing-migration"), "pending items are never"),
    (lambda p: p["journals"].append({"from": "memory/2026-04-08.md", "to": "memory/archive/x.md"}),
     "a journal moves only to memory/archive/journals/2026-04-08.md"),
    (lambda p: p.update(promote="all"), "plan key 'promote' must be a list of objects"),
    (lambda p: p["promote"][0].update(score=3), "promote[0] has unknown key(s) score; use id, from, to, reason"),
])
def test_an_edited_plan_with_a_bad_id_or_target_is_refused_whole(
    journals: MemoryRepo, run_cli: Invoke, tmp_path: Path, edit: object, message: str,
) -> None:
    repo = journals
    plan = json.loads(run_cli("--repo", str(repo.root), "deep-sleep", "--plan").stdout)
    assert callable(edit)
    edit(plan)
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    write(repo.memory, "people.md", record("2026-04-10", "Uncommitted", "person"))  # not flushed when refused
    before, files = head(repo.root), snapshot(repo.root)
    ran = run_cli("--repo", str(repo.root), "deep-sleep", "--apply", str(tmp_path / "plan.json"))
    assert ran.exit_code == 1
    assert message in ran.stderr and "nothing was changed" in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1
    assert head(repo.root) == before and snapshot(repo.root) == files


def test_an_edited_plan_that_would_pass_a_budget_is_refused(journals: MemoryRepo, run_cli: Invoke,
                                                             tmp_path: Path) -> None:
    repo = journals
    config = (repo.root / "apm.yaml").read_text().replace("decisions.md: 200", "decisions.md: 9")
    (repo.root / "apm.yaml").write_text(config)  # the 5-line decisions.md has no room for a 6-line record
    plan = json.loads(run_cli("--repo", str(repo.root), "deep-sleep", "--plan").stdout)
    assert "memory/decisions.md" not in [p["to"] for p in plan["promote"]]
    assert {"id": "2026-04-08-use-redis-for-sessions", "from": "memory/2026-04-08.md",
            "reason": "no room in memory/decisions.md: its 5 lines of prose leave no room for a 6-line record within "
                      "its budget of 9 lines (trim or split it, or raise its budget in apm.yaml)"} in plan["kept"]
    plan["promote"].append({"id": "2026-04-08-use-redis-for-sessions", "from": "memory/2026-04-08.md",
                            "to": "memory/decisions.md", "reason": "agent"})
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    before, files = head(repo.root), snapshot(repo.root)
    ran = run_cli("--repo", str(repo.root), "deep-sleep", "--apply", str(tmp_path / "plan.json"))
    assert ran.exit_code == 1
    assert ran.stderr.strip() == (
        "apm-git: plan refused, nothing was changed: promotions would put memory/decisions.md over its budget "
        "(11 > 9 lines); add archive moves or drop promotions"
    )
    assert head(repo.root) == before and snapshot(repo.root) == files


def test_plan_usage_errors(journals: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    ran = run_cli("--repo", str(journals.root), "deep-sleep", "--apply", str(tmp_path / "bad.json"))
    assert ran.exit_code == 1 and "bad.json:1: not valid JSON" in ran.stderr
    ran = run_cli("--repo", str(journals.root), "deep-sleep", "--plan", "--apply", str(tmp_path / "bad.json"))
    assert ran.exit_code == 2 and "separate runs" in ran.stderr


def test_dry_run_says_what_it_would_do_and_changes_nothing(journals: MemoryRepo, run_cli: Invoke) -> None:
    before, files = head(journals.root), snapshot(journals.root)
    ran = run_cli("--repo", str(journals.root), "deep-sleep", "--dry-run")
    assert ran.exit_code == 0, ran.stderr
    assert "deep-sleep promoted 4 (dry run: nothing changed)" in ran.stdout
    assert "promote: 2026-04-08-token-refresh-race memory/2026-04-08.md -> memory/lessons.md (lesson)" in ran.stdout
    assert head(journals.root) == before and snapshot(journals.root) == files


def test_an_edited_plan_may_archive_for_room_but_not_choose_the_score(journals: MemoryRepo, run_cli: Invoke,
                                                                      tmp_path: Path) -> None:
    repo = journals
    write(repo.memory, "people.md", record("2026-01-01", "Old contact", "person", last="2026-01-01", value="LOW"),
          *(record("2026-04-01", f"Contact {n}", "person") for n in range(4)))
    flush(repo)
    plan = json.loads(run_cli("--repo", str(repo.root), "deep-sleep", "--plan").stdout)
    plan["archive"].append({"id": "2026-01-01-old-contact", "from": "memory/people.md",
                            "to": "memory/archive/2026-04.md", "score": 999})
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    ran = run_cli("--repo", str(repo.root), "deep-sleep", "--apply", str(tmp_path / "plan.json"))
    assert ran.exit_code == 0, ran.stderr
    assert ("Apm-Archive", "2026-01-01-old-contact memory/people.md -> memory/archive/2026-04.md (score 1)") in (
        commit_trailers(repo.root)
    )
    archived = parse((repo.memory / "archive/2026-04.md").read_text()).entries[0]
    assert archived.field("Archived") == (
        "2026-04-10 (fitness score: 1, last_referenced: 2026-01-01, from memory/people.md)"
    )
