"""`apm-git history ENTRY-ID`: every commit that created, changed, moved, promoted, archived or forgot an entry.

Four git processes, whatever the length of the history:
1. `git grep` at HEAD finds the files that hold the entry now;
2. `git log --grep` (fixed string) finds the consolidation and forget commits whose trailers
   name it, and so every file it passed through (journal -> category file -> archive);
3. `git log --raw -M` over exactly those files (and each journal's archived twin) lists the
   commits that touched them, with the blob of each file before and after;
4. `git cat-file --batch` reads those blobs, and only the entry's own lines are compared, so
   plain commits without trailers (a flush, a hand edit) are found too.
"""
from __future__ import annotations

import dataclasses

from apm_git import git
from apm_git.dreaming.locate import entry_block, header_id
from apm_git.errors import FindingsError, UsageError
from apm_git.model import dated, names
from apm_git.model import trailers as trailer_model
from apm_git.model.entry_id import is_entry_id
from apm_git.model.vocabulary import HistoryWhat
from apm_git.store.repo import MemoryRepo

NULL_SHA = "0" * 40


# What the trailers of one commit say happened to an entry, the first that applies.
BY_TRAILER: tuple[HistoryWhat, ...] = ("forgotten", "superseded", "archived", "promoted", "merged", "proven", "changed")


@dataclasses.dataclass(frozen=True)
class HistoryEvent:
    date: str  # committer date, ISO 8601
    commit: str  # short sha
    trigger: str  # Apm-Trigger, or "-" for a commit apm-git did not make
    what: HistoryWhat
    file: str  # where the entry is after the commit (the file it left, when it left memory)
    source: str | None  # the file it came from, when it changed files
    detail: str
    subject: str


@dataclasses.dataclass
class _Commit:
    sha: str
    date: str
    subject: str
    trailers: list[tuple[str, str]]
    files: list[tuple[str, str | None, str | None]] = dataclasses.field(default_factory=list)  # path, old, new blob


def history(repo: MemoryRepo, entry_id: str) -> list[HistoryEvent]:
    if not is_entry_id(entry_id):
        raise UsageError(f"{entry_id!r} is not an entry id; ids look like 2026-04-06-redis-cache-strategy")
    if git.head(repo.root) is None:
        raise FindingsError(f"no commits yet, so no history of {entry_id}; run `apm-git flush` first")
    mentions = _mentions(repo, entry_id)
    paths = _paths(repo, entry_id, mentions)
    commits = _log(repo, sorted(paths))
    seen = {commit.sha for commit in commits}
    # A forget of an entry that was never committed changes no file: its commit is found by its trailer.
    commits += [commit for commit in mentions if commit.sha not in seen and _forgets(commit, entry_id)]
    blobs = _blobs(repo, commits)
    events = []
    for commit in reversed(commits):
        event = _event(repo, commit, entry_id, blobs)
        if event is not None:
            events.append(event)
    if not events:
        raise FindingsError(
            f"no commit created or changed {entry_id}; check the id (`apm-git search`), or flush it first",
        )
    return events


def _paths(repo: MemoryRepo, entry_id: str, mentions: list[_Commit]) -> set[str]:
    prefix = repo.memory_prefix
    paths = {f"{prefix}/{entry_id[:10]}.md"}
    for path, text in git.grep_lines(repo.root, "HEAD", [f"## [{entry_id[:10]}]"], [prefix]):
        if header_id(text) == entry_id:
            paths.add(path)
    for _, value in (trailer for commit in mentions for trailer in commit.trailers):
        paths.update(token for token in value.replace("(", " ").split() if token.startswith(prefix + "/"))
    twins = set()
    for path in paths:
        rel = repo.memory_rel(path) or ""
        name = rel.rsplit("/", 1)[-1]
        if dated.journal_date(name) and rel in (name, f"{names.ARCHIVED_JOURNALS}/{name}"):
            twins |= {repo.repo_path(name), repo.repo_path(f"{names.ARCHIVED_JOURNALS}/{name}")}
    return {path for path in paths | twins if path.startswith(prefix + "/")}


def _mentions(repo: MemoryRepo, entry_id: str) -> list[_Commit]:
    """The commits whose consolidation or forget trailers name the entry, newest first, with those trailers."""
    commits = []
    for found in git.log(repo.root, ["HEAD"], grep=entry_id):
        trailers = [
            (key, value) for key, value in trailer_model.parse(found.message)
            if (key in trailer_model.CONSOLIDATION or key == trailer_model.FORGET)
            and entry_id in value.replace("(", " ").replace(")", " ").split()
        ]
        if trailers:
            commits.append(_Commit(found.sha, found.date, found.subject, trailers))
    return commits


