"""Bring one fetched commit into the local branch: a fast-forward or an entry-level merge, landed
through the commit journal like every apm-git commit (docs/sync.md, docs/crash-safety.md).

The memory dir is merged entry by entry (apm_git.merge) and checked for conservation; every other
path takes git's own merge (`merge-tree --write-tree`).  A path outside the memory dir that the
incoming side changes must be clean here (work tree and index as the local commit has them), or
nothing is changed and sync stops: apm-git never overwrites a user's file.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Mapping, Sequence

from apm_git import clock, git
from apm_git.dreaming.plan import RemPlan, rem_trailers
from apm_git.dreaming.plan_rem import RemOutcome, plan_budget
from apm_git.errors import ConfigError, StateError
from apm_git.merge.readable import OURS, THEIRS, Refusal, readable_texts, screen
from apm_git.model import dated, names
from apm_git.model import trailers as trailer_model
from apm_git.model.config import CONFIG_FILE, Config
from apm_git.model.limits import MAX_FILE_BYTES, megabytes
from apm_git.model.records import count_lines
from apm_git.model.vocabulary import SyncStep
from apm_git.store import landing
from apm_git.store.clone import clone_trailer
from apm_git.store.commit import note_identity
from apm_git.store.repo import MemoryRepo
from apm_git.store.state import refuse_unusable_incoming

BACKUP_PREFIX = "refs/apm-git/backup/"
KEEP_BACKUPS = 50  # the newest backup refs kept; older ones are ancestors of the branch anyway
LINK_MODES = ("120000", "160000")  # a symlink or a submodule: not written as a file's bytes
MERGE_DRIVER = "apm-memory"  # the merge driver `.gitattributes` names for the memory files (operations/setup.py)


@dataclasses.dataclass
class JournalOverBudget:
    """A journal the merge put over its line budget: the union of both sides' items, left whole."""

    path: str  # repo-relative
    lines: int
    budget: int


@dataclasses.dataclass
class Integrated:
    """One fetched commit brought into the local branch."""

    source: str  # `origin/main`
    kind: SyncStep
    commit: str  # the local branch after it
    incoming: str  # the fetched commit
    backup: str | None = None  # the ref naming the local branch as it was, before a merge
    conflicts: list[str] = dataclasses.field(default_factory=list)  # kept for a person, linked by Conflicts:
    archived: list[str] = dataclasses.field(default_factory=list)  # `<id> <from> -> <to> (score N)`: for a budget
    unmerged: list[str] = dataclasses.field(default_factory=list)  # files left to git's line merge, with a conflict
    left: list[str] = dataclasses.field(default_factory=list)  # work-tree files changed meanwhile, left as they were
    notes: list[str] = dataclasses.field(default_factory=list)  # warnings: the merged apm.yaml did not read, …
    # journals the merge put over their line budget (`budgets: journal:`): no merge step may shorten a journal
    journals_over_budget: list[JournalOverBudget] = dataclasses.field(default_factory=list)


def integrate(repo: MemoryRepo, head: str, theirs: str, source: str) -> Integrated | None:
    """Bring `theirs` into the branch at `head`; None when it holds nothing new."""
    root = repo.root
    if theirs == head or git.is_ancestor(root, theirs, head):
        return None
    refuse_unusable_incoming(repo, head, theirs, source)  # a state file no flush could read never lands
    if git.is_ancestor(root, head, theirs):
        left = land_tree(repo, head, theirs, f"memory: fast-forward to {source} (sync)")
        return Integrated(source, "fast-forward", theirs, theirs, left=left)
    return merge(repo, head, theirs, source)


