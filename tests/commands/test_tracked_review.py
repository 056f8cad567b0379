"""What the agent's own consolidation did, made visible and undoable: `apm-git diff`, `log` and `restore` on a
tracked Claude Code folder after a simulated background consolidation (it deletes three facts and rewrites
MEMORY.md while no session runs, as Claude Code's "auto dream" does)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Invoke
from tests.tracked_homes import claude_payload, files_of, history, hook, machine, write_files

MEMORY = """# Memory

- [Redis](redis.md) — the session cache
- [Deploy](deploy.md) — how we ship
- Use pnpm, not npm
- The staging database is reset every Sunday

## Preferences
- Tabs in Go, spaces elsewhere
- Short commit subjects
"""
REDIS = "# Redis\n- TTL is 300 s for sessions\n- eviction: allkeys-lru\n- The cache warms up from the replica\n"
DEPLOY = "# Deploy\n- make deploy from main only\n- Fridays are frozen\n"
# The consolidation: MEMORY.md rewritten (its index reordered, a fact reworded, the heading renamed, one fact
# dropped), one fact dropped from each topic file: three facts deleted in all.
CONSOLIDATED_MEMORY = """# Memory

- [Deploy](deploy.md) — how we ship
- [Redis](redis.md) — the session cache
- Use pnpm, never npm

