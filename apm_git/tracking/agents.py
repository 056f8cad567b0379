"""What each agent's memory folder is: where it lives, which of its files are memory, which hook events
snapshot it, and how long a session with no end event counts as running (docs/tracking.md, "Agents").

Pure: the paths are computed from the values a caller read (the home folder, an environment variable,
a setting), never from the disk.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # the snapshot hook imports this module: the words are types here, not values
    from apm_git.model.vocabulary import SnapshotTrigger, TrackedAgent

WHOLE = "."  # the pathspec of a folder that is memory through and through


class Profile(NamedTuple):
    agent: TrackedAgent
    title: str  # as the README names it
    memory: tuple[str, ...]  # git pathspecs, relative to the folder, of what is memory
    events: Mapping[str, SnapshotTrigger]  # the agent's hook event -> the trigger of its snapshot
    open_hours: float  # a session with no hook event for this long no longer counts as running
    cap_file: str | None  # the file whose head the agent loads at session start (the loading cap)


CLAUDE_CODE = Profile(
    "claude-code", "Claude Code auto memory", (WHOLE,),
    {"SessionStart": "session-start", "PreCompact": "pre-compact", "PostCompact": "post-compact",
     "SessionEnd": "session-end"},
    12.0, "MEMORY.md",
)
# Codex has no session-end event: a session counts as running for an hour after its last event.
CODEX = Profile(
    "codex", "Codex memories", (WHOLE,),
    {"SessionStart": "session-start", "PreCompact": "pre-compact", "PostCompact": "post-compact"},
    1.0, None,
)
# An OpenClaw workspace also holds the agent's persona, tools and often code: only its memory is tracked.
OPENCLAW = Profile(
    "openclaw", "OpenClaw workspace", ("MEMORY.md", "memory.md", "memory", "DREAMS.md"),
    {"gateway:startup": "session-start", "agent:bootstrap": "session-start",
     "session:compact:before": "pre-compact", "session:compact:after": "post-compact",
     "command:new": "session-end", "command:reset": "session-end", "command:stop": "session-end",
     "session:auto-reset": "session-end"},
    12.0, None,
)
PROFILES: dict[TrackedAgent, Profile] = {profile.agent: profile for profile in (CLAUDE_CODE, CODEX, OPENCLAW)}
ENDING: frozenset[str] = frozenset({"session-end"})
STARTING: frozenset[str] = frozenset({"session-start"})

_UNSAFE_IN_SLUG = re.compile(r"[^A-Za-z0-9]")


def claude_slug(project: str) -> str:
    """The folder name Claude Code gives a project under `~/.claude/projects/`: its path with every
    character that is not an ASCII letter or digit replaced by `-` (`/home/me/shop` -> `-home-me-shop`)."""
    return _UNSAFE_IN_SLUG.sub("-", project)


def claude_base(home: str, config_dir: str | None) -> str:
    """Claude Code's folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    return config_dir or f"{home}/.claude"


def claude_folder(base: str, project: str, setting: str | None, home: str) -> str:
    """The auto memory folder of `project` (its git root, or the folder itself outside git): the
    `autoMemoryDirectory` setting when one is set, else `<base>/projects/<slug>/memory`."""
    if setting:
        return expand_home(setting, home)
    return f"{base}/projects/{claude_slug(project)}/memory"


def codex_folder(home: str, codex_home: str | None) -> str:
    """Codex's memories: `$CODEX_HOME/memories`, else `~/.codex/memories` (one for every project)."""
    return f"{codex_home or home + '/.codex'}/memories"


def openclaw_folder(home: str) -> str:
    """OpenClaw's default workspace."""
    return f"{home}/.openclaw/workspace"


def expand_home(path: str, home: str) -> str:
    return home + path[1:] if path == "~" or path.startswith("~/") else path


def trigger_of(profile: Profile, event: str | None) -> SnapshotTrigger | None:
    """The trigger a hook event of the agent stands for; None for an event that snapshots nothing."""
    return profile.events.get(event or "")
