"""The names of the memory dir's layout (docs/design.md 2), written once.

Paths are relative to the memory dir (`memory_dir` in apm.yaml), never to the repository:
`repo.repo_path(name)` puts the memory dir in front.  This module imports nothing, so the
pre-commit hook's checks, which run on every commit, pay nothing for it.
"""
from __future__ import annotations

INDEX = "INDEX.md"  # the Dreaming index
MAIN = "main"  # the DM memory
MAIN_INDEX = f"{MAIN}/index.md"
MAIN_FILES = ("attention.md", "longterm.md", "daily-synced.md")
GROUPS = "groups"  # groups/<group>.md is a group's index, groups/<group>/ its files
GROUP_FILES = ("attention.md", "project.md", "experience.md", "people.md")
EXPERIENCE = "experience.md"
CONVENTIONS = "conventions"  # groups/<group>/conventions/*.md
ARCHIVE = "archive"  # archive/YYYY-MM.md
ARCHIVED_JOURNALS = f"{ARCHIVE}/journals"
GROUP_NAMES = "group_names.json"
FLUSH_STATE = "flush-state.json"
STATE_FILES = (GROUP_NAMES, FLUSH_STATE)
BASELINE = "apm-baseline.json"  # the findings baseline (apm_git/checks/baseline.py)
KEPT = "kept"  # a file of the user's that apm-git would replace is moved here (INDEX.md, state files)
MEMORY_MD = "MEMORY.md"  # at the repository's root: seeds main/longterm.md



def zone(rel: str) -> str:
    """Which memory a memory-relative path belongs to: `groups/<group>` (its index and its folder),
    `main`, or "" (the Dreaming files, journals, archive and state).  No link may cross zones."""
    parts = rel.split("/")
    if parts[0] == GROUPS and len(parts) > 1:
        return f"{GROUPS}/{parts[1].removesuffix('.md') if len(parts) == 2 else parts[1]}"
    return MAIN if parts[0] == MAIN else ""


def memory_rel(memory_dir: str, path: str) -> str | None:
    """A repo-relative path relative to the memory dir, or None when it is outside."""
    prefix = memory_dir + "/"
    return path[len(prefix):] if path.startswith(prefix) else None


def repo_rel(memory_dir: str, rel: str) -> str:
    """A memory-relative path relative to the repository (as git and the user see it)."""
    return f"{memory_dir}/{rel}"