## Style
- Tabs in Go, spaces elsewhere
- Short commit subjects
"""
CONSOLIDATED_REDIS = "# Redis\n- TTL is 300 s for sessions\n- eviction: allkeys-lru\n"
CONSOLIDATED_DEPLOY = "# Deploy\n- make deploy from main only\n"
SESSION = "# Session\n- The flaky test is test_cache_expiry\n"
REMOVED = {"- The staging database is reset every Sunday", "- The cache warms up from the replica",
           "- Fridays are frozen"}


@pytest.fixture
def session_then_dream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Invoke) -> tuple[Path, Path, Path]:
    """A tracked project whose session ran and ended; then the background consolidation rewrote the folder."""
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop", "git@github.com:me/shop.git")
    folder = laptop.claude_memory(project, {"MEMORY.md": MEMORY, "redis.md": REDIS, "deploy.md": DEPLOY})
    monkeypatch.chdir(project)
    ran = run_cli("track", "claude-code", "--json")
    assert ran.exit_code == 0, ran.stderr
    git_dir = Path(json.loads(ran.stdout)["tracked"]["history"])
    assert hook("claude-code", claude_payload("SessionStart", project, laptop.home), cwd=project).returncode == 0
    write_files(folder, {"session.md": SESSION})  # what the agent learnt in the session
    assert hook("claude-code", claude_payload("SessionEnd", project, laptop.home), cwd=project).returncode == 0
    write_files(folder, {"MEMORY.md": CONSOLIDATED_MEMORY, "redis.md": CONSOLIDATED_REDIS,
                         "deploy.md": CONSOLIDATED_DEPLOY})
    return project, folder, git_dir


def test_diff_names_what_the_consolidation_removed_before_any_snapshot(session_then_dream: tuple[Path, Path, Path],
                                                                        run_cli: Invoke) -> None:
    ran = run_cli("diff", "--json")
    assert ran.exit_code == 0, ran.stderr
    out = json.loads(ran.stdout)
    removed = [fact for fact in out["facts"] if fact["status"] == "removed"]
    assert {fact["text"] for fact in removed} == REMOVED
    assert all(fact["background"] and fact["commit"] is None for fact in removed)  # no session runs now
    assert out["new_name"] == "the folder" and out["summary"]["facts"]["removed"] == 3


@pytest.mark.slow
def test_the_timer_snapshot_is_marked_and_diff_traces_each_removal_to_it(
    session_then_dream: tuple[Path, Path, Path], run_cli: Invoke,
) -> None:
    project, _, git_dir = session_then_dream
    timer = run_cli("snapshot", "--all", "--trigger", "timer", "--json")
    assert timer.exit_code == 0, timer.stderr
    shot = json.loads(timer.stdout)["snapshots"][0]
    assert shot["background"] is True and sorted(shot["files"]) == ["MEMORY.md", "deploy.md", "redis.md"]
    assert "Apm-Origin: background" in history(git_dir, "log", "-1", "--format=%B")

    out = json.loads(run_cli("diff", "HEAD~1..HEAD", "--json").stdout)
    by_status: dict[str, set[str]] = {}
    for fact in out["facts"]:
        by_status.setdefault(fact["status"], set()).add(fact["text"])
    assert by_status["removed"] == REMOVED
    assert by_status["rewritten"] == {"- Use pnpm, never npm"}
    assert all(fact["commit"] == shot["commit"] and fact["background"] for fact in out["facts"]
               if fact["status"] != "added")
    sections = {(section["status"], section["heading"], section["source"]) for section in out["sections"]}
    assert ("renamed", "## Style", "## Preferences") in sections
    text = run_cli("diff", "HEAD~1").stdout  # the same, as a person reads it
    assert "Removed facts:" in text and "deploy.md › # Deploy: - Fridays are frozen  [BACKGROUND, snapshot" in text
    assert "BACKGROUND: " in text and "apm-git restore" in text

    log = run_cli("log").stdout.splitlines()
    assert [line.split()[3:5] for line in log] == [["snapshot", "trigger=timer"], ["snapshot", "trigger=session-end"],
                                                   ["snapshot", "trigger=track"]]
    assert "session=s-1" in log[1]
    listed = json.loads(run_cli("log", "--tracked", "claude-code", "--json").stdout)["commits"]
    assert [commit["trigger"] for commit in listed] == ["timer", "session-end", "track"]
    assert project.is_dir()


@pytest.mark.slow
def test_restore_undoes_the_consolidation_as_a_new_snapshot(session_then_dream: tuple[Path, Path, Path],
                                                            run_cli: Invoke) -> None:
    _, folder, git_dir = session_then_dream
    assert run_cli("snapshot", "--trigger", "timer").exit_code == 0
    dreamt = history(git_dir, "rev-parse", "HEAD").strip()

    ran = run_cli("restore", "MEMORY.md", "redis.md", "deploy.md", "--json")

    assert ran.exit_code == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert files_of(folder) == {"MEMORY.md": MEMORY.encode(), "deploy.md": DEPLOY.encode(), "redis.md": REDIS.encode(),
                                "session.md": SESSION.encode()}
    assert sorted(item["path"] for item in out["restored"]) == ["MEMORY.md", "deploy.md", "redis.md"]
    assert out["before"] is None  # the folder was snapshotted already
    assert history(git_dir, "rev-parse", "HEAD~1").strip() == dreamt  # a new snapshot on top: no history rewritten
    body = history(git_dir, "log", "-1", "--format=%B")
    assert "Apm-Trigger: restore" in body and body.count("Apm-Restore: ") == 3
    after = json.loads(run_cli("diff", "HEAD~1..HEAD", "--json").stdout)
    assert {fact["text"] for fact in after["facts"] if fact["status"] == "added"} == REMOVED
    assert run_cli("diff", "--json").stdout.count('"status"') == 0  # the folder is its newest snapshot


def test_restore_brings_back_one_removed_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop")
    folder = laptop.claude_memory(project, {"MEMORY.md": MEMORY})
    monkeypatch.chdir(project)
    assert run_cli("track", "claude-code", "--no-hooks").exit_code == 0
    without = MEMORY.split("## Preferences")[0].rstrip("\n") + "\n- a later fact\n"
    write_files(folder, {"MEMORY.md": without})

    ran = run_cli("restore", "MEMORY.md", "--section", "Preferences")

    assert ran.exit_code == 0, ran.stderr
    assert "the folder as it was is snapshot" in ran.stdout  # the later fact is kept in the history too
    restored = (folder / "MEMORY.md").read_text()
    assert restored.endswith("## Preferences\n- Tabs in Go, spaces elsewhere\n- Short commit subjects\n")
    assert "- a later fact\n" in restored
    again = run_cli("restore", "MEMORY.md", "--section", "Preferences")
    assert again.exit_code == 3 and "as the history has it" in again.stderr


@pytest.mark.parametrize(("args", "code", "words"), [
    (("restore",), 2, "name the files to restore"),
    (("restore", "MEMORY.md", "--from", "no-such-rev"), 2, "names no snapshot"),
    (("restore", "../outside.md"), 2, "is not a file of"),
    (("restore", "MEMORY.md", "redis.md", "--section", "X"), 2, "one section of one file"),
    (("restore", "MEMORY.md"), 3, "no earlier version"),
    (("restore", "MEMORY.md", "--section", "Nowhere"), 3, "no snapshot of MEMORY.md holds"),
    (("diff", "--cached"), 2, "a tracked folder has none"),
    (("diff", "HEAD~9"), 2, "names no commit"),
])
def test_bad_input_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Invoke,
                                   args: tuple[str, ...], code: int, words: str) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop")
    folder = laptop.claude_memory(project, {"MEMORY.md": MEMORY})
    monkeypatch.chdir(project)
    assert run_cli("track", "claude-code", "--no-hooks").exit_code == 0
    before = files_of(folder)
    ran = run_cli(*args)
    assert ran.exit_code == code, (ran.stdout, ran.stderr)
    assert words in ran.stderr and files_of(folder) == before
