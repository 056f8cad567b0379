"""`apm-git history ENTRY-ID`: every commit that created, changed, moved, promoted, archived or forgot an entry.

Four git processes, whatever the length of the history:
1. `git grep` at HEAD finds the files that hold the entry now (and for an entry held nowhere, or held
   where no trailer explains, one `git log -S` finds every file that ever gained or lost a heading of
   its date: an entry deleted or moved by hand is followed too);
2. `git log --grep` (fixed string) finds the consolidation and forget commits whose trailers
   name it, and so every file it passed through (journal -> category file -> archive);
3. `git log --raw -M` over exactly those files (and each journal's archived twin) lists the
   commits that touched them, with the blob of each file before and after;
4. `git cat-file --batch` reads those blobs, and only the entry's own lines are compared, so
   plain commits without trailers (a flush, a hand edit) are found too.

The content decides, the trailers add detail, as in `diff` (docs/review.md): a trailer that says an
entry was archived, promoted, moved, merged or superseded is believed only where the files agree.  A
commit in which the entry leaves the files followed without arriving in one of them costs one
`git grep` of that commit's memory: the entry is somewhere (moved, or archived), or a surviving
`Merged:`/`Supersedes:` field names it, or it is lost, whatever a trailer says.  A commit whose
trailer names the entry but whose files leave it unchanged is not one of its events.  Only
`Apm-Forget` is taken at its word, as apm-no-loss takes it: it is the deliberate deletion.
"""
from __future__ import annotations

import dataclasses

from apm_git import git
from apm_git.dreaming.locate import entry_block, header_id
from apm_git.errors import FindingsError, UsageError
from apm_git.model import dated, names
from apm_git.model import trailers as trailer_model
from apm_git.model.entries import NAMING_FIELDS, named_ids
from apm_git.model.entry_id import is_entry_id
from apm_git.model.vocabulary import HistoryWhat
from apm_git.store.repo import MemoryRepo

NULL_SHA = "0" * 40


# What the trailers of one commit say happened to an entry, the first that applies.
BY_TRAILER: tuple[HistoryWhat, ...] = ("forgotten", "superseded", "archived", "promoted", "merged", "proven", "changed")
LOST_DETAIL = "no record of where it went"
TRAILER_OF: dict[HistoryWhat, str] = {"archived": "Apm-Archive", "superseded": "Apm-Supersede",
                                      "promoted": "Apm-Promote", "merged": "Apm-Move", "proven": "Apm-Proven",
                                      "changed": "Apm-Supersede"}


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
    merge: bool = False  # `git log --raw` shows no change of a merge commit: its files are not compared


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
    journal = f"{prefix}/{entry_id[:10]}.md"
    heading = f"## [{entry_id[:10]}]"
    lines = git.grep_lines(repo.root, "HEAD", [heading], [prefix])
    held = {path for path, text in lines if header_id(text) == entry_id}
    named = {token for _, value in (trailer for commit in mentions for trailer in commit.trailers)
             for token in value.replace("(", " ").split() if token.startswith(prefix + "/")}
    paths = {journal, *held, *named}
    if not held or (held != {journal} and not named):
        # Held nowhere now, or somewhere no trailer explains (moved by hand): every file that ever gained
        # or lost a heading of its date, so the files it passed through are followed too.
        paths.update(git.paths_changing(repo.root, "HEAD", heading, [prefix]))
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
        commit = _Commit(found.sha, found.date, found.subject, trailer_model.parse(found.message),
                         merge=len(found.parents) > 1)
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
    trigger = dict(commit.trailers).get("Apm-Trigger", "-")
    if what not in (None, "forgotten") and commit.merge and not (sources or targets or changed):
        # A merge (sync's budget step archives in the merge commit itself): its tree says whether it holds.
        fate, detail, file = _gone(repo, commit, entry_id, what, detail)
        if fate == "moved":
            return None  # still live where it was: the trailer is not borne out
        return HistoryEvent(commit.date, commit.sha[:12], trigger, fate, file or _trailer_source(commit, entry_id),
                            _trailer_source(commit, entry_id) if file else None, detail, commit.subject)
    if what != "forgotten" and not (sources or targets or changed):
        return None  # a trailer that names the entry in a commit that left it as it was: the files disagree
    if what != "forgotten" and sources and not targets:  # it left the files followed and arrived in none
        what, detail, file = _gone(repo, commit, entry_id, what, detail)
        return HistoryEvent(commit.date, commit.sha[:12], trigger, what, file or sources[0],
                            sources[0] if file else None, detail, commit.subject)
    if what in ("archived", "superseded") and targets and not any(_archived(repo, path) for path in targets):
        what, detail = "moved", f"not {what}: it is in {targets[0]}"  # the trailer says archive, the files do not
    if what is None:
        if sources and targets:  # into the archive by hand reads as what it is, as in `diff` (a whole journal moves)
            what = "archived" if any(_archived(repo, path) and not dated.journal_date(path.rsplit("/", 1)[-1])
                                     for path in targets) else "moved"
        elif targets:
            what = "created"
        else:
            what = "proven" if gained_proven else "changed"
    file = (targets or changed or sources or [_trailer_target(commit, entry_id) or ""])[0]
    source = sources[0] if sources and (targets or what in ("archived", "superseded", "promoted")) else None
    return HistoryEvent(commit.date, commit.sha[:12], trigger, what, file, source, detail, commit.subject)


