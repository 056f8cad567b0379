from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from apm_git.commands.flush import flush
from apm_git.commands.journal import add
from apm_git.model import trailers
from apm_git.store.repo import MemoryRepo
from apm_git.store.scope import Scope
from tests.conftest import Invoke, git, run_apm


def head_trailers(root: Path) -> dict[str, str]:
    """HEAD's trailers but `Apm-Clone`, the clone's random id (test_flush_is_one_commit_… checks it)."""
    return {key: value for key, value in trailers.parse(git(root, "log", "-1", "--format=%B")) if key != "Apm-Clone"}


def test_flush_is_one_commit_with_trailers_and_state(repo: MemoryRepo, run_cli: Invoke) -> None:
    env = {"APM_GIT_NOW": "2026-04-06T14:30:00+00:00"}
    run_cli("--repo", str(repo.root), "journal", "add", "Use Redis", "--kind", "decision", env=env)
    ran = run_cli("--repo", str(repo.root), "flush", "--trigger", "pre-compact", "-m", "before compaction",
                  "--session", "s-1", env=env)
    assert ran.exit_code == 0, ran.stderr
    assert git(repo.root, "rev-list", "--count", "HEAD").strip() == "2"
    # The message is the subject (issue 23.6); the trigger, scope, session and file count are trailers.
    assert git(repo.root, "log", "-1", "--format=%s").strip() == "memory: flush: before compaction"
    assert head_trailers(repo.root) == {"Apm-Trigger": "pre-compact", "Apm-Scope": "all", "Apm-Session": "s-1",
                                        "Apm-Files": "3"}
    clone = (repo.git_dir / "apm-git" / "clone-id").read_text().split("\t")[0]
    assert trailers.parse(git(repo.root, "log", "-1", "--format=%B"))[-1] == ("Apm-Clone", clone)
    assert git(repo.root, "log", "-1", "--format=%cI").strip() == "2026-04-06T14:30:00+00:00"
    state = json.loads((repo.memory / "flush-state.json").read_text())
    assert state["main_session"]["last_flush_time"] == "2026-04-06T14:30:00+00:00"
    assert state["main_session"]["last_trigger"] == "pre-compact"
    assert state["groups"]["last_flush_time"] is None  # no group's files were flushed: its entries stay
    assert state["pending_items"] == []
    assert "2026-04-06" in (repo.memory / "INDEX.md").read_text()
    assert git(repo.root, "status", "--porcelain") == ""


def test_nothing_to_flush(repo: MemoryRepo, run_cli: Invoke) -> None:
    head = git(repo.root, "rev-parse", "HEAD")
    ran = run_cli("--repo", str(repo.root), "flush")
    assert ran.exit_code == 0 and "nothing to flush" in ran.stdout
    assert git(repo.root, "rev-parse", "HEAD") == head


def test_unrelated_staged_and_unstaged_work_is_left_alone(repo: MemoryRepo) -> None:
    (repo.root / "notes.txt").write_text("staged\n")
    git(repo.root, "add", "notes.txt")
    (repo.root / "notes.txt").write_text("staged\nand then edited\n")
    (repo.root / "scratch.txt").write_text("untracked\n")
    add(repo, "a lesson", kind="lesson")
    result = flush(repo)
    assert result.commit is not None
    committed = git(repo.root, "show", "--name-only", "--format=", "HEAD").split()
    assert "notes.txt" not in committed and "scratch.txt" not in committed
    assert git(repo.root, "diff", "--cached", "--name-only").split() == ["notes.txt"]
    assert git(repo.root, "show", ":notes.txt") == "staged\n"
    assert (repo.root / "notes.txt").read_text() == "staged\nand then edited\n"
    assert git(repo.root, "status", "--porcelain", "--", "scratch.txt").startswith("??")


def test_crlf_bom_file_with_a_malformed_record_is_committed_byte_identical(repo: MemoryRepo) -> None:
    data = (
        b"\xef\xbb\xbf# Lessons\r\n\r\n## [2026-13-45] broken date\r\n- Tags: lesson\r\n- Body: no fitness\r\n"
        b"## [2026-04-06] fine\r\n- Tags: lesson\r\n- Fitness: last_referenced=2026-04-06, hit_count=0, "
        b"decision_value=LOW\r\n- Body: ok"
    )
    (repo.memory / "lessons.md").write_bytes(data)
    flush(repo)
    assert (repo.memory / "lessons.md").read_bytes() == data
    assert git(repo.root, "cat-file", "blob", "HEAD:memory/lessons.md").encode() == data


