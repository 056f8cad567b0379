"""Flush scopes: `all`, `main` (the DM memory and the Dreaming files) or `group:NAME`."""
from __future__ import annotations

import dataclasses

from apm_git.errors import UsageError
from apm_git.model.config import CONFIG_FILE
from apm_git.model.groups import check_group_name
from apm_git.model.names import FLUSH_STATE, GROUP_NAMES, GROUPS
from apm_git.model.vocabulary import ScopeKind
from apm_git.store import layout
from apm_git.store.repo import MemoryRepo
from apm_git.store.state import group_names, resolve_room


@dataclasses.dataclass(frozen=True)
class Scope:
    kind: ScopeKind
    group: str | None = None

    def __str__(self) -> str:
        return f"group:{self.group}" if self.group else self.kind

    @property
    def covers_dreaming(self) -> bool:
        """Whether the Dreaming files (INDEX, category files, journals) are part of this scope."""
        return self.kind in ("all", "main")

    def pathspecs(self, repo: MemoryRepo) -> list[str]:
        """Repo-relative git pathspecs of the memory this scope commits."""
        memory = repo.memory_prefix
        if self.kind == "all":
            return [memory, CONFIG_FILE]
        if self.kind == "main":
            return [memory, CONFIG_FILE, f":(exclude){memory}/{GROUPS}"]
        assert self.group is not None
        return [
            repo.repo_path(layout.group_index(self.group)),
            repo.repo_path(layout.group_dir(self.group)),
            repo.repo_path(GROUP_NAMES),
            repo.repo_path(FLUSH_STATE),
        ]


def parse_scope(text: str) -> Scope:
    if text == "all":
        return Scope("all")
    if text == "main":
        return Scope("main")
    if text.startswith("group:"):
        return Scope("group", check_group_name(text[len("group:"):]))
    raise UsageError(f"unknown scope {text!r}; use all, main or group:NAME")


def scope_for(repo: MemoryRepo, scope: str | None, room: str | None, *, create: bool = False) -> Scope:
    """The scope named by --scope or --room (a room id resolves through group_names.json)."""
    if room is not None:
        group = resolve_room(repo, room)
        if scope is not None and parse_scope(scope) != Scope("group", group):
            raise UsageError(f"--room {room} maps to group:{group}, which contradicts --scope {scope}")
        return Scope("group", group)
    return require_known_group(repo, parse_scope(scope or "all"), create=create)


def require_known_group(repo: MemoryRepo, scope: Scope, *, create: bool) -> Scope:
    """A group scope must name a group that exists (on disk or in group_names.json) unless `create`:
    `group:nope` is far more often a typo than a wish for a new group of five files."""
    if scope.group is None or create or scope.group in group_names(repo).values():
        return scope
    # anything at the group's paths counts, a link too: the code that writes there refuses unsafe links
    paths = (repo.memory / layout.group_index(scope.group), repo.memory / layout.group_dir(scope.group))
    if any(path.exists() or path.is_symlink() for path in paths):
        return scope
    raise UsageError(
        f"unknown group {scope.group!r}: no {repo.repo_path(layout.group_index(scope.group))} and no room "
        f"maps to it in {repo.repo_path(GROUP_NAMES)}; check the spelling, or pass --create to start a new group",
    )