def _archived(repo: MemoryRepo, path: str) -> bool:
    return (repo.memory_rel(path) or "").startswith(f"{names.ARCHIVE}/")


def _gone(repo: MemoryRepo, commit: _Commit, entry_id: str, claimed: HistoryWhat | None,
          detail: str) -> tuple[HistoryWhat, str, str | None]:
    """What became of an entry that left the files followed in `commit` and arrived in none of them, as
    the commit's memory says (one `git grep`): (what, detail, the file it is in now, if any).  A trailer's
    word is kept where it agrees; where nothing holds or names the entry, it is lost."""
    lines = git.grep_lines(repo.root, commit.sha, [f"## [{entry_id[:10]}]", entry_id], [repo.memory_prefix])
    held = [path for path, text in lines if text.startswith("## [") and header_id(text) == entry_id]
    naming: dict[str, str] = {}
    for path, text in lines:
        name, _, value = text.strip().removeprefix("- ").partition(":")
        if name in NAMING_FIELDS and entry_id in named_ids(name, value):
            naming.setdefault(name, path)
    if held:
        path = next((path for path in held if _archived(repo, path)), held[0])
        if _archived(repo, path):
            return (claimed if claimed in ("archived", "superseded") else "archived"), detail, path
        return "moved", "" if claimed in (None, "moved") else f"not {claimed}: it is in {path}", path
    fields: tuple[tuple[str, HistoryWhat], ...] = (("Supersedes", "superseded"), ("Merged", "merged"))
    named = [what for field, what in fields if field in naming]
    if named:
        what = claimed if claimed in named else named[0]
        field = "Supersedes" if what == "superseded" else "Merged"
        return what, detail if what == claimed else f"named by a {field} field in {naming[field]}", None
    trailer = f"; its {TRAILER_OF[claimed]} trailer is not borne out by the files" if claimed in TRAILER_OF else ""
    return "lost", LOST_DETAIL + trailer, None


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


def _trailer_source(commit: _Commit, entry_id: str) -> str:
    """The file a trailer of the commit says the entry left (`<id> <from> -> <to> …`)."""
    for _, value in commit.trailers:
        words = value.split()
        if words[:1] == [entry_id] and len(words) > 2 and words[2] == "->":
            return words[1]
    return ""


def _trailer_target(commit: _Commit, entry_id: str) -> str | None:
    for _, value in commit.trailers:
        words = value.split()
        if words[:1] == [entry_id] and "->" in words:
            return words[words.index("->") + 1]
    return None
