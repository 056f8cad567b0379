"""`apm-git merge-counters`: after a `git merge` (or `git pull`), add up the hit counts of the memory files
both sides changed alike, in a commit of their own (docs/merge.md, "Counters").

Git merges a file that both sides changed to the same bytes without calling its merge driver: two
machines that each hit an entry once on the same day wrote the same Fitness line, and git's merge
keeps one hit.  `apm-git setup` installs this command as the clone's `post-merge` hook, which git
runs after it committed a merge that needed no person.  When HEAD is a merge of two commits, it runs
the memory-wide merge of the three commits and, for each such file whose merged text differs from
the merge commit's in Fitness lines alone, commits the merged text (`memory: count the hits …`).

Why a commit after the merge, not inside it: git's `pre-merge-commit` hook runs before the merge
commit, but git (2.39) has written the commit's tree already, so what the hook stages stays staged
instead of going into the merge.  A file the user has edited and not committed is left alone.
"""
from __future__ import annotations

import dataclasses

from apm_git import git
from apm_git.merge.tree import merge_memory
from apm_git.operations.merge_sides import driver_config, whole_memory
from apm_git.store.atomic import write_atomic
from apm_git.store.commit import commit
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import write_lock

FITNESS = "- Fitness:"


@dataclasses.dataclass
class CountersResult:
    merge: str | None  # the merge commit looked at; None when HEAD is not a merge of two commits
    counted: list[str] = dataclasses.field(default_factory=list)  # files whose counts were added up
    commit: str | None = None  # the commit that holds them
    left: list[str] = dataclasses.field(default_factory=list)  # files to count that hold the user's own edits
    skipped: str | None = None  # why nothing was counted, when nothing could be


def merge_counters(repo: MemoryRepo) -> CountersResult:
    """Count both sides' hits in the files git merged alike into HEAD; see the module."""
    root = repo.root
    with write_lock(repo):
        head = git.log(root, ["HEAD"], max_count=1)
        if not head or len(head[0].parents) != 2:
            return CountersResult(None, skipped="HEAD is not a merge of two commits")
        merge, (ours, theirs) = head[0].sha, head[0].parents
        base = git.merge_base(root, ours, theirs)
        if base is None:
            return CountersResult(merge, skipped="the two commits have no merge base")
        config = driver_config(root)
        sides = whole_memory(root, config, (base, ours, theirs))
        if sides is None:
            return CountersResult(merge, skipped="a memory file of the merge cannot be read")
        old, mine, other = sides
        alike = [path for path, text in mine.items()
                 if path.endswith(".md") and other.get(path) == text and old.get(path) != text]
        if not alike:
            return CountersResult(merge)
        merged = merge_memory(old, mine, other, memory_dir=config.memory_dir, append_only=config.append_only)
        return _count(repo, merge, alike, mine, merged.files)


def _count(repo: MemoryRepo, merge: str, alike: list[str], mine: dict[str, str],
           merged: dict[str, str | None]) -> CountersResult:
    root = repo.root
    result = CountersResult(merge)
    committed = git.cat_files(root, [f"{merge}:{path}" for path in alike])
    head_blobs, staged = git.tree_blobs(root, merge, alike), git.index_entries(root, alike)
    for path in alike:
        text = merged.get(path)
        if text is None or committed.get(f"{merge}:{path}") != mine[path].encode("utf-8") \
                or text == mine[path] or not _fitness_alone(mine[path], text):
            continue  # nothing to add up, or the merge commit holds another version (settled by a person)
        try:
            current = (root / path).read_bytes()
        except OSError:
            current = None
        if current != mine[path].encode("utf-8") or staged.get(path, ("", ""))[1] != head_blobs.get(path):
            result.left.append(path)  # an edit of the user's, uncommitted: never overwritten
            continue
        write_atomic(root / path, text.encode("utf-8"))
        result.counted.append(path)
    if result.counted:
        result.commit = commit(repo, result.counted, f"count the hits both sides of merge {merge[:12]} made alike",
                               [("Apm-Trigger", "merge-counters"), ("Apm-Scope", "all")])
    return result


def _fitness_alone(one: str, two: str) -> bool:
    """Whether two texts differ in Fitness lines only (the one change counting makes)."""
    def rest(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith(FITNESS)]

    return len(one.splitlines()) == len(two.splitlines()) and rest(one) == rest(two)