def merge(repo: MemoryRepo, head: str, theirs: str, source: str) -> Integrated:
    from apm_git.merge.conserve import lost_entries
    from apm_git.merge.tree import merge_memory

    root = repo.root
    # apm-git's own merge driver (`.gitattributes`) would run once per memory file: sync merges those itself.
    tree, git_conflicts = git.merge_tree(root, head, theirs, ours_for=[MERGE_DRIVER])
    memory = repo.memory_prefix
    base, base_side = merge_base_side(repo, head, theirs)
    sides = [base_side, read_memory(repo, head), read_memory(repo, theirs)]
    screened = screen([side.blobs for side in sides], [side.unreadable for side in sides], memory_dir=memory)
    if screened.refused:
        raise StateError(refusal_line(repo, screened.refused[0], base, (head, theirs), source))
    for side in sides:  # versions no side can read, or one side's alone: git's merge (the tree) has them
        for path in screened.aside:
            side.texts.pop(path, None)
    (base_files, base_blobs), (ours_files, ours_blobs), (theirs_files, theirs_blobs) = (
        (side.texts, side.blobs) for side in sides)
    # The merged tree's apm.yaml decides the budgets, the routing and the append-only files of the merge.
    config, note = merged_config(repo, tree)
    merged_repo = repo if config is repo.config else MemoryRepo(repo.root, repo.git_dir, config)
    outcome = merge_memory(base_files, ours_files, theirs_files, memory_dir=memory, append_only=config.append_only)
    files = dict(outcome.files)
    budget = within_budgets(merged_repo, files, ours_files, theirs_files)
    index = repo.repo_path(names.INDEX)
    if index in outcome.rebuild or budget.plan.archivals or outcome.conflicts:  # its rows, or its Conflicts section
        files[index] = merged_index(merged_repo, files, ours_files.get(index))
    lost = lost_entries(base_files, ours_files, theirs_files, files, memory_dir=memory)
    if lost:
        raise StateError(
            f"merging {source} would lose {len(lost)} entr{'y' if len(lost) == 1 else 'ies'} "
            f"({', '.join(lost[:5])}{', …' if len(lost) > 5 else ''}); nothing was changed — please report this, "
            f"and merge by hand (`git merge {source}`) meanwhile",
        )
    handled = set(files)
    refused = [path for path in git_conflicts if path not in handled]
    for path in sorted({*ours_blobs, *theirs_blobs} - handled):  # memory files that are not text
        old, mine, other = base_blobs.get(path), ours_blobs.get(path), theirs_blobs.get(path)
        if old != mine and old != other and mine != other:
            refused.append(path)  # changed on both sides, and not text: nothing to merge it by
    if refused:
        raise StateError(
            f"{source} and this branch both changed {', '.join(refused[:5])} (outside the memory apm-git merges); "
            f"nothing was changed: merge by hand (`git merge {source}`), then run `apm-git sync` again",
        )
    conflicts = [str(conflict) for conflict in outcome.conflicts]
    archives = rem_trailers(budget.plan, memory)
    trailers = [("Apm-Merge", source), *(("Apm-Conflict", conflict) for conflict in conflicts)]
    trailers += [("Apm-Unmerged", path) for path in outcome.unmerged]
    trailers += [*archives, ("Apm-Trigger", "sync"), clone_trailer(repo.git_dir)]
    text = trailer_model.message(f"merge {source} (sync)", trailers, budget_note(budget.plan, memory))
    contents = {path: None if data is None else data.encode("utf-8") for path, data in files.items()}
    env = clock.git_date_env()
    built = git.build_commit(root, repo.git_dir, head, [], text, contents=contents, env=env,
                             other_parents=[theirs], start=tree)
    note_identity(repo, built)
    backup = write_backup(repo, head)
    left = land_tree(repo, head, built.commit, text.split("\n", 1)[0], env=env)
    return Integrated(source, "merge", built.commit, theirs, backup, conflicts, [value for _, value in archives],
                      list(outcome.unmerged), left, [note] if note else [],
                      journals_over(merged_repo, files, ours_files, theirs_files))


