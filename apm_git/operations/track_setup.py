"""Where an agent's memory folder is, and starting (or resuming) its history apart from it
(docs/tracking.md, "Agents" and "Where the history lives").

The folder is found as the agent finds it: Claude Code's from the project's git root (every worktree
of a repository shares one) and its `autoMemoryDirectory` setting, Codex's from `$CODEX_HOME`,
OpenClaw's as the workspace.  Nothing is written into the folder: the git dir, its settings, its
exclude and attributes files all live under apm-git's data home.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from apm_git import clock, git, jsontext
from apm_git.errors import OsFailure, UsageError
from apm_git.model.vocabulary import TrackedAgent
from apm_git.store import tracked as store
from apm_git.store.atomic import TEMP_SUFFIX, write_atomic
from apm_git.tracking import agents, identity

# The history's own git settings: byte-exact blobs whatever the user's global config says (no line-end
# or filter conversion, no signing prompt in an agent's hook), and a quick `git status`.
GIT_SETTINGS = {
    "core.autocrlf": "false", "core.safecrlf": "false", "core.untrackedCache": "true", "commit.gpgsign": "false",
}
# info/attributes outranks every .gitattributes, the folder's and the user's global one.
ATTRIBUTES = "* -text -filter -ident\n"
# Editors' and apm-git's own temporary files are never memory.
EXCLUDE = "\n".join(["*" + TEMP_SUFFIX, "*.swp", "*.swo", "*~", ".DS_Store", "*.tmp", ""])


class Place(NamedTuple):
    folder: Path
    project: Path | None
    identity: str | None
    note: str | None  # what the user should know about how it was found


def locate(agent: TrackedAgent, *, project: Path | None, path: Path | None, name: str | None) -> Place:
    """The folder `track AGENT [--project DIR] [PATH]` means, the project it belongs to and its identity."""
    home = str(Path.home())
    if name is not None and (problem := identity.name_problem(name)):
        raise UsageError(problem)
    if agent == "claude-code":
        start = (project or Path.cwd()).expanduser().absolute()
        root = git.project_root(start) if start.is_dir() else None
        chosen = root or start
        if path is not None:
            folder = path
        else:
            setting = _auto_memory_directory(chosen, home)
            base = agents.claude_base(home, os.environ.get("CLAUDE_CONFIG_DIR"))
            folder = Path(agents.claude_folder(base, str(chosen), setting, home))
        remote = git.remote_url(root) if root is not None else None
        found = name or (identity.from_remote(remote) if remote else None)
        note = None if root is not None else f"{start} is in no git repository: Claude Code names its memory after it"
        return Place(_absolute(folder), chosen, found, note)
    if agent == "codex":
        folder = path or Path(agents.codex_folder(home, os.environ.get("CODEX_HOME")))
        return Place(_absolute(folder), None, name or "default", None)
    workspace = _absolute(path or project or Path(agents.openclaw_folder(home)))
    root = git.project_root(workspace) if workspace.is_dir() else None
    remote = git.remote_url(root) if root is not None else None
    return Place(workspace, workspace, name or (identity.from_remote(remote) if remote else None), None)


def _absolute(path: Path) -> Path:
    return Path(os.path.normpath(path.expanduser().absolute()))


def _auto_memory_directory(project: Path, home: str) -> str | None:
    """Claude Code's `autoMemoryDirectory`: the project's local settings win over the user's (project settings
    may not move it); unreadable files count as unset."""
    base = agents.claude_base(home, os.environ.get("CLAUDE_CONFIG_DIR"))
    for file in (project / ".claude" / "settings.local.json", Path(base) / "settings.json"):
        try:
            data = jsontext.loads(file.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        value = data.get("autoMemoryDirectory") if isinstance(data, dict) else None
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def start_history(tracked: store.Tracked) -> bool:
    """The git dir of `tracked`, made when missing (True) or found from an earlier `track` (False)."""
    git_dir = tracked.git_dir
    if (git_dir / "HEAD").is_file():
        git.use_git_dir(tracked.path, git_dir)
        return False
    try:
        git_dir.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OsFailure.of(error, git_dir.parent) from None
    git.init_apart(tracked.path, git_dir, GIT_SETTINGS)
    info = git_dir / "info"
    info.mkdir(exist_ok=True)
    write_atomic(info / "attributes", ATTRIBUTES.encode())
    write_atomic(info / "exclude", EXCLUDE.encode())
    return True


def first_commit(tracked: store.Tracked) -> git.Committed:
    """The history's first commit when the folder held nothing to snapshot: an empty tree, so the history has a
    branch to sync and to compare with from the start."""
    from apm_git.model import trailers as trailer_model
    from apm_git.store.clone import clone_trailer

    folder = tracked.path
    tree = git.write_tree(folder)
    text = trailer_model.message(f"track {tracked.agent} (nothing to snapshot yet)",
                                 [("Apm-Trigger", "track"), ("Apm-Scope", tracked.agent), ("Apm-Session", "none"),
                                  ("Apm-Origin", "session"), clone_trailer(tracked.git_dir)])
    made = git.commit_tree(folder, tree, [], text, env=clock.git_date_env())
    git.move_head(folder, made.commit, None, "track")
    return made
