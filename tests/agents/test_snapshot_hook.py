"""The snapshot hooks of tracked folders, run as the agents run them (`/bin/sh -c`, the real payloads on stdin,
the `apm-git-snapshot` entry): one snapshot per event that changed something, the folder byte-identical
after each, the loading cap and the withheld secrets told at session start, and never an exit 2."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from apm_git.agents.snapshot_hook import fast_args
from tests.conftest import Invoke
from tests.tracked_homes import (
    BIN,
    claude_payload,
    codex_payload,
    files_of,
    history,
    hook,
    machine,
    stamps_of,
    write_files,
)

MEMORY = "# Memory\n\n- [Redis](redis.md) — the session cache\n- Use pnpm, not npm\n"
AWS = "AKIA" + "Q7XK2M9PLD4RT6WZ"  # a made-up key of AWS's shape


def _tracked_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Invoke,
                    files: dict[str, str] | None = None) -> tuple[Path, Path, Path, Path]:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop", "git@github.com:me/shop.git")
    folder = laptop.claude_memory(project, files or {"MEMORY.md": MEMORY})
    monkeypatch.chdir(project)
    ran = run_cli("track", "claude-code", "--json")
    assert ran.exit_code == 0, ran.stderr
    return laptop.home, project, folder, Path(json.loads(ran.stdout)["tracked"]["history"])


def _triggers(git_dir: Path) -> list[str]:
    return history(git_dir, "log", "--format=%(trailers:key=Apm-Trigger,valueonly,separator=)").split()


@pytest.mark.slow
def test_a_snapshot_per_claude_code_event_that_changed_something(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 run_cli: Invoke) -> None:
    home, project, folder, git_dir = _tracked_claude(tmp_path, monkeypatch, run_cli)
    for number, event in enumerate(("SessionStart", "PreCompact", "PostCompact", "SessionEnd")):
        write_files(folder, {f"topic-{number}.md": f"# Topic {number}\n- fact {number}\n"})
        before, stamps = files_of(folder), stamps_of(folder)
        ran = hook("claude-code", claude_payload(event, project, home), cwd=project)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout == ""  # nothing to tell: SessionStart adds no context
        assert files_of(folder) == before and stamps_of(folder) == stamps
        quiet = hook("claude-code", claude_payload(event, project, home), cwd=project)  # nothing changed since
        assert quiet.returncode == 0 and quiet.stdout == ""
    assert _triggers(git_dir) == ["session-end", "post-compact", "pre-compact", "session-start", "track"]
    body = history(git_dir, "log", "-1", "--format=%B")
    assert "Apm-Session: s-1" in body and "Apm-Scope: claude-code" in body and "Apm-Origin: session" in body
    assert history(git_dir, "show", "HEAD:topic-3.md") == "# Topic 3\n- fact 3\n"
    prompt = hook("claude-code", claude_payload("UserPromptSubmit", project, home, prompt="hi"), cwd=project)
    assert prompt.returncode == 0 and len(_triggers(git_dir)) == 5


def test_the_transcript_finds_the_folder_when_the_session_runs_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Invoke,
) -> None:
    home, project, folder, git_dir = _tracked_claude(tmp_path, monkeypatch, run_cli)
    write_files(folder, {"MEMORY.md": MEMORY + "- one more\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    payload = claude_payload("PreCompact", project, home) | {"cwd": str(elsewhere)}
    assert hook("claude-code", payload, cwd=elsewhere).returncode == 0
    assert _triggers(git_dir)[0] == "pre-compact"


def test_the_loading_cap_is_told_at_session_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  run_cli: Invoke) -> None:
    long = "# Memory\n" + "".join(f"- [Topic {n}](topic-{n}.md)\n" for n in range(195)) + "## Deploy\n" \
        + "- make deploy\n" * 10 + "## People\n- Ana reviews the cache code\n"
    home, project, _, git_dir = _tracked_claude(tmp_path, monkeypatch, run_cli, {"MEMORY.md": long})
    assert "apm-load-cap" in history(git_dir, "log", "-1", "--format=%B")  # the check at the track snapshot
    ran = hook("claude-code", claude_payload("SessionStart", project, home), cwd=project)
    assert ran.returncode == 0, ran.stderr
    answer = json.loads(ran.stdout)
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "lines 201-209 do not load" in context and "'## People' (line 208)" in context
    assert "part of '## Deploy'" in context and "MEMORY.md is over the loading cap" in answer["systemMessage"]
    status = run_cli("status", "--json")
    assert json.loads(status.stdout)["cap"]["over"] is True
    assert [cut["heading"] for cut in json.loads(status.stdout)["cap"]["cut"]] == ["## Deploy", "## People"]


def test_the_limits_of_the_loading_cap_are_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    run_cli: Invoke) -> None:
    index = "# Memory\n" + "".join(f"- [Topic {n}](topic-{n}.md)\n" for n in range(8)) + "## Deploy\n- make deploy\n"
    home, project, folder, git_dir = _tracked_claude(tmp_path, monkeypatch, run_cli, {"MEMORY.md": index})
    assert json.loads(run_cli("status", "--json").stdout)["cap"]["over"] is False  # 11 lines: under 200

    assert run_cli("track", "claude-code", "--cap-lines", "9").exit_code == 0
    cap = json.loads(run_cli("status", "--json").stdout)["cap"]
    assert (cap["max_lines"], cap["max_bytes"], cap["over"]) == (9, 25_000, True)
    assert [cut["heading"] for cut in cap["cut"]] == ["## Deploy"]
    write_files(folder, {"MEMORY.md": index + "- and the cache\n"})
    ran = hook("claude-code", claude_payload("SessionStart", project, home), cwd=project)
    assert "lines 10-12 do not load" in json.loads(ran.stdout)["systemMessage"]
    assert "Apm-Finding: MEMORY.md:10: apm-load-cap:" in history(git_dir, "log", "-1", "--format=%B")

    assert run_cli("track", "claude-code", "--cap-bytes", "100").exit_code == 0  # the line limit stays
    cap = json.loads(run_cli("status", "--json").stdout)["cap"]
    assert (cap["max_lines"], cap["max_bytes"], cap["loaded_lines"]) == (9, 100, 4)
    assert run_cli("track", "claude-code", "--cap-lines", "0").exit_code == 2


@pytest.mark.slow
def test_a_suspected_secret_is_withheld_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 run_cli: Invoke) -> None:
    home, project, folder, git_dir = _tracked_claude(tmp_path, monkeypatch, run_cli)
    write_files(folder, {"aws.md": f"# AWS\n- the deploy key is {AWS}\n", "ok.md": "# Fine\n- nothing here\n"})
    ran = hook("claude-code", claude_payload("PreCompact", project, home), cwd=project)
    assert ran.returncode == 1 and ran.stdout == ""  # the host shows stderr for a non-zero exit (never 2)
    assert "aws.md:2 is not in apm-git's history" in ran.stderr and AWS not in ran.stderr
    tree = history(git_dir, "ls-tree", "--name-only", "HEAD").split()
    assert "ok.md" in tree and "aws.md" not in tree
    assert "Apm-Withheld: aws.md (looks like a credential" in history(git_dir, "log", "-1", "--format=%B")
    start = hook("claude-code", claude_payload("SessionStart", project, home, session="s-2"), cwd=project)
    assert "aws.md:2" in json.loads(start.stdout)["systemMessage"]
    status = run_cli("status")
    assert "WITHHELD: aws.md:2" in status.stdout
    assert AWS not in history(git_dir, "log", "--all", "-p")

    allowed = run_cli("snapshot", "--allow-secret", "aws.md:2")
    assert allowed.exit_code == 0, allowed.stderr
    assert "aws.md" in history(git_dir, "ls-tree", "--name-only", "HEAD").split()
    assert run_cli("snapshot", "--allow-secret", "ok.md:2").exit_code == 2


def test_a_project_that_is_not_tracked_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "other")
    ran = hook("claude-code", claude_payload("SessionEnd", project, laptop.home), cwd=project)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
    assert not laptop.data.exists()


@pytest.mark.parametrize(("stdin", "words"), [("", "the hook input is empty"), ("[1]", "must be a JSON object"),
                                              ("{oops", "not valid JSON")])
def test_a_bad_payload_is_one_line_and_never_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    stdin: str, words: str) -> None:
    machine(tmp_path, monkeypatch)
    ran = subprocess.run((str(BIN / "apm-git-snapshot"), "--agent", "claude-code", "--hook-input", "-"), input=stdin,
                         text=True, capture_output=True, cwd=tmp_path, check=False)
    assert ran.returncode == 1 and words in ran.stderr and len(ran.stderr.splitlines()) == 1


def test_a_folder_gone_is_one_line_and_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              run_cli: Invoke) -> None:
    home, project, folder, _ = _tracked_claude(tmp_path, monkeypatch, run_cli)
    shutil.rmtree(folder)
    ran = hook("claude-code", claude_payload("SessionEnd", project, home), cwd=project)
    assert ran.returncode == 1 and "is gone" in ran.stderr and "apm-git untrack" in ran.stderr


def test_the_light_entry_and_the_command_line_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    run_cli: Invoke) -> None:
    home, project, folder, git_dir = _tracked_claude(tmp_path, monkeypatch, run_cli)
    write_files(folder, {"MEMORY.md": MEMORY + "- by the full command line\n"})
    payload = json.dumps(claude_payload("PreCompact", project, home))
    ran = run_cli("snapshot", "--agent", "claude-code", "--hook-input", "-", input=payload)
    assert ran.exit_code == 0 and ran.stdout == ""
    assert _triggers(git_dir)[0] == "pre-compact"
    assert fast_args(["--agent", "codex", "--hook-input", "-"]) == ("codex", None)
    assert fast_args(["--agent", "openclaw", "--folder", "/w", "--hook-input", "-"]) == ("openclaw", Path("/w"))
    assert fast_args(["--all", "--trigger", "timer"]) is None  # the full command line answers it
    via = subprocess.run((str(BIN / "apm-git-snapshot"), "--all", "--trigger", "timer"), capture_output=True,
                         text=True, cwd=tmp_path, check=False)
    assert via.returncode == 0 and "nothing changed" in via.stdout


@pytest.mark.slow
def test_codex_payloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    folder = laptop.codex_memories({"MEMORY.md": "# Memories\n- prefers uv\n"})
    monkeypatch.chdir(tmp_path)
    git_dir = Path(json.loads(run_cli("track", "codex", "--json").stdout)["tracked"]["history"])
    project = laptop.project(tmp_path / "anything")
    for event in ("SessionStart", "PreCompact", "PostCompact"):
        write_files(folder, {"raw_memories.md": f"- {event}\n"})
        ran = hook("codex", codex_payload(event, project), cwd=project)
        assert ran.returncode == 0 and ran.stdout == "", ran.stderr
    assert _triggers(git_dir) == ["post-compact", "pre-compact", "session-start", "track"]


NODE = shutil.which("node")
RUNNER = "import handler from %s;\nhandler(%s);\n"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_openclaw_pack_snapshots_around_compaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    workspace = write_files(tmp_path / "clawd", {"MEMORY.md": "# Memory\n- Ana likes tea\n",
                                                 "memory/2026-05-01.md": "# 2026-05-01\n- shipped\n"})
    monkeypatch.chdir(tmp_path)
    out = json.loads(run_cli("track", "openclaw", str(workspace), "--json").stdout)
    pack = laptop.home / ".openclaw" / "hooks" / "apm-git-snapshot"
    assert out["hooks"][0]["path"] == str(pack) and (pack / "handler.js").is_file() and (pack / "HOOK.md").is_file()
    git_dir = Path(out["tracked"]["history"])
    write_files(workspace, {"memory/2026-05-02.md": "# 2026-05-02\n- compacted\n"})
    script = tmp_path / "run.mjs"
    event = {"type": "session", "action": "compact:before", "sessionKey": "agent:main:main",
             "context": {"workspaceDir": str(workspace)}}
    script.write_text(RUNNER % (json.dumps((pack / "handler.js").as_uri()), json.dumps(event)))
    env = {**os.environ, "APM_GIT_SNAPSHOT_BIN": str(BIN / "apm-git-snapshot")}
    ran = subprocess.run((str(NODE), str(script)), capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert ran.returncode == 0 and "failed" not in ran.stderr, ran.stderr
    assert _triggers(git_dir)[0] == "pre-compact"
    assert "Apm-Session: agent:main:main" in history(git_dir, "log", "-1", "--format=%B")
