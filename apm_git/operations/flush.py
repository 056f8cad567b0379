"""A flush: the memory of one scope becomes one commit (docs/design.md 3, 7).  The `flush` verb,
`sync` and a consolidation that finds uncommitted memory run it, holding the write lock.

A flush never refuses to save memory, and never commits a loss.  It auto-initializes
what the scope is missing, refreshes INDEX.md and flush-state.json, and commits exactly
the scope's memory paths; whatever else the user has staged or changed stays as it was.
An entry the work tree lost with no record of where it went stays committed as HEAD has
it (operations/flush_keep.py).  What the commit holds is decided first, writing nothing
(operations/flush_plan.py); this module carries that plan out.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection
from typing import Any

from apm_git import clock, git
from apm_git.errors import BranchMoved
from apm_git.model import names
from apm_git.model.commit_text import clean_findings, flush_text
from apm_git.model.vocabulary import FlushTrigger
from apm_git.model.withhold import WithheldSection
from apm_git.operations.flush_plan import FlushPlan, plan_flush, scan
from apm_git.store import cache, layout
from apm_git.store.commit import commit
from apm_git.store.memory_index import keep_own_index
from apm_git.store.odd_names import skipped
from apm_git.store.repo import MemoryRepo
from apm_git.store.scope import Scope
from apm_git.store.state import load_flush_state, save_flush_state
from apm_git.store.transaction import Transaction

ALL = Scope("all")


@dataclasses.dataclass
class FlushResult:
    trigger: FlushTrigger
    scope: str
    session: str | None
    commit: str | None = None
    files: list[str] = dataclasses.field(default_factory=list)
    created: list[str] = dataclasses.field(default_factory=list)
    findings: list[str] = dataclasses.field(default_factory=list)
    withheld: list[str] = dataclasses.field(default_factory=list)  # files not committed as the work tree has them
    withheld_sections: list[WithheldSection] = dataclasses.field(default_factory=list)  # suspected secrets, left out
    kept_index: list[str] = dataclasses.field(default_factory=list)  # a person's own INDEX.md, moved to kept/
    too_large: list[str] = dataclasses.field(default_factory=list)  # withheld: too large to check
    lost: dict[str, str] = dataclasses.field(default_factory=dict)  # entry id -> file: kept as HEAD has it
    unreadable: list[str] = dataclasses.field(default_factory=list)  # not UTF-8: HEAD's version kept
    kept_files: list[str] = dataclasses.field(default_factory=list)  # gone from the work tree: HEAD's version kept
    notes: list[str] = dataclasses.field(default_factory=list)  # one line each on the above
    cut: list[str] = dataclasses.field(default_factory=list)  # the session id or message cut or redacted (hook)
    skipped: str | None = None


def flush_locked(
    repo: MemoryRepo,
    *,
    trigger: FlushTrigger = "manual",
    scope: Scope = ALL,
    session: str | None = None,
    message: str | None = None,
    if_idle: bool = False,
    hook: bool = False,
) -> FlushResult:
    """`flush` for a caller that holds the write lock already (`sync`).

    The session id and message are bounded and scanned for credentials (model/commit_text.py):
    refused before anything is written, or, for a flush an agent `hook` asked for, cut and redacted.
    """
    text = flush_text(session, message, hook=hook)
    session, message = text.session, text.message
    result = FlushResult(trigger, str(scope), session, cut=list(text.notes))
    pathspecs = scope.pathspecs(repo)
    head, changed = _status(repo, pathspecs)
    if if_idle:
        waiting = _still_busy(repo, changed)
        if waiting:
            result.skipped = waiting
            return result
    now = clock.now()
    # Deleted by hand (not with `git rm`): the work tree's side of the status says D.
    deleted = {repo.memory_rel(change.path) or change.path for change in changed if change.xy[1] == "D"}
    result.created = [repo.repo_path(rel) for rel in _auto_initialize(repo, scope, now.date(), deleted)]
    own_index = keep_own_index(repo) if scope.covers_dreaming else None
    result.kept_index = [repo.repo_path(own_index)] if own_index else []
    if result.created or result.kept_index:
        head, changed = _status(repo, pathspecs)
    if not changed:
        result.skipped = "nothing to flush"
        return result
    # INDEX.md and flush-state.json are rewritten below; they get their bytes back unless the commit lands.
    tx = Transaction(repo)
    tx.guard(names.INDEX)
    tx.guard(names.FLUSH_STATE)
    try:
        plan = plan_flush(repo, scope, now.date(), scan(repo, head, pathspecs, changed))
        return _execute(repo, plan, result, head, changed, scope, now, message)
    except BaseException:
        tx.rollback()
        raise


def _execute(
    repo: MemoryRepo, plan: FlushPlan, result: FlushResult, head: str | None, changed: list[git.Change],
    scope: Scope, now: dt.datetime, message: str | None,
) -> FlushResult:
    """Carry a plan out: the caches, INDEX.md and flush-state.json (both guarded by the caller's Transaction),
    then the commit on `head`, the commit the scan compared with."""
    for path, rows in plan.caches.items():
        cache.write(path, rows)
    result.findings, result.notes = [*result.findings, *plan.findings], list(plan.notes)
    result.withheld, result.withheld_sections = list(plan.withheld), list(plan.withheld_sections)
    result.too_large, result.lost, result.unreadable = list(plan.too_large), dict(plan.lost), list(plan.unreadable)
    result.kept_files = list(plan.kept_files)
    held = plan.held
    if all(change.path in held for change in changed):
        result.skipped = plan.why_nothing()
        return result
    if plan.index is not None:
        repo.write(names.INDEX, plan.index)
    flushed = [change.path for change in changed if change.path not in held]
    findings = clean_findings(result.findings + result.notes)  # into history: bounded, no credential
    _record_flush(repo, scope, flushed, now, result.trigger, result.session, findings)
    # Under the lock only the state file and INDEX.md changed since `changed` was read.
    rewritten = [repo.repo_path(names.FLUSH_STATE)]
    rewritten += [repo.repo_path(names.INDEX)] if scope.covers_dreaming else []
    changes = [change for change in changed if change.path not in rewritten]
    changes += git.status(repo.root, rewritten)
    paths = [change.path for change in changes if change.path not in held]
    paths += [path for path in plan.contents if path not in paths]
    if not paths:  # only machine-made files were missing, and they came back as HEAD has them
        result.skipped = "nothing to flush"
        return result
    result.files = sorted(set(paths))
    trailers = [("Apm-Trigger", result.trigger), ("Apm-Scope", str(scope)), ("Apm-Session", result.session or "none")]
    trailers += [("Apm-Finding", finding) for finding in findings]
    subject, body = _subject(message, len(result.files), result.trigger, str(scope), trailers)
    try:
        result.commit = commit(repo, paths, subject, trailers, body=body, contents=plan.contents, parent=head)
    except BranchMoved:
        # Someone committed while the flush checked (the user's code, a hook of theirs): when the scope's
        # memory is as the flush compared it, the same commit goes on top of theirs; else nothing changes.
        moved = git.head(repo.root)
        if head is None or moved is None or not git.same_paths(repo.root, head, moved, scope.pathspecs(repo)):
            raise
        result.commit = commit(repo, paths, subject, trailers, body=body, contents=plan.contents, parent=moved)
    return result


def _subject(message: str | None, files: int, trigger: str, scope: str,
             trailers: list[tuple[str, str]]) -> tuple[str, str | None]:
    """The commit's subject (after `memory: `) and body.  A message's first line is the subject, so
    `git log --oneline` and `apm-git log` show the user's words; the file count then joins the trigger
    and the scope in the trailers (`Apm-Files`), and the message's other lines are the body."""
    lines = [" ".join(line.split()) for line in (message or "").splitlines()]
    first = next((line for line in lines if line), "")
    if not first:
        return f"flush {files} file{'s' if files != 1 else ''} ({trigger}, {scope})", message
    trailers.append(("Apm-Files", str(files)))
    rest = "\n".join(lines[lines.index(first) + 1:]).strip()
    return f"flush: {first}", rest or None


def _status(repo: MemoryRepo, pathspecs: list[str]) -> tuple[str | None, list[git.Change]]:
    """HEAD's commit and the scope's changes but those whose names are not UTF-8: never committed, said once
    (store/odd_names.py).  One git process for both: the scan compares with that commit, and the commit
    is made on it (the branch moves only if it is still there)."""
    head, changes = git.status_at_head(repo.root, pathspecs)
    return head, [change for change in changes if not skipped(change.path)]


def _still_busy(repo: MemoryRepo, changes: list[git.Change]) -> str | None:
    """Why an idle flush should wait: no changes, or a change newer than flush.idle_minutes."""
    if not changes:
        return "nothing to flush"
    newest = 0.0
    for change in changes:
        path = repo.root / change.path
        if path.exists():
            newest = max(newest, path.stat().st_mtime)
    idle = clock.now().timestamp() - newest
    needed = repo.config.flush.idle_minutes * 60
    if idle < needed:
        return f"not idle yet: the newest change is {int(idle // 60)} min old, flush.idle_minutes is {needed // 60}"
    return None


def _auto_initialize(repo: MemoryRepo, scope: Scope, today: dt.date, deleted: Collection[str]) -> list[str]:
    """APM rule 6: create the scope's missing indexes and files, never overwriting one.  A file deleted
    by hand (`deleted`: tracked, not staged) is not missing but gone: flush keeps its HEAD version."""
    from apm_git.store.state import group_names

    created: list[str] = []
    if scope.kind in ("all", "main"):
        created += layout.ensure_main(repo, today, deleted)
    if scope.kind == "all":
        mapping = group_names(repo)
        created += layout.ensure_groups(repo, sorted(set(mapping.values())), today, mapping, deleted)
    if scope.group is not None:
        created += layout.ensure_group(repo, scope.group, today, skip=deleted)
    return created


def _record_flush(
    repo: MemoryRepo, scope: Scope, flushed: list[str], now: dt.datetime, trigger: FlushTrigger, session: str | None,
    findings: list[str],
) -> None:
    """Mark in flush-state.json only what this flush committed (docs/commits.md, "Quiet commits"):
    a group's entry when that group's files were among the flushed changes, `main_session` when
    anything else of the memory was (the state files aside), so a one-line hit is a one-entry diff."""
    state = load_flush_state(repo)
    mark: dict[str, Any] = {"last_flush_time": clock.stamp(now), "last_trigger": trigger}
    if session:
        mark["last_session"] = session
    rels = [repo.memory_rel(path) for path in flushed]  # None: apm.yaml, outside the memory dir
    zones = {names.MAIN if rel is None else names.zone(rel) for rel in rels if rel not in names.STATE_FILES}
    flushed_groups = sorted(  # groups/Foo/ is no group
        group for group in (zone.split("/", 1)[1] for zone in zones if zone.startswith(f"{names.GROUPS}/"))
        if group == scope.group or layout.is_group(repo, group)
    )
    groups = state["groups"]
    if scope.covers_dreaming and any(not zone.startswith(f"{names.GROUPS}/") for zone in zones):
        state["main_session"].update(mark)
    for group in flushed_groups:
        if scope.kind == "all" or group == scope.group:
            groups.setdefault(group, {}).update(mark)
            groups["last_flush_time"] = mark["last_flush_time"]
    # Findings of the last flush replace the previous flush's; the agent's own items stay.
    items = [item for item in state["pending_items"] if not (isinstance(item, dict) and item.get("source") == "flush")]
    items += [{"source": "flush", "added": mark["last_flush_time"], "finding": finding} for finding in findings]
    state["pending_items"] = items
    save_flush_state(repo, state)
