"""Machines for the tests of tracked folders: a fake HOME each (with the agents' own folders laid out as the
agents make them), apm-git's data home under it, and the real `apm-git-snapshot` hook entry to run."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.tracking.agents import claude_slug

BIN = Path(sys.executable).parent
GITCONFIG = "[user]\n\tname = Test Agent\n\temail = agent@example.invalid\n[init]\n\tdefaultBranch = main\n"


@dataclasses.dataclass
class Machine:
    """One machine: its HOME, and the project whose memory its agents write."""

    home: Path
    monkeypatch: pytest.MonkeyPatch

    def use(self) -> Machine:
        """Make this machine's HOME the current one (for the commands run in this process and their children)."""
        self.monkeypatch.setenv("HOME", str(self.home))
        for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
            self.monkeypatch.delenv(name, raising=False)
        return self

    @property
    def data(self) -> Path:
        return self.home / ".local" / "share" / "apm-git" / "tracked"

    def project(self, path: Path, remote: str | None = None) -> Path:
        """A git repository at `path` (with `remote` as origin): a project an agent works in."""
        path.mkdir(parents=True, exist_ok=True)
        run_git(path, "init", "--quiet")
        if remote:
            run_git(path, "remote", "add", "origin", remote)
        return path

    def claude_memory(self, project: Path, files: dict[str, str]) -> Path:
        """`~/.claude/projects/<slug>/memory/` of `project`, holding `files`, as Claude Code lays it out."""
        folder = self.home / ".claude" / "projects" / claude_slug(str(project)) / "memory"
        return write_files(folder, files)

    def codex_memories(self, files: dict[str, str]) -> Path:
        """`~/.codex/memories/` holding `files`, with Codex's own git baseline (one commit, no remote)."""
        folder = write_files(self.home / ".codex" / "memories", files)
        run_git(folder, "init", "--quiet")
        run_git(folder, "add", "-A")
        run_git(folder, "commit", "--quiet", "-m", "baseline")
        return folder


def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str = "laptop") -> Machine:
    home = tmp_path / name / "home"
    home.mkdir(parents=True)
    (home / ".gitconfig").write_text(GITCONFIG, encoding="utf-8")
    return Machine(home, monkeypatch).use()


def write_files(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def run_git(root: Path, *args: str) -> str:
    proc = subprocess.run(("git", *args), cwd=root, capture_output=True, check=False)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr.decode()}"
    return proc.stdout.decode("utf-8", "replace")


def history(git_dir: Path, *args: str) -> str:
    """git on a tracked folder's history (its git dir under the data home)."""
    return run_git(git_dir.parent, f"--git-dir={git_dir}", *args)


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (`.git` left out) and its bytes: what 'byte-identical' compares."""
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and ".git" not in rel.parts:
            found[rel.as_posix()] = path.read_bytes()
    return found


def stamps_of(folder: Path) -> dict[str, tuple[int, int]]:
    """Every entry under `folder` (`.git` included) with its modification time and size."""
    return {path.relative_to(folder).as_posix(): (path.lstat().st_mtime_ns, path.lstat().st_size)
            for path in sorted(folder.rglob("*"))}


def hook(agent: str, payload: dict[str, object], *, cwd: Path,
         folder: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The snapshot hook as the agent runs it: `/bin/sh -c COMMAND`, the payload on stdin."""
    command = f"{BIN / 'apm-git-snapshot'} --agent {agent}" + (f" --folder '{folder}'" if folder else "") \
        + " --hook-input -"
    return subprocess.run(("/bin/sh", "-c", command), input=json.dumps(payload), text=True, capture_output=True,
                          cwd=cwd, env=os.environ.copy(), check=False)


def claude_payload(event: str, project: Path, home: Path, session: str = "s-1", **extra: str) -> dict[str, object]:
    """A payload as Claude Code pipes it to a hook (the fields of its hooks reference)."""
    transcript = home / ".claude" / "projects" / claude_slug(str(project)) / f"{session}.jsonl"
    payload: dict[str, object] = {"session_id": session, "transcript_path": str(transcript), "cwd": str(project),
                                  "hook_event_name": event}
    payload.update({"SessionStart": {"source": "startup"}, "PreCompact": {"trigger": "auto", "custom_instructions": ""},
                    "PostCompact": {"trigger": "auto"}, "SessionEnd": {"reason": "exit"}}.get(event, {}))
    payload.update(extra)
    return payload


def codex_payload(event: str, project: Path, session: str = "c-1") -> dict[str, object]:
    """A payload as Codex pipes it to a hook: session, turn, transcript, cwd, event, model, and trigger or source."""
    payload: dict[str, object] = {"session_id": session, "turn_id": "t-1", "transcript_path": None,
                                  "cwd": str(project), "hook_event_name": event, "model": "gpt-5-codex"}
    payload.update({"SessionStart": {"source": "startup"}, "PreCompact": {"trigger": "auto"},
                    "PostCompact": {"trigger": "auto"}}.get(event, {}))
    return payload
