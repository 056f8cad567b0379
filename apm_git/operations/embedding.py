"""The meaning layer's vectors of every passage a scope's search index holds, for `search --meaning` and the
hook: made by `apm-git embed` (commands/embed.py), kept up to date by `apm-git dream`.

The optional layer of apm_git/search/meaning.py (the extra `apm-git[meaning]`): each passage whose text has no
vector yet is embedded (live memory first), the vectors of the others are kept, those of texts no passage
holds any longer are dropped; the file lives beside the search index under `.git/apm-git/search/`.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

from apm_git.model import names
from apm_git.search.index import SearchScope
from apm_git.store.repo import MemoryRepo


@dataclasses.dataclass
class EmbedResult:
    where: str  # "memory" or "group NAME"
    path: str  # the vectors file
    model: str
    passages: int  # in the search index
    embedded: int  # by this run
    reused: int  # vectors that were there already
    dropped: int  # vectors of texts gone
    cpu_seconds: float  # spent embedding
    rebuilt: str | None  # why the vectors on disk could not be used (made anew)


def embed(repo: MemoryRepo, *, group: str | None = None,
          progress: Callable[[int, int], None] | None = None) -> EmbedResult:
    from apm_git.search import meaning

    built = meaning.build(repo, SearchScope(group), progress=progress)
    return EmbedResult(f"group {group}" if group else "memory", str(built.path), built.model, built.passages,
                       built.embedded, built.reused, built.dropped, round(built.seconds, 3), built.rebuilt)


@dataclasses.dataclass
class VectorsState:
    """What `status` says of a scope's vectors: how many passages have none yet (written since the last `embed`
    or `dream`), or why the vectors cannot be used."""

    where: str  # "memory" or "group NAME"
    passages: int  # in the search index
    without_vector: int
    # why the vectors cannot be used (damaged, another model, the extra missing), or what they lack (the
    # crowding), or None
    note: str | None


def scopes_with_vectors(repo: MemoryRepo) -> list[SearchScope]:
    """The scopes whose vectors `apm-git embed` made (a group gone since left out), memory first."""
    folder = repo.state_dir / "search"
    found = sorted(path.name[:-len(".vectors")] for path in folder.glob("*.vectors")) if folder.is_dir() else []
    groups = repo.memory / names.GROUPS
    scopes = []
    for name in found:
        group = None if name == "memory" else name.removeprefix("group-")
        if group is not None and (name == group or not ((groups / group).is_dir()
                                                         or (groups / f"{group}.md").is_file())):
            continue
        scopes.append(SearchScope(group))
    return scopes


def vectors_state(repo: MemoryRepo) -> list[VectorsState]:
    """Each scope with vectors: its passages and how many have no vector; the model is not loaded."""
    from apm_git.errors import ApmGitError
    from apm_git.search import meaning
    from apm_git.search.engine import model_name
    from apm_git.search.index import Index

    states = []
    for scope in scopes_with_vectors(repo):
        where = f"group {scope.group}" if scope.group else "memory"
        try:
            index = Index(repo, scope)
        except ApmGitError as error:  # no FTS5: the layer cannot run here
            states.append(VectorsState(where, 0, 0, str(error)))
            continue
        try:
            try:
                name: str | None = model_name()
                note: str | None = None
            except ApmGitError as missing:
                name, note = None, f"{missing}; the hook and `search` rank by words"
            vectors, why = meaning.VectorsPlace(repo, scope).read()
            every = index.places()
            if vectors is None or (name is not None and vectors.model != name):
                note = why if vectors is None else f"the vectors were made by another model ({vectors.model})"
                states.append(VectorsState(where, len(every), len(every), f"{note}; `apm-git embed` makes them anew"))
                continue
            have = meaning.rows_of(index, every, vectors)
            if name is not None:  # else `note` says the extra is missing
                note = None if vectors.crowding is not None else (  # an older format, or a build stopped early
                    f"{len(every)} passages; the vectors hold no crowding yet (an older format, or a build stopped "
                    "early): `apm-git embed` or the next `dream` adds it")
            states.append(VectorsState(where, len(every), len(every) - len(have), note))
        finally:
            index.close()
    return states