def merged_config(repo: MemoryRepo, tree: str) -> tuple[Config, str | None]:
    """The settings of the merged tree's apm.yaml (git's merge of both sides' files), and None; the local
    settings and why, when that file is missing, does not read, or moves the memory dir."""
    spec = f"{tree}:{CONFIG_FILE}"
    data = git.cat_files(repo.root, [spec]).get(spec)
    if data is None:
        return repo.config, f"the merge has no {CONFIG_FILE}: its budgets are those of the local {CONFIG_FILE}"
    try:
        if data == (repo.root / CONFIG_FILE).read_bytes():
            return repo.config, None  # the same file: parsed already
    except OSError:
        pass
    from apm_git.store.config import parse_config

    try:
        config = parse_config(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        problem = f"is not valid UTF-8 (byte {error.start})"
    except ConfigError as error:
        problem = f"does not read ({error})"
    else:
        if config.memory_dir == repo.config.memory_dir:
            return config, None
        problem = f"moves memory_dir to {config.memory_dir!r}"
    return repo.config, (f"the merged {CONFIG_FILE} {problem}: the merge used the budgets and routing of the local "
                         f"{CONFIG_FILE}; fix {CONFIG_FILE} and commit it")


def within_budgets(
    repo: MemoryRepo, files: dict[str, str | None], ours: Mapping[str, str], theirs: Mapping[str, str],
) -> RemOutcome:
    """REM's budget step over the files the merge put over their line budget (`files`, repo-relative, are
    updated in place): the lowest-scored entries go to the month's archive, as a REM run archives them.

    A file is taken when it is one REM scores (a category file, a group's experience.md), its merged
    text is over its budget, and at least one side met the budget: a file both sides already had over
    its budget was not put there by the merge, and is left to REM (and to lint) as it was.  The budgets
    and routing are `repo.config`: `merge` passes the settings of the merged apm.yaml."""
    config = repo.config
    scored = {*config.routing.values()}
    texts = {}
    for path, text in files.items():
        rel = repo.memory_rel(path)
        if text is None or rel is None:
            continue
        parts = rel.split("/")
        if rel not in scored and not (len(parts) == 3 and parts[0] == names.GROUPS and parts[2] == names.EXPERIENCE):
            continue
        budget = config.budget_for(rel)
        if budget is None or count_lines(text) <= budget:
            continue
        if all(side.get(path) is not None and count_lines(side[path]) > budget for side in (ours, theirs)):
            continue
        texts[rel] = text
    today = clock.today()
    archive = repo.repo_path(dated.archive_file(today))
    outcome = plan_budget(texts, files.get(archive), today, config)
    for rel, text in outcome.writes.items():
        files[repo.repo_path(rel)] = text
    return outcome


def journals_over(
    repo: MemoryRepo, files: Mapping[str, str | None], ours: Mapping[str, str], theirs: Mapping[str, str],
) -> list[JournalOverBudget]:
    """The journals the merge put over their line budget: over it in `files`, within it (or absent) on at
    least one side, and not one side's text unchanged.  Deep sleep promotes a journal's items and REM never
    archives them, so the merge keeps every item and reports the file: the journal budget of a memory
    several agents write is a setting sized for them (docs/sync.md)."""
    found = []
    for path, text in sorted(files.items()):
        rel = repo.memory_rel(path)
        if text is None or rel is None or dated.journal_date(rel) is None:
            continue
        budget = repo.config.budget_for(rel)
        lines = count_lines(text)
        if budget is None or lines <= budget or text in (ours.get(path), theirs.get(path)):
            continue
        if any(side.get(path) is None or count_lines(side[path]) <= budget for side in (ours, theirs)):
            found.append(JournalOverBudget(path, lines, budget))
    return found


def budget_note(plan: RemPlan, prefix: str) -> str | None:
    """The merge commit's body when the budget step ran: what it archived, and what stays over budget."""
    if not plan.archivals and not plan.over_budget:
        return None
    moved: dict[str, int] = {}
    for archival in plan.archivals:
        moved[archival.source] = moved.get(archival.source, 0) + 1
    lines = [f"The merge put {prefix}/{source} over its line budget: its {count} lowest-scored entr"
             f"{'y' if count == 1 else 'ies'} archived (REM's budget step)." for source, count in moved.items()]
    lines += [f"{prefix}/{over.file} stays over budget ({over.lines} > {over.budget} lines): {over.why()}."
              for over in plan.over_budget]
    return "\n".join(lines)


def merged_index(repo: MemoryRepo, files: Mapping[str, str | None], ours: str | None) -> str:
    """INDEX.md built from the merged files (not the disk); ours when only its date would change."""
    from apm_git.store.memory_index import _undated, build_index

    texts = {rel: text for path, text in files.items() if (rel := repo.memory_rel(path)) is not None}
    gone = [rel for rel in repo.markdown_files() if rel not in texts]  # on disk, in neither side: not merged
    text = build_index(repo, clock.today(), exclude=gone, instead=texts)
    return ours if ours is not None and _undated(ours) == _undated(text) else text


@dataclasses.dataclass
class MemorySide:
    """The memory dir in one commit of a merge, by repo-relative path."""

    texts: dict[str, str]  # the files the merge reads: UTF-8, within the read limit, Markdown without NULs
    blobs: dict[str, str]  # every file's blob id
    unreadable: dict[str, str]  # Markdown and state files the merge cannot read -> why (merge/readable.py)


def read_memory(repo: MemoryRepo, rev: str) -> MemorySide:
    """The memory dir in a commit.  No file over the read limit is read (git keeps it); a file that is not
    text has no text: one side's change is taken as git's merge has it, both sides' stop the merge, and a
    Markdown file that a side made unreadable stops it too (`screen`)."""
    found = git.tree_texts(repo.root, rev, [f":(literal){repo.memory_prefix}"], limit=MAX_FILE_BYTES)
    texts, unreadable = readable_texts(found.texts, found.datas, found.sizes, memory_dir=repo.memory_prefix)
    return MemorySide(texts, found.blobs, unreadable)


def merge_base_side(repo: MemoryRepo, head: str, theirs: str) -> tuple[str | None, MemorySide]:
    """The merge base and its memory.  A criss-cross history (two agents on branches of their own that merged
    each other's work at once) has several best common ancestors; the base is then a virtual one, their
    memories merged in turn (each pair from its own merge base), as git's recursive merge does: a hit that
    both sides hold through one of them is in the base, so it counts once, not twice."""
    from apm_git.merge.tree import merge_memory

    bases = git.merge_bases(repo.root, head, theirs)
    if not bases:
        return None, MemorySide({}, {}, {})
    side = read_memory(repo, bases[0])
    for other in bases[1:]:
        below = git.merge_base(repo.root, bases[0], other)
        lower, more = read_memory(repo, below) if below else MemorySide({}, {}, {}), read_memory(repo, other)
        merged = merge_memory(lower.texts, side.texts, more.texts, memory_dir=repo.memory_prefix,
                              append_only=repo.config.append_only)
        side = MemorySide({path: text for path, text in merged.files.items() if text is not None}, side.blobs,
                          {**more.unreadable, **side.unreadable})
    return bases[0], side


def refusal_line(repo: MemoryRepo, refusal: Refusal, base: str | None, commits: tuple[str, str], source: str) -> str:
    """The one line that says which file stopped a merge, and the commit that made it so."""
    rev = commits[refusal.side - OURS]
    where = source if refusal.side == THEIRS else "this branch"
    changes = git.log_changes(repo.root, f"{base}..{rev}" if base else rev, [refusal.path])
    made = f" since commit {changes[0].commit.sha[:12]} ({changes[0].commit.subject!r})" if changes else ""
    return (f"{refusal.path} {refusal.why} on {where}{made}, so apm-git cannot merge its entries; nothing was "
            f"changed: restore it as UTF-8 Markdown under {megabytes(MAX_FILE_BYTES)} on that side (or split it), "
            f"or merge by hand (`git merge {source}`), then run `apm-git sync` again")


def land_tree(
    repo: MemoryRepo, old: str, new: str, subject: str, *, env: Mapping[str, str] | None = None,
) -> list[str]:
    """Move the branch from `old` to the commit `new` and bring the index and work tree to it, path by
    path: only the paths the two commits differ in, so staged work of the user's stays staged."""
    root = repo.root
    paths = git.changed_paths(root, old, new)
    before, after = git.tree_entries(root, old, paths), git.tree_entries(root, new, paths)
    links = [path for path in paths if any(entry and entry[0] in LINK_MODES for entry in (before[path], after[path]))]
    if links:
        raise StateError(f"{', '.join(links[:5])}: a symlink or submodule changed; nothing was changed: "
                         "merge by hand with git, then run `apm-git sync` again")
    blobs = git.cat_files(root, [entry[1] for entry in (*before.values(), *after.values()) if entry])
    old_bytes = {path: blobs.get(entry[1]) if entry else None for path, entry in before.items()}
    new_bytes = {path: blobs.get(entry[1]) if entry else None for path, entry in after.items()}
    outside = [path for path in paths if repo.memory_rel(path) is None]
    dirty = dirty_paths(repo, outside, before, old_bytes)
    if dirty:
        raise StateError(
            f"{', '.join(dirty[:5])} changed on the remote and here too (edited or staged, not committed); nothing "
            "was changed: commit or stash your change (`git stash`), then run `apm-git sync` again",
        )
    # Files that gain (new, changed) first, removals last: even the work tree alone never lacks an entry.
    order = sorted(paths, key=lambda path: (new_bytes[path] is None, path))
    updates = [landing.Update(path, old_bytes[path], new_bytes[path]) for path in order]
    built = git.Built(new, {path: after[path] for path in paths})
    left = landing.land(repo, built, old, subject, updates=updates, env=env)
    for path in paths:
        entry = after[path]
        if entry is not None and entry[0] == "100755" and path not in left:
            target = root / path
            target.chmod(target.stat().st_mode | 0o111)
    return left


def dirty_paths(
    repo: MemoryRepo, paths: Sequence[str], before: Mapping[str, tuple[str, str] | None],
    old_bytes: Mapping[str, bytes | None],
) -> list[str]:
    """The paths whose index entry or work-tree bytes differ from the local commit's."""
    index = git.index_entries(repo.root, list(paths)) if paths else {}
    dirty = []
    for path in paths:
        try:
            current = (repo.root / path).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            current = None
        except IsADirectoryError:
            current = b""  # a folder where the file should be: in the way
        staged = index.get(path)
        expected = before[path]
        if current != old_bytes[path] or (staged[1] if staged else None) != (expected[1] if expected else None):
            dirty.append(path)
    return dirty


def write_backup(repo: MemoryRepo, head: str) -> str:
    """Name the local branch as it was before a merge moves it, and keep only the newest KEEP_BACKUPS."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    ref = f"{BACKUP_PREFIX}{stamp}-{os.getpid()}"
    git.update_ref(repo.root, ref, head, None, "apm-git sync: backup before a merge")
    refs = git.refs_under(repo.root, BACKUP_PREFIX)
    for old in refs[:-KEEP_BACKUPS]:
        git.delete_ref(repo.root, old)
    return ref