def _forgets(commit: _Commit, entry_id: str) -> bool:
    return any(key == trailer_model.FORGET and value.split()[:1] == [entry_id] for key, value in commit.trailers)


def _log(repo: MemoryRepo, paths: list[str]) -> list[_Commit]:
    commits = []
    for found, changes in git.log_changes(repo.root, "HEAD", paths):
        commit = _Commit(found.sha, found.date, found.subject, trailer_model.parse(found.message))
        for change in changes:
            old = change.old_blob if change.old_blob != NULL_SHA else None
            new = change.new_blob if change.new_blob != NULL_SHA else None
            if change.old_path is not None:  # a rename leaves its source, a copy keeps it as it was
                commit.files.append((change.old_path, old if change.status == "R" else None, None))
                commit.files.append((change.path, None, new))
            else:
                commit.files.append((change.path, old, new))
        commits.append(commit)
    return commits


def _blobs(repo: MemoryRepo, commits: list[_Commit]) -> dict[str, str]:
    shas = {blob for commit in commits for _, old, new in commit.files for blob in (old, new) if blob}
    return {
        sha: data.decode("utf-8", "replace")
        for sha, data in git.cat_files(repo.root, sorted(shas)).items() if data is not None
    }


def _event(repo: MemoryRepo, commit: _Commit, entry_id: str, blobs: dict[str, str]) -> HistoryEvent | None:
    sources, targets, changed = [], [], []
    gained_proven = False
    for path, old, new in commit.files:
        day = dated.journal_date(path.rsplit("/", 1)[-1])
        before = entry_block(blobs.get(old, ""), entry_id, day) if old else None
        after = entry_block(blobs.get(new, ""), entry_id, day) if new else None
        if before is None and after is not None:
            targets.append(path)
        elif before is not None and after is None:
            sources.append(path)
        elif before is not None and after is not None and before != after:
            changed.append(path)
            gained_proven |= "[PROVEN]" not in before.split("\n")[0] and "[PROVEN]" in after.split("\n")[0]
    what, detail = _from_trailers(commit, entry_id)
    if what is None:
        if not (sources or targets or changed):
            return None
        if sources and targets:
            what = "moved"
        elif targets:
            what = "created"
        elif sources:
            what = "deleted"
        else:
            what = "proven" if gained_proven else "changed"
    file = (targets or changed or sources or [_trailer_target(commit, entry_id) or ""])[0]
    source = sources[0] if sources and (targets or what in ("archived", "superseded", "promoted")) else None
    trigger = dict(commit.trailers).get("Apm-Trigger", "-")
    return HistoryEvent(commit.date, commit.sha[:12], trigger, what, file, source, detail, commit.subject)


def _from_trailers(commit: _Commit, entry_id: str) -> tuple[HistoryWhat | None, str]:
    found: dict[HistoryWhat, str] = {}
    for key, value in commit.trailers:
        words = value.split()
        if key == trailer_model.FORGET and words[:1] == [entry_id]:
            found["forgotten"] = value.split(" — ", 1)[1] if " — " in value else ""
        elif key == "Apm-Supersede" and len(words) >= 3:
            if words[0] == entry_id:
                found["superseded"] = f"superseded by {words[2]}"
            elif words[2] == entry_id:
                found.setdefault("changed", f"supersedes {words[0]}")
        elif key == "Apm-Archive" and words[:1] == [entry_id]:
            found["archived"] = value.rsplit("(", 1)[-1].rstrip(")") if "(" in value else ""
        elif key == "Apm-Promote" and words[:1] == [entry_id]:
            found["promoted"] = value.rsplit("(", 1)[-1].rstrip(")") if "(" in value else ""
        elif key == "Apm-Proven" and words[:1] == [entry_id]:
            found["proven"] = ""
        elif key == "Apm-Move" and words[:1] == [entry_id]:
            found["merged"] = value.rsplit("(", 1)[-1].rstrip(")")
        elif key == "Apm-Move" and value.endswith(f"(merged into {entry_id})"):
            found["merged"] = f"absorbed {words[0]}"
    for what in BY_TRAILER:
        if what in found:
            return what, found[what]
    return None, ""


def _trailer_target(commit: _Commit, entry_id: str) -> str | None:
    for _, value in commit.trailers:
        words = value.split()
        if words[:1] == [entry_id] and "->" in words:
            return words[words.index("->") + 1]
    return None
