"""`apm-git audit` on transcript fixtures: a compaction that was flushed, one that was not, session ends.

The flushes are real: the installed-style hook commands run as subprocesses with real payloads, at
moved clocks (APM_GIT_NOW), so their commits carry the times the audit compares.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.commands.journal import add
from apm_git.store.repo import MemoryRepo
from tests.conftest import run_apm

DAY = "2026-03-10"


def stamp(clock: str) -> str:
    return f"{DAY}T{clock}+00:00"


def record(session: str, clock: str, **fields: object) -> str:
    return json.dumps({"sessionId": session, "timestamp": f"{DAY}T{clock}.000Z", "uuid": clock, **fields})


def transcript(folder: Path, session: str, lines: list[str]) -> Path:
    path = folder / "-home-me-shop" / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def boundary(session: str, clock: str) -> list[str]:
    return [
        record(session, clock, type="system", subtype="compact_boundary", content="Conversation compacted",
               compactMetadata={"trigger": "auto", "preTokens": 155000}),
        record(session, clock, type="user", isCompactSummary=True,
               message={"role": "user", "content": "This session is being continued…"}),
    ]


def hook_flush(repo: MemoryRepo, event: str, session: str, clock: str, note: str | None = None) -> None:
    if note:
        add(repo, note, kind="context")
    payload = {"session_id": session, "hook_event_name": event, "cwd": str(repo.root),
               "transcript_path": "", "trigger": "auto"}
    ran = run_apm("flush", "--hook-input", "-", cwd=repo.root, input=json.dumps(payload),
                  env={"APM_GIT_NOW": stamp(clock)})
    assert ran.exit_code == 0, ran.stderr


@pytest.mark.slow
def test_audit_finds_the_unflushed_compaction_and_session_end(repo: MemoryRepo, tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    hook_flush(repo, "PreCompact", "sess-a", "10:00:00", note="first batch")
    hook_flush(repo, "PreCompact", "sess-a", "11:59:00")  # nothing to flush: noted, no commit
    hook_flush(repo, "SessionEnd", "sess-b", "15:00:00", note="b is done")
    transcript(projects, "sess-a", [
        record("sess-a", "09:00:00", type="user", message={"role": "user", "content": "hi"}),
        *boundary("sess-a", "10:00:05"),  # flushed at 10:00:00
        *boundary("sess-a", "12:00:00"),  # flushed (clean) at 11:59:00
        *boundary("sess-a", "13:00:00"),  # no flush since 12:00: MISSING
        record("sess-a", "13:30:00", type="assistant", message={"role": "assistant", "content": "bye"}),
    ])  # ends at 13:30 with no flush after: MISSING
    transcript(projects, "sess-b", [
        record("sess-b", "14:00:00", type="user", message={"role": "user", "content": "hi"}),
        record("sess-b", "14:59:00", type="assistant", message={"role": "assistant", "content": "ok"}),
    ])  # ended, flushed at 15:00
    ran = run_apm("--json", "audit", str(projects), cwd=repo.root, env={"APM_GIT_NOW": f"{DAY}T20:00:00+00:00"})
    assert ran.exit_code == 1, ran.stderr
    result = json.loads(ran.stdout)
    covered = [item["flushed_by"] is not None for item in result["compactions"]]
    assert covered == [True, True, False]
    assert result["compactions"][1]["flushed_by"].startswith("clean flush at")
    ends = {item["session"]: item["flushed_by"] is not None for item in result["session_ends"]}
    assert ends == {"sess-a": False, "sess-b": True}
    assert result["missing"] == 2

    text = run_apm("audit", str(projects), cwd=repo.root, env={"APM_GIT_NOW": f"{DAY}T20:00:00+00:00"})
    assert text.stdout.count("MISSING") == 2
    status = run_apm("status", cwd=repo.root)
    assert f"Last compaction audited: {DAY}T13:00:00+00:00 (session sess-a), NOT flushed" in status.stdout


@pytest.mark.slow
def test_audit_all_flushed_exits_0_and_a_running_session_is_not_judged(repo: MemoryRepo, tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    hook_flush(repo, "PreCompact", "sess-c", "10:00:00", note="c before compaction")
    transcript(projects, "sess-c", [
        record("sess-c", "09:00:00", type="user", message={"role": "user", "content": "hi"}),
        *boundary("sess-c", "10:00:01"),
        record("sess-c", "10:05:00", type="assistant", message={"role": "assistant", "content": "still here"}),
    ])
    ran = run_apm("audit", str(projects), cwd=repo.root, env={"APM_GIT_NOW": f"{DAY}T10:10:00+00:00"})
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert "running session sess-c: not judged yet" in ran.stdout
    assert "every one flushed" in ran.stdout


def test_audit_of_a_missing_folder_is_one_line_exit_3(repo: MemoryRepo, tmp_path: Path) -> None:
    ran = run_apm("audit", str(tmp_path / "nope"), cwd=repo.root)
    assert ran.exit_code == 3
    assert len(ran.stderr.strip().splitlines()) == 1


def test_a_torn_transcript_line_is_skipped(repo: MemoryRepo, tmp_path: Path) -> None:
    path = transcript(tmp_path, "sess-d", [*boundary("sess-d", "10:00:00"), '{"sessionId": "sess-d", "timest'])
    ran = run_apm("--json", "audit", str(path), cwd=repo.root, env={"APM_GIT_NOW": f"{DAY}T20:00:00+00:00"})
    assert ran.exit_code == 1
    assert len(json.loads(ran.stdout)["compactions"]) == 1