def test_group_scope_auto_initializes_and_commits_only_the_group(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "group_names.json").write_text('{"room-42": "team-a"}\n')
    git(repo.root, "commit", "-qam", "map room")
    add(repo, "a DM lesson", kind="lesson")
    ran = run_cli("--repo", str(repo.root), "flush", "--room", "room-42")
    assert ran.exit_code == 0, ran.stderr
    assert "auto-initialized memory/groups/team-a.md" in ran.stdout
    committed = set(git(repo.root, "show", "--name-only", "--format=", "HEAD").split())
    assert "memory/groups/team-a.md" in committed and "memory/groups/team-a/attention.md" in committed
    assert not any(not (p.startswith("memory/groups/team-a") or p == "memory/flush-state.json") for p in committed)
    assert head_trailers(repo.root)["Apm-Scope"] == "group:team-a"
    state = json.loads((repo.memory / "flush-state.json").read_text())
    assert state["groups"]["team-a"]["last_flush_time"]
    assert "room-42" in (repo.memory / "groups/team-a.md").read_text()
    assert git(repo.root, "status", "--porcelain").split()[-1].endswith(".md")  # the DM journal waits


def test_auto_init_recreates_a_missing_dm_index_from_memory_md_without_overwriting(repo: MemoryRepo) -> None:
    git(repo.root, "rm", "-rq", "memory/main")
    git(repo.root, "commit", "-qm", "drop main")
    (repo.root / "MEMORY.md").write_text("Owner prefers tabs.\n")
    (repo.memory / "main").mkdir()
    (repo.memory / "main/attention.md").write_text("# mine\n")
    result = flush(repo, scope=Scope("main"))
    assert "memory/main/index.md" in result.created and "memory/main/longterm.md" in result.created
    assert "memory/main/attention.md" not in result.created
    assert (repo.memory / "main/attention.md").read_text() == "# mine\n"
    assert "Owner prefers tabs." in (repo.memory / "main/longterm.md").read_text()
    assert "MEMORY.md" not in git(repo.root, "show", "--name-only", "--format=", "HEAD")


def test_if_idle_waits_then_flushes_once(repo: MemoryRepo) -> None:
    add(repo, "fresh", kind="lesson")
    head = git(repo.root, "rev-parse", "HEAD")
    result = flush(repo, trigger="idle", if_idle=True)
    assert result.commit is None and result.skipped is not None and "not idle" in result.skipped
    assert git(repo.root, "rev-parse", "HEAD") == head
    old = time.time() - 31 * 60
    for path in repo.memory.rglob("*"):
        os.utime(path, (old, old))
    first = flush(repo, trigger="idle", if_idle=True)
    assert first.commit is not None
    second = flush(repo, trigger="idle", if_idle=True)
    assert second.commit is None and second.skipped == "nothing to flush"


PAYLOADS = {
    "pre-compact": {"session_id": "abc-123", "transcript_path": "/tmp/t.jsonl", "hook_event_name": "PreCompact",
                    "trigger": "auto", "custom_instructions": ""},
    "session-end": {"session_id": "abc-456", "transcript_path": "/tmp/t.jsonl", "hook_event_name": "SessionEnd",
                    "reason": "prompt_input_exit"},
}


@pytest.mark.parametrize("trigger", sorted(PAYLOADS))
def test_hook_input_maps_trigger_session_and_cwd(repo: MemoryRepo, tmp_path: Path, trigger: str) -> None:
    add(repo, "something learned", kind="lesson")
    payload = {**PAYLOADS[trigger], "cwd": str(repo.root / "memory")}
    ran = run_apm("flush", "--hook-input", "-", cwd=tmp_path, input=json.dumps(payload))
    assert ran.exit_code == 0, ran.stderr
    assert head_trailers(repo.root) == {
        "Apm-Trigger": trigger, "Apm-Scope": "all", "Apm-Session": str(PAYLOADS[trigger]["session_id"]),
    }


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["flush", "--hook-input", "-"], "{not json"),
        (["flush", "--hook-input", "-"], "[1, 2]"),
        (["flush", "--hook-input", "-", "--scope", "nonsense"], json.dumps({"hook_event_name": "PreCompact"})),
        (["flush", "--hook-input", "-", "--no-such-option"], "{}"),
        (["flush", "--hook-input", "-", "--scope", "group:../x"], "{}"),
    ],
)
def test_hook_input_never_exits_2(repo: MemoryRepo, args: list[str], stdin: str) -> None:
    ran = run_apm(*args, cwd=repo.root, input=stdin)
    assert ran.exit_code not in (0, 2), (ran.exit_code, ran.stderr)
    assert "Traceback" not in ran.stderr
    assert ran.stderr.strip()


def test_hook_input_outside_a_memory_repository_does_nothing(tmp_path: Path) -> None:
    """A user-wide hook in a folder no memory serves: exit 0, nothing printed (docs/agents.md)."""
    payload = json.dumps({**PAYLOADS["pre-compact"], "cwd": str(tmp_path)})
    ran = run_apm("flush", "--hook-input", "-", cwd=tmp_path, input=payload)
    assert (ran.exit_code, ran.stdout, ran.stderr) == (0, "", "")
    ran = run_apm("flush", "--hook-input", "-", cwd=tmp_path, input=payload, env={"APM_GIT_REPO": str(tmp_path)})
    assert ran.exit_code == 3 and f"APM_GIT_REPO names {tmp_path}" in ran.stderr
