"""Wiring the snapshots of tracked folders into their agents' hooks (docs/tracking.md, "Snapshots").

- Claude Code: `SessionStart`, `PreCompact`, `PostCompact` and `SessionEnd` hooks in the user's settings
  (`~/.claude/settings.json`, or under `$CLAUDE_CONFIG_DIR`), one for every project: each finds the
  tracked folder of its session's project.
- Codex: `SessionStart`, `PreCompact` and `PostCompact` in `~/.codex/hooks.json` (or under `$CODEX_HOME`),
  a file of the same shape.
- OpenClaw: the hook pack `apm-git-snapshot` (this package's `openclaw_snapshot/`) copied to
  `~/.openclaw/hooks/`; OpenClaw asks the user to enable it (`openclaw hooks enable apm-git-snapshot`).

Each hook runs `apm-git-snapshot --agent AGENT --hook-input -` and ends with its own mark (`MARK`, a shell
comment), so the settings editor of apm_git/agents/claude_settings.py (text edits, every other byte kept)
manages these apart from apm-git's other hooks (load, flush, recall, marked `# apm-git hooks install`) and
from the user's own: installing and removing these changes nothing else.
"""
from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from apm_git.agents.claude_settings import HOOK_FLAG, Settings
from apm_git.errors import BadSettings, OsFailure
from apm_git.model.vocabulary import TrackedAgent
from apm_git.store.tracked import Tracked
from apm_git.tracking.agents import PROFILES, claude_base

PROGRAM = "apm-git-snapshot"
MARK = "  # apm-git track"  # ends every snapshot hook command: what makes a hook one of these
PACK = "apm-git-snapshot"
PACK_SOURCE = Path(__file__).resolve().parent / "openclaw_snapshot"


def program() -> str:
    """The entry's name when the hooks' PATH finds it, else its full path (beside this Python)."""
    if shutil.which(PROGRAM):
        return PROGRAM
    beside = Path(sys.executable).parent / PROGRAM
    return str(beside) if beside.is_file() else PROGRAM


def command(agent: TrackedAgent) -> str:
    return f"{shlex.quote(program())} --agent {agent} {HOOK_FLAG} -{MARK}"


def read(path: Path) -> Settings:
    """A settings (or hooks) file, for the snapshot hooks' edits."""
    return Settings.read(path, mark=MARK, verbs={})


def settings_file(agent: TrackedAgent) -> Path | None:
    """The JSON file holding the agent's hooks; None for OpenClaw (a hook pack)."""
    home = str(Path.home())
    if agent == "claude-code":
        return Path(claude_base(home, os.environ.get("CLAUDE_CONFIG_DIR"))) / "settings.json"
    if agent == "codex":
        return Path(os.environ.get("CODEX_HOME") or f"{home}/.codex") / "hooks.json"
    return None


def pack_folder() -> Path:
    return Path.home() / ".openclaw" / "hooks" / PACK


def install(tracked: Tracked) -> list[dict[str, Any]]:
    """Wire the snapshot hooks of `tracked`'s agent (once per agent: a second run changes nothing)."""
    agent = tracked.agent
    path = settings_file(agent)
    if path is None:
        return [_copy_pack()]
    wanted = {event: command(agent) for event in PROFILES[agent].events}
    try:
        settings = read(path)
        added, _ = settings.install(wanted)
        written = settings.save()
    except BadSettings as error:
        return [_item(agent, path, [], False, f"NOT wired: {error}")]
    what = (f"{', '.join(added)} hook(s) added to {path}" if written
            else f"the snapshot hooks are in {path} already")
    return [_item(agent, path, added, written, what)]


def uninstall(agent: TrackedAgent) -> list[dict[str, Any]]:
    """Take the agent's snapshot hooks out (nothing else): when no folder of the agent is tracked any more."""
    path = settings_file(agent)
    if path is None:
        folder = pack_folder()
        if not (folder / "handler.js").is_file():
            return []
        shutil.rmtree(folder)
        return [_item(agent, folder, [], True, f"removed the hook pack {folder}")]
    try:
        settings = read(path)
        if settings.original is None:
            return []
        removed = settings.uninstall()
        written = settings.save()
    except BadSettings as error:
        return [_item(agent, path, [], False, f"left as it is: {error}")]
    return [_item(agent, path, removed, written, f"{', '.join(removed)} snapshot hook(s) removed from {path}")] \
        if removed else []


def _copy_pack() -> dict[str, Any]:
    folder = pack_folder()
    written = False
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for source in sorted(PACK_SOURCE.iterdir()):
            if source.suffix not in (".md", ".js", ".json"):
                continue
            target = folder / source.name
            data = source.read_bytes()
            if not target.is_file() or target.read_bytes() != data:
                target.write_bytes(data)
                written = True
    except OSError as error:
        raise OsFailure.of(error, folder) from None
    what = (f"hook pack copied to {folder}; enable it with `openclaw hooks enable {PACK}`" if written
            else f"the hook pack is in {folder} already (`openclaw hooks enable {PACK}` enables it)")
    return _item("openclaw", folder, list(PROFILES["openclaw"].events), written, what)


def _item(agent: str, path: Path, events: list[str], written: bool, what: str) -> dict[str, Any]:
    return {"agent": agent, "path": str(path), "events": events, "written": written, "what": what}
