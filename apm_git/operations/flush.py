"""A flush: the memory of one scope becomes one commit (docs/design.md 3, 7).  The `flush` verb,
`sync` and a consolidation that finds uncommitted memory run it, holding the write lock.

A flush never refuses to save memory, and never commits a loss.  It auto-initializes
what the scope is missing, refreshes INDEX.md and flush-state.json, and commits exactly
the scope's memory paths; whatever else the user has staged or changed stays as it was.
An entry the work tree lost with no record of where it went stays committed as HEAD has
it (operations/flush_keep.py).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Collection
from typing import Any

from apm_git import clock, git
from apm_git.checks import baseline, budget, index_fresh, no_secrets
from apm_git.checks.run import CHECKS, run_checks
from apm_git.errors import ApmGitError, InvalidUtf8
from apm_git.model import names
from apm_git.model.commit_text import clean_findings, flush_text
from apm_git.model.vocabulary import FlushTrigger
from apm_git.model.withhold import WithheldSection
from apm_git.operations.flush_keep import (
    KeptAtFlush,
    committed_index,
    files_line,
    keep_losses,
    loss_line,
    unreadable_line,
    withhold_secrets,
)
from apm_git.operations.gather import WORKTREE, Sides, gather
from apm_git.store import layout
from apm_git.store.commit import commit
from apm_git.store.memory_index import keep_own_index, refresh_index
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
    changed = _status(repo, pathspecs)
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
        changed = _status(repo, pathspecs)
    if not changed:
        result.skipped = "nothing to flush"
        return result
    # INDEX.md and flush-state.json are rewritten below; they get their bytes back unless the commit lands.
    tx = Transaction(repo)
    tx.guard(names.INDEX)
    tx.guard(names.FLUSH_STATE)
    try:
        kept = _check(repo, scope, pathspecs, now.date(), result, changed)
        # A file with a withheld section is committed less that section (kept.contents), not held back whole.
        held = (set(result.withheld) - set(kept.contents)) | set(kept.as_head)
        if all(change.path in held for change in changed):
            tx.rollback()
            result.skipped = "nothing to flush: " + (
                "the only changes are withheld (suspected secrets, files too large)"
                if result.withheld and not set(kept.as_head) - set(result.withheld)
                else "every change is held back (see above)")
            return result
        flushed = [change.path for change in changed if change.path not in held]
        findings = clean_findings(result.findings + result.notes)  # into history: bounded, no credential
        _record_flush(repo, scope, flushed, now, trigger, session, findings)
        # Under the lock only the state file and INDEX.md changed since `changed` was read.
        rewritten = [repo.repo_path(names.FLUSH_STATE)]
        rewritten += [repo.repo_path(names.INDEX)] if scope.covers_dreaming else []
        changes = [change for change in changed if change.path not in rewritten]
        changes += git.status(repo.root, rewritten)
        paths = [change.path for change in changes if change.path not in held]
        paths += [path for path in kept.contents if path not in paths]
        if not paths:  # only machine-made files were missing, and they came back as HEAD has them
            result.skipped = "nothing to flush"
            return result
        result.files = sorted(set(paths))
        trailers = [("Apm-Trigger", trigger), ("Apm-Scope", str(scope)), ("Apm-Session", session or "none")]
        trailers += [("Apm-Finding", finding) for finding in findings]
        subject, body = _subject(message, len(result.files), trigger, str(scope), trailers)
        result.commit = commit(repo, paths, subject, trailers, body=body, contents=kept.contents)
    except BaseException:
        tx.rollback()
        raise
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


def _check(
    repo: MemoryRepo, scope: Scope, pathspecs: list[str], today: dt.date, result: FlushResult,
    changed: list[git.Change],
) -> KeptAtFlush:
    """The checks of docs/design.md 5 on the scope's changes (HEAD -> work tree), in-process.

    Nothing here refuses to save memory: findings are recorded, and only the sections that
    look like they hold a secret are withheld from the commit (the rest of their file is
    committed; operations/flush_keep.withhold_secrets).  Lost entries and unreadable
    files keep their HEAD version in the commit (`keep_losses`).  INDEX.md is rebuilt
    (dreaming scopes) without any new file that is withheld, so it never names a file
    the commit lacks, and with every file the commit keeps.  `changed`: the status of the scope just
    read, which spares the scan two git processes when the scope is the whole memory dir.
    """
    everything = repo.memory_prefix in pathspecs and not any(spec.startswith(":") for spec in pathspecs)
    status = changed if everything else None
    try:
        snap = gather(repo, Sides(git.head(repo.root), WORKTREE, "HEAD", "the work tree"), pathspecs=pathspecs,
                      base_texts=True, status=status)
    except ApmGitError as error:
        result.findings.append(f"the checks could not run: {error}")
        snap = None
    if snap is not None and (problem := baseline.unreadable(snap)):
        result.findings.append(problem)  # said once; the checks run as if there were no baseline
    kept = KeptAtFlush()
    if snap is not None:
        secrets, new_secrets = baseline.withheld_secrets(snap, no_secrets.validate(snap))
        result.too_large = sorted(snap.oversized)  # unread, so unchecked: withheld like a secret
        result.withheld = sorted({finding.path for finding in secrets} | set(result.too_large))
        result.findings += [str(finding) for finding in [*new_secrets, *budget.too_large(snap)]]
        withheld = withhold_secrets(snap, secrets)
        result.withheld_sections = withheld.sections
        snap.leave_out([*withheld.whole, *result.too_large])
        for path, committed in withheld.contents.items():
            snap.commit_as(path, committed)
        unreadable = dict(snap.unreadable)
        kept = keep_losses(snap, repo.root)
        for path, committed in withheld.contents.items():  # keep_losses read the same text when it kept an entry
            if path not in kept.contents and path not in kept.as_head:
                kept.contents[path] = committed.encode("utf-8")
        partial = set(withheld.contents)
        result.lost = dict(kept.lost)
        result.kept_files = list(kept.files)
        result.unreadable = list(kept.unreadable)
        result.notes += [unreadable_line(path, *unreadable[path]) for path in kept.unreadable]
        result.notes += [loss_line(kept)] if kept.lost else []
        result.notes += [files_line(kept)] if kept.files else []
    else:
        partial = set()
    index_error = None
    if scope.covers_dreaming:
        # Nothing derived from a withheld section is committed: the index reads the committed text.
        whole = [path for path in result.withheld if path not in partial]
        added = [repo.memory_rel(path) or path for path in whole if snap and path not in snap.base]
        index = repo.repo_path(names.INDEX)
        base = snap.base if snap else {}
        withheld_texts = {repo.memory_rel(path) or path: base[path] for path in whole if path in base}
        withheld_texts.update({repo.memory_rel(path) or path: snap.new[path] for path in partial if snap})
        # The scan's blob ids spare the rebuild a stat per unchanged file (store/memory_index.py).
        blobs = {repo.memory_rel(path) or path: blob for path, blob in snap.blobs.items()} if snap else {}
        try:
            if refresh_index(repo, today, exclude=added, instead=withheld_texts, blobs=blobs) and snap is not None:
                snap.set_new(index, repo.read(names.INDEX) or "")
        except InvalidUtf8 as error:  # saving memory matters more than a fresh index
            index_error = str(error)
            if not any(str(error).startswith(f"{path}:") for path in kept.unreadable):  # said once
                result.findings.append(index_error)
        text = committed_index(repo, snap, kept, today, added, withheld_texts) if snap is not None else None
        if text is not None and snap is not None and text == snap.base.get(index):
            kept.as_head.append(index)  # the commit's INDEX.md is HEAD's: nothing to commit for it
            snap.leave_out([index])
        elif text is not None and snap is not None and text != snap.new.get(index):
            kept.contents[index] = text.encode("utf-8")
            snap.set_new(index, text)
    if snap is not None:
        hooks = [hook for hook in CHECKS if hook != no_secrets.ID and (scope.covers_dreaming or hook != index_fresh.ID)]
        for finding in run_checks(snap, hooks):
            if not (index_error and index_error.startswith(f"{finding.path}:{finding.line}: ")):  # said once
                result.findings.append(str(finding))
    return kept


def _status(repo: MemoryRepo, pathspecs: list[str]) -> list[git.Change]:
    """The scope's changes but those whose names are not UTF-8: never committed, said once (store/odd_names.py)."""
    return [change for change in git.status(repo.root, pathspecs) if not skipped(change.path)]


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
