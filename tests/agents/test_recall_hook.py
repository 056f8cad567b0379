"""`apm-git-recall`, the UserPromptSubmit hook's light entry, against `apm-git recall` itself.

Both run as Claude Code runs a hook (a separate process, the payload's bytes on stdin) on the same
memory repository; stdout, stderr and the exit code must be the same bytes, for matches, misses and
every error the hook can meet.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.agents.claude_settings import MARK, Settings, commands
from apm_git.commands.init import init
from apm_git.commands.journal import add
from apm_git.store import tokens
from apm_git.store.repo import MemoryRepo, open_repo
from tests.conftest import BIN, run_apm

FAST = str(Path(BIN) / "apm-git-recall")
FULL = str(Path(BIN) / "apm-git")
MATCH = "why does the redis tunnel fail on staging?"


@pytest.fixture
def memory(tmp_path: Path) -> MemoryRepo:
    init(tmp_path / "memory", install=False)
    repo = open_repo(tmp_path / "memory")
    add(repo, "the staging proxy needs NO_PROXY=localhost for the redis tunnel", kind="tool",
        title="Staging proxy redis tunnel")
    add(repo, "배포 전에 레디스 터널 설정을 확인한다", kind="lesson", title="레디스 터널 배포 확인")
    return repo


def run(args: list[str], stdin: bytes, cwd: Path, **env: str) -> tuple[int, bytes, bytes]:
    proc = subprocess.run(args, input=stdin, cwd=cwd, capture_output=True, check=False,
                          env={**os.environ, **env})
    return proc.returncode, proc.stdout, proc.stderr


def both(repo: Path | None, stdin: bytes, cwd: Path, **env: str) -> tuple[tuple[int, bytes, bytes], ...]:
    """The light entry as installed, then `apm-git recall`, on the same stdin."""
    lead = ["--repo", str(repo)] if repo is not None else []
    fast = run([FAST, *lead, "--hook-input", "-"], stdin, cwd, **env)
    full = run([FULL, *lead, "recall", "--hook-input", "-"], stdin, cwd, **env)
    return fast, full


def payload(cwd: Path, **fields: object) -> bytes:
    return json.dumps({"session_id": "s-1", "hook_event_name": "UserPromptSubmit", "cwd": str(cwd),
                       "transcript_path": "", **fields}, ensure_ascii=False).encode()


def cases(cwd: Path) -> dict[str, bytes]:
    return {
        "match": payload(cwd, prompt=MATCH),
        "match in Korean": payload(cwd, prompt="레디스 터널 배포"),
        "no match": payload(cwd, prompt="rename the kubernetes helm chart"),
        "no words": payload(cwd, prompt="?"),
        "no prompt": payload(cwd),
        "empty stdin": b"",
        "not JSON": b"{not json",
        "not JSON, CRLF": b'{\r\n  "prompt": "x",\r\n  oops}',
        "not JSON, CR": b'{\r  "prompt": "x",\r  oops}',  # line 3 once \r reads as a newline, else line 1
        "not an object": b"[1, 2]",
        "not UTF-8": b'{"prompt": "caf\xe9 redis tunnel"}',
        "nested too deep": b"[" * 200,
        "escape codes in cwd": payload(cwd / "\x1b[31mred", prompt=MATCH),
    }


def assert_same(name: str, fast: tuple[int, bytes, bytes], full: tuple[int, bytes, bytes]) -> None:
    assert fast == full, name
    assert fast[0] in (0, 1, 3), name  # never 2 under a hook
    assert len(fast[2].splitlines()) <= 1, name  # an error is one line


@pytest.mark.slow
def test_same_bytes_with_the_memory_named(memory: MemoryRepo, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name, stdin in cases(project).items():
        assert_same(name, *both(memory.root, stdin, project))
    fast, _ = both(memory.root, cases(project)["match"], project)
    assert b"NO_PROXY=localhost" in fast[1]
    fast, _ = both(memory.root, cases(project)["no match"], project)
    assert fast == (0, b"", b"")
    fast, _ = both(memory.root, cases(project)["not UTF-8"], project)
    assert fast[0] == 3 and b"not valid UTF-8" in fast[2]


@pytest.mark.slow
def test_same_bytes_with_the_memory_found_from_the_payload(memory: MemoryRepo, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name, stdin in {**cases(memory.root), "project without apm.yaml": payload(project, prompt=MATCH),
                        "cwd missing": payload(tmp_path / "gone", prompt=MATCH)}.items():
        assert_same(name, *both(None, stdin, project))
    fast, _ = both(None, payload(project, prompt=MATCH), project)
    assert fast == (0, b"", b""), "a folder no memory serves: the hook does nothing and says nothing"
    assert both(None, cases(tmp_path / "gone")["escape codes in cwd"], project)[0] == (0, b"", b"")
    wrong = both(None, payload(project, prompt=MATCH), project, APM_GIT_REPO=str(tmp_path / "\x1b[31mred"))
    assert_same("APM_GIT_REPO wrong", *wrong)
    fast = wrong[0]
    assert fast[0] == 3 and b"\x1b" not in fast[2] and b"APM_GIT_REPO names" in fast[2]
    assert b"red, which does not exist" in fast[2] and b"set APM_GIT_REPO to" in fast[2]
    env_repo = both(None, payload(project, prompt=MATCH), project, APM_GIT_REPO=str(memory.root))
    assert_same("APM_GIT_REPO", *env_repo)
    assert b"NO_PROXY=localhost" in env_repo[0][1]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["not JSON, CR", "not UTF-8", "match in Korean"])
def test_same_bytes_when_stdin_is_already_strict_utf8(memory: MemoryRepo, tmp_path: Path, name: str) -> None:
    # PYTHONIOENCODING=utf-8 gives a strict UTF-8 stdin, which click reads as it is (no newline translation)
    assert_same(name, *both(memory.root, cases(tmp_path)[name], tmp_path, PYTHONIOENCODING="utf-8"))


@pytest.mark.slow
def test_same_bytes_whichever_counted_first(memory: MemoryRepo, tmp_path: Path) -> None:
    cache = memory.state_dir / tokens.CACHE_FILE
    stdin = payload(tmp_path, prompt=MATCH)
    fast_cold = run([FAST, "--repo", str(memory.root), "--hook-input", "-"], stdin, tmp_path)
    assert cache.is_file()  # the counts are kept for the next prompt
    full_warm = run([FULL, "--repo", str(memory.root), "recall", "--hook-input", "-"], stdin, tmp_path)
    cache.unlink()
    full_cold = run([FULL, "--repo", str(memory.root), "recall", "--hook-input", "-"], stdin, tmp_path)
    fast_warm = run([FAST, "--repo", str(memory.root), "--hook-input", "-"], stdin, tmp_path)
    assert fast_cold == full_warm == full_cold == fast_warm
    assert b"NO_PROXY=localhost" in fast_cold[1]


@pytest.mark.parametrize("args", [
    [MATCH], ["--json", "--hook-input", "-"], ["--budget", "0", "--hook-input", "-"],
    ["--format", "markdown", "--hook-input", "-"], ["--hook-input", "missing.json"], ["--help"], [],
])
def test_every_other_form_is_apm_git_recall(memory: MemoryRepo, args: list[str]) -> None:
    stdin = payload(memory.root, prompt=MATCH)
    fast = run([FAST, "--repo", str(memory.root), *args], stdin, memory.root)
    full = run([FULL, "--repo", str(memory.root), "recall", *args], stdin, memory.root)
    assert fast == full
    assert fast[0] != 2 or "--hook-input" not in args


@pytest.mark.slow
def test_the_hook_path_imports_neither_click_nor_tiktoken_once_counted(memory: MemoryRepo, tmp_path: Path) -> None:
    """Nor git's gateway and subprocess (the hook runs no git), the secret check's rules (the recalled text holds
    no suspect) or shutil."""
    stdin = payload(tmp_path, prompt=MATCH)
    assert run([FAST, "--repo", str(memory.root), "--hook-input", "-"], stdin, tmp_path)[0] == 0  # counts cached
    probe = ("import sys\nfrom apm_git.agents.recall_hook import main\ncode = main(sys.argv[1:])\n"
             "print(sorted(name for name in ('click', 'tiktoken', 'subprocess', 'apm_git.git', "
             "'apm_git.checks.no_secrets', 'shutil') if name in sys.modules), code, file=sys.stderr)")
    code, out, err = run([sys.executable, "-c", probe, "--repo", str(memory.root), "--hook-input", "-"], stdin,
                         tmp_path)
    assert code == 0 and b"NO_PROXY=localhost" in out
    assert err.decode().strip() == "[] 0"


@pytest.mark.slow
def test_install_writes_the_light_entry_and_updates_only_its_own(memory: MemoryRepo, tmp_path: Path) -> None:
    project = tmp_path / "project"
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    old = f"apm-git --repo {memory.root} recall --hook-input -"  # what an older apm-git wrote, unmarked
    original = json.dumps({"hooks": {"UserPromptSubmit": [
        {"matcher": "", "hooks": [{"type": "command", "command": old}]}]}}, indent=2) + "\n"
    path.write_text(original)
    ran = run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), "--recall", cwd=project)
    assert ran.exit_code == 0, ran.stderr
    assert f"UserPromptSubmit already runs your own `{old}`" in ran.stderr  # left as it is, nothing beside it
    settings = Settings.read(path)
    assert "UserPromptSubmit" not in settings.installed()
    assert [hook.command for hook in settings.hooks() if hook.event == "UserPromptSubmit"] == [old]
    status = run_apm("hooks", "status", cwd=project)
    assert f"---- UserPromptSubmit: {old}" in status.stdout and "your own hook" in status.stdout, status.stdout
    assert run_apm("hooks", "uninstall", "claude-code", cwd=project).exit_code == 0
    assert path.read_text() == original

    # A hook of apm-git's own (marked) in an older form is brought up to date in place, and taken out later.
    marked = old + MARK
    path.write_text(original.replace(old, marked))
    ran = run_apm("hooks", "install", "claude-code", "--memory", str(memory.root), "--recall", cwd=project)
    assert ran.exit_code == 0, ran.stderr
    installed = Settings.read(path).installed()
    assert installed["UserPromptSubmit"] == [f"apm-git-recall --repo {memory.root} --hook-input -{MARK}"]
    assert installed["UserPromptSubmit"] == [commands(memory.root, recall=True)["UserPromptSubmit"]]
    status = run_apm("hooks", "status", cwd=project)
    assert status.exit_code == 0, status.stdout
    assert "PASS UserPromptSubmit: apm-git-recall" in status.stdout
    assert run_apm("hooks", "uninstall", "claude-code", cwd=project).exit_code == 0
    assert not path.exists()  # it held apm-git's hooks alone, written exactly as install writes a new file
