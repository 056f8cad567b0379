"""`apm-git sync` of a tracked folder: one history for the same project's memory on every machine, through an
ordinary git remote (docs/tracking.md, "Every machine").

The remote branch is named by the project's identity (`apm-git/<agent>/<identity>`), never by the folder's
path, which differs from machine to machine.  Under the folder's lock: snapshot the folder (so the folder
is its newest snapshot), fetch the branch, bring it in (a fast-forward, or the entry-level merge of
apm_git.merge, whose free-form sections merge by heading and both versions of a section both sides changed
are kept), check that no section or fact either side added is lost, write the files that changed into the
folder, then push without force; a push rejected because the branch moved starts the round again.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from apm_git import clock, git
from apm_git.errors import FetchFailed, OsFailure, StateError
from apm_git.model import trailers as trailer_model
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.operations import snapshot as snapshots
from apm_git.operations.sync_rounds import run_rounds
from apm_git.store import tracked as store
from apm_git.store.atomic import write_atomic
from apm_git.store.clone import clone_trailer
from apm_git.store.lock import file_lock
from apm_git.tracking import identity as identities
from apm_git.tracking.agents import PROFILES
from apm_git.tracking.conserve import lost_in_merge

PREFIX = "m"  # the folder's files, put under one folder for the memory-wide merge (apm_git.merge)
FETCHED = "refs/apm-git/fetched/"


@dataclasses.dataclass
class TrackedSync:
    tracked: store.Tracked
    remote: str
    branch: str
    before: str | None = None
    after: str | None = None
    snapshot: str | None = None  # the snapshot sync took first, when the folder had changed
    withheld: list[str] = dataclasses.field(default_factory=list)
    kind: str | None = None  # "fast-forward" or "merge": how the other machines' snapshots came in
    incoming: str | None = None
    written: list[str] = dataclasses.field(default_factory=list)  # files of the folder sync wrote or deleted
    conflicts: list[str] = dataclasses.field(default_factory=list)  # sections both sides changed: both kept
    pushed: bool = False
    push_attempts: int = 0
    created_branch: bool = False
    up_to_date: bool = False
    fallback: bool = False  # a commit sync made (its snapshot, a merge) was made as apm-git (git.FALLBACK_NOTE)


def sync(tracked: store.Tracked, *, remote: str | None = None) -> TrackedSync:
    url = remote or tracked.remote
    if not url:
        raise StateError(f"{tracked.folder} has no remote to sync with: run `apm-git track {tracked.agent} "
                         f"{tracked.folder} --remote URL` (a bare repository, any git host), or pass --remote URL")
    if url.startswith("-"):
        raise StateError(f"--remote {url!r} is not a URL")
    if tracked.identity is None:
        raise StateError(f"{tracked.folder} has no project identity, so the other machines cannot find its "
                         f"history: run `apm-git track {tracked.agent} {tracked.folder} --name NAME` with the same "
                         "NAME on every machine")
    branch = identities.branch(tracked.agent, tracked.identity)
    folder = snapshots.open_history(tracked)
    result = TrackedSync(tracked, url, branch)
    with file_lock(tracked.lock_path, f"another apm-git process on {folder}"):
        shot = snapshots.take_locked(tracked, "sync")
        result.snapshot, result.fallback = shot.commit, shot.fallback
        result.withheld = sorted({item.path for item in shot.withheld})
        result.before = git.head(folder)
        done = run_rounds(TrackedSide(tracked, folder, url, branch, shot.withheld, result))
    result.after, result.pushed, result.push_attempts = done.after, done.pushed, done.push_attempts
    result.created_branch = done.created_branch
    result.up_to_date = not done.pushed and result.kind is None and result.snapshot is None
    result.written = sorted(set(result.written))
    return result


@dataclasses.dataclass
class TrackedSide:
    """A tracked folder's side of the rounds (operations/sync_rounds.py): fetch the identity's branch into a ref
    of its own, bring it in (a fast-forward or the entry-level merge) and write what changed into the folder."""

    tracked: store.Tracked
    where: Path  # the folder
    remote: str  # a URL
    branch: str
    withheld: tuple[snapshots.SnapshotWithheld, ...]  # left out of the snapshot sync took: never overwritten
    result: TrackedSync
    # A tracked folder's sync has never paused between rounds nor asked the remote whether a refused push
    # lost a race (a memory repository's sync does both): kept as it was when the rounds became one.
    backoff: float = 0.0
    confirms_refusal: bool = False

    def fetch(self) -> str | None:
        ref = FETCHED + self.branch
        found = git.fetch(self.where, self.remote, [f"+refs/heads/{self.branch}:{ref}"])
        return git.commit_id(self.where, ref) if found else None

    def bring_in(self, attempt: int, theirs: str | None) -> str:
        folder, result = self.where, self.result
        head = git.head(folder)
        assert head is not None
        if theirs is not None and theirs != head and not git.is_ancestor(folder, theirs, head):
            result.incoming = theirs
            if git.is_ancestor(folder, head, theirs):
                result.kind = "fast-forward"
                result.written += _land(self.tracked, folder, head, theirs, self.withheld)
            else:
                result.kind = "merge"
                merged = _merge(self.tracked, folder, head, theirs, self.branch, result)
                result.written += _land(self.tracked, folder, head, merged, self.withheld)
            head = git.head(folder)
            assert head is not None
        return head

    def fetch_failed(self, error: FetchFailed, *, first: bool) -> StateError:
        what = "nothing was changed" if first else "what is merged so far is in the history"
        return StateError(f"{error}; {what}: check the remote URL and the network, then retry")

    def refused(self, head: str, detail: str) -> StateError:
        return StateError(f"{self.remote} refused the push to {self.branch} ({detail}); the folder and its history "
                          "are merged here, nothing was pushed: fix what the remote says, then sync again")

    def gave_up(self, attempts: int, head: str | None) -> StateError:
        return StateError(f"{self.remote} rejected the push {attempts} times (other machines keep pushing to "
                          f"{self.branch}); what is merged so far is here: run `apm-git sync` again")


def _merge(tracked: store.Tracked, folder: Path, head: str, theirs: str, branch: str, result: TrackedSync) -> str:
    """The merge commit of the two histories (their common snapshot as the base, none for two histories that
    began apart: the first sync of a second machine)."""
    from apm_git.merge.tree import merge_memory

    memory = list(PROFILES[tracked.agent].memory)
    tree, _ = git.merge_tree(folder, head, theirs)
    base = git.merge_base(folder, head, theirs)
    sides = [_texts(folder, commit, memory) if commit else ({}, {}) for commit in (base, head, theirs)]
    (base_texts, base_blobs), (ours, our_blobs), (other, their_blobs) = sides
    outcome = merge_memory(_under(base_texts), _under(ours), _under(other), memory_dir=PREFIX, append_only=())
    merged = {path.removeprefix(PREFIX + "/"): text for path, text in outcome.files.items()}
    lost = lost_in_merge(base_texts, ours, other, merged)
    if lost:
        raise StateError(f"merging {branch} would lose {len(lost)} section(s) or fact(s) ({'; '.join(lost[:3])}); "
                         "nothing was changed — please report this")
    refused = [path for path in sorted({*our_blobs, *their_blobs} - set(merged))
               if len({base_blobs.get(path), our_blobs.get(path), their_blobs.get(path)}) == 3]
    if refused:
        raise StateError(f"both machines changed {', '.join(refused[:5])}, which is not text apm-git can merge; "
                         "nothing was changed: keep one version in the folder, snapshot it, then sync again")
    result.conflicts = [str(conflict).removeprefix(PREFIX + "/") for conflict in outcome.conflicts]
    trailers = [("Apm-Merge", branch), *(("Apm-Conflict", conflict) for conflict in result.conflicts),
                ("Apm-Trigger", "sync"), ("Apm-Scope", tracked.agent), ("Apm-Session", "none"),
                ("Apm-Origin", snapshots.SESSION), clone_trailer(tracked.git_dir)]
    text = trailer_model.message(f"merge {branch} (sync)", trailers)
    contents = {path: None if data is None else data.encode("utf-8") for path, data in merged.items()}
    built = git.build_commit(folder, tracked.git_dir, head, [], text, contents=contents, env=clock.git_date_env(),
                             other_parents=[theirs], start=tree)
    result.fallback = result.fallback or built.fallback
    return built.commit


def _under(texts: dict[str, str]) -> dict[str, str]:
    return {f"{PREFIX}/{path}": text for path, text in texts.items()}


def _texts(folder: Path, commit: str, memory: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    found = git.tree_texts(folder, commit, memory, limit=MAX_FILE_BYTES)
    return found.texts, found.blobs


def _land(tracked: store.Tracked, folder: Path, head: str, new: str,
          withheld: tuple[snapshots.SnapshotWithheld, ...]) -> list[str]:
    """Write the files that differ between `head` (the folder, as snapshotted) and `new` into the folder, then
    move the history to `new`.  A file the agent changed since the snapshot (or one withheld from it) is never
    overwritten: sync stops before writing anything."""
    old_all = git.tree_entries(folder, head, git.changed_paths(folder, head, new))
    new_all = git.tree_entries(folder, new, list(old_all))
    links = ("120000", "160000")  # a symlink or a submodule: never written as a file's bytes
    paths = [path for path in old_all
             if not any(entry and entry[0] in links for entry in (old_all[path], new_all[path]))]
    held = {item.path for item in withheld}
    old = git.tree_entries(folder, head, paths)
    wanted = git.tree_entries(folder, new, paths)
    specs = [f"{commit}:{path}" for commit, entries in ((head, old), (new, wanted))
             for path, entry in entries.items() if entry is not None]
    blobs = git.cat_files(folder, specs)
    busy = []
    for path in paths:
        current = snapshots.read_file(folder / path)
        before = blobs.get(f"{head}:{path}") if old.get(path) else None
        if path in held or current != before:
            busy.append(path)
    if busy:
        raise StateError(f"{', '.join(busy[:5])} changed in {folder} since the snapshot sync took (the agent is "
                         "writing, or a file is withheld): nothing was changed; run `apm-git sync` again")
    written = []
    for path in paths:
        target = folder / path
        try:
            if wanted.get(path) is None:
                if target.exists():
                    target.unlink()
            else:
                data = blobs.get(f"{new}:{path}")
                assert data is not None
                write_atomic(target, data)
        except OSError as error:
            raise OsFailure.of(error, target) from None
        written.append(path)
    git.move_head(folder, new, head, "sync")
    git.read_tree(folder, "HEAD")
    return written
