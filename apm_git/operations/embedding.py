"""The meaning layer's vectors of every passage a scope's search index holds, for `search --meaning` and the
hook: made by `apm-git embed` (commands/embed.py), kept up to date by `apm-git dream`.

The optional layer of apm_git/search/meaning.py (the extra `apm-git[meaning]`): each passage whose text has no
vector yet is embedded (live memory first), the vectors of the others are kept, those of texts no passage
holds any longer are dropped; the file lives beside the search index under `.git/apm-git/search/`.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

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
