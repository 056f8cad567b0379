"""`apm-git rem` on real repositories: every rule in one commit, the guard, the archive, INDEX."""
from __future__ import annotations

import json

import pytest

from apm_git.commands.flush import flush
from apm_git.model.records import parse
from apm_git.store.repo import MemoryRepo
from tests.commands.test_deep_sleep import commit_trailers, head, lint_findings, snapshot
from tests.conftest import Invoke, git
from tests.records import record, write

NOW = "2026-06-01T09:00:00+00:00"
OLD = "2026-03-01"


def live(n: int, kind: str = "decision") -> list[str]:
    return [record("2026-05-20", f"Healthy {kind} number {i}", kind, last="2026-05-30", hits=1) for i in range(n)]


@pytest.fixture
def memory(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    monkeypatch.setenv("APM_GIT_NOW", NOW)
    write(repo.memory, "decisions.md",
          record("2026-05-01", "Cache everything", hits=5, last="2026-05-30"),
          record("2026-01-10", "Old server config", value="LOW", last=OLD),
          record("2026-04-01", "Use Redis", hits=2, body="Redis for sessions."),
          record("2026-04-03", "Use Redis", hits=1, body="Redis for sessions.", last="2026-05-02"),
          record("2026-05-01", "API versioning", body="In the header."),
          record("2026-05-20", "API versioning", body="In the path."),
          record("2026-01-01", "Cache TTL", value="LOW", last="2025-01-01",
                 fields=(("Conflicts", "2026-05-20-api-versioning — TTL depends on the version"),)),
          *live(8))
    write(repo.memory, "2026-05-25.md", record("2026-05-25", "Stale journal note", "decision", value="LOW",
                                               last="2025-01-01"))
    flush(repo)
    return repo


def test_rem_applies_every_rule_in_one_commit(memory: MemoryRepo, run_cli: Invoke) -> None:
    repo = memory
    before = int(git(repo.root, "rev-list", "--count", "HEAD"))
    ran = run_cli("--repo", str(repo.root), "rem")
    assert ran.exit_code == 0, ran.stderr
    assert int(git(repo.root, "rev-list", "--count", "HEAD")) == before + 1
    assert git(repo.root, "log", "-1", "--format=%s").strip() == (
        "memory: rem archived 2, proven 1, superseded 1, merged 1"
    )
    assert commit_trailers(repo.root) == [
        ("Apm-Proven", "2026-05-01-cache-everything memory/decisions.md"),
        ("Apm-Move",
         "2026-04-01-use-redis memory/decisions.md -> memory/decisions.md (merged into 2026-04-03-use-redis)"),
        ("Apm-Supersede", "2026-05-01-api-versioning -> 2026-05-20-api-versioning"),
        ("Apm-Archive", "2026-01-10-old-server-config memory/decisions.md -> memory/archive/2026-06.md (score 8)"),
        ("Apm-Archive", "2026-05-01-api-versioning memory/decisions.md -> memory/archive/2026-06.md (score 94)"),
        ("Apm-Trigger", "rem"),
        ("Apm-Scope", "all"),
    ]
    after = {r.id: r for r in parse((repo.memory / "decisions.md").read_text()).entries}
    assert after["2026-05-01-cache-everything"].proven
    assert after["2026-04-03-use-redis"].field("Merged") == "2026-04-01-use-redis"
    assert after["2026-04-03-use-redis"].fitness is not None and after["2026-04-03-use-redis"].fitness.hit_count == 3
    assert after["2026-05-20-api-versioning"].field("Supersedes") == "2026-05-01-api-versioning — In the header."
    assert "2026-01-01-cache-ttl" in after  # in conflict: kept however low
    archive = {r.id: r for r in parse((repo.memory / "archive/2026-06.md").read_text()).entries}
    assert set(archive) == {"2026-01-10-old-server-config", "2026-05-01-api-versioning"}
    assert archive["2026-05-01-api-versioning"].field("Superseded-by") == "2026-05-20-api-versioning"
    index = (repo.memory / "INDEX.md").read_text()
    assert "## Conflicts (unresolved, never archived)" in index
    assert "| 2026-01-01-cache-ttl | decisions.md | 2026-05-20-api-versioning — TTL depends on the version |" in index
    assert "Stale journal note" in (repo.memory / "2026-05-25.md").read_text()  # REM never scores journals
    state = json.loads((repo.memory / "flush-state.json").read_text())
    assert state["dreaming"]["last_rem"] == NOW
    assert git(repo.root, "status", "--porcelain") == ""
    assert lint_findings(repo) == []


def stale(n: int) -> list[str]:
    return [record("2026-01-01", f"Stale {i}", "lesson", value="LOW", last=OLD) for i in range(n)]


def test_the_guard_refuses_a_mass_archive_unless_forced(repo: MemoryRepo, run_cli: Invoke,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", NOW)
    write(repo.memory, "lessons.md", *stale(7), *live(13, "lesson"))
    flush(repo)
    before, files = head(repo.root), snapshot(repo.root)
    ran = run_cli("--repo", str(repo.root), "rem")
    assert ran.exit_code == 1
    assert ran.stderr.strip() == (
        "apm-git: rem would archive 7 of 20 live entries (35%), more than rem.max_archive_share (25%) and more than "
        "rem.guard_min_entries (5); nothing was changed — review the plan with `apm-git rem --dry-run`, then run "
        "again with --force"
    )
    assert head(repo.root) == before and snapshot(repo.root) == files
    ran = run_cli("--repo", str(repo.root), "rem", "--force")
    assert ran.exit_code == 0, ran.stderr
    assert len(parse((repo.memory / "archive/2026-06.md").read_text()).entries) == 7


def test_the_guard_reads_apm_yaml(repo: MemoryRepo, run_cli: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", NOW)
    config = (repo.root / "apm.yaml").read_text().replace("max_archive_share: 0.25", "max_archive_share: 0.5")
    (repo.root / "apm.yaml").write_text(config)
    write(repo.memory, "lessons.md", *stale(7), *live(13, "lesson"))
    assert run_cli("--repo", str(repo.root), "rem").exit_code == 0


def test_dry_run_lists_and_changes_nothing(memory: MemoryRepo, run_cli: Invoke) -> None:
    before, files = head(memory.root), snapshot(memory.root)
    ran = run_cli("--repo", str(memory.root), "--json", "rem", "--dry-run")
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["dry_run"] is True and data["commit"] is None
    assert [a["id"] for a in data["plan"]["archive"]] == ["2026-01-10-old-server-config", "2026-05-01-api-versioning"]
    assert data["plan"]["live"] == 15
    assert head(memory.root) == before and snapshot(memory.root) == files


@pytest.mark.slow
def test_group_experience_is_scored_and_budgets_hold(repo: MemoryRepo, run_cli: Invoke,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APM_GIT_NOW", NOW)
    (repo.memory / "group_names.json").write_text('{"room-1": "team-a"}\n')
    flush(repo)
    config = (repo.root / "apm.yaml").read_text().replace("groups/*/experience.md: 300", "groups/*/experience.md: 40")
    (repo.root / "apm.yaml").write_text(config)
    experience = repo.memory / "groups/team-a/experience.md"
    preamble = experience.read_text()
    entries = [record("2026-05-01", f"Group lesson {i}", "lesson", last=f"2026-05-{10 + i:02d}") for i in range(9)]
    experience.write_text(preamble + "\n" + "".join(entries))
    assert len(experience.read_text().splitlines()) > 40
    ran = run_cli("--repo", str(repo.root), "rem", "--force")
    assert ran.exit_code == 0, ran.stderr
    assert len(experience.read_text().splitlines()) <= 40
    archived = [value for key, value in commit_trailers(repo.root) if key == "Apm-Archive"]
    assert archived and all("memory/groups/team-a/experience.md" in value for value in archived)
    assert archived[0].startswith("2026-05-01-group-lesson-0 ")  # the least recently used goes first


def test_the_same_run_again_at_the_same_moment_makes_no_commit(memory: MemoryRepo, run_cli: Invoke) -> None:
    assert run_cli("--repo", str(memory.root), "rem").exit_code == 0
    before = head(memory.root)
    ran = run_cli("--repo", str(memory.root), "rem")
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout.startswith("apm-git: rem nothing to change; nothing changed since the last run, so no commit")
    assert head(memory.root) == before and git(memory.root, "status", "--porcelain") == ""


def test_a_folder_under_groups_that_is_no_group_is_left_alone(memory: MemoryRepo, run_cli: Invoke) -> None:
    """`groups/Foo/` (not a group name) is no group: REM and flush pass it by instead of failing."""
    repo = memory
    write(repo.memory, "groups/Foo/experience.md", record("2026-01-10", "Stray note", value="LOW", last=OLD))
    (repo.memory / "groups/Foo.md").write_text("# not a group index\n")
    ran = run_cli("--repo", str(repo.root), "rem")
    assert ran.exit_code == 0, ran.stderr
    assert "memory/groups/Foo" not in ran.stdout  # flushed first, never scored
    assert "Stray note" in (repo.memory / "groups/Foo/experience.md").read_text()
    state = json.loads((repo.memory / "flush-state.json").read_text())
    assert "Foo" not in state["groups"]
