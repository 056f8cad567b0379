"""`apm-git remember`: APM write-back (rule 4), without committing (the next flush does).

- a decision: a record appended to the group's `experience.md` (for `main`: to today's journal,
  from where deep sleep promotes it to `decisions.md`, as the Dreaming rule "write decisions the
  moment they are made" asks);
- a task status: the task's line in `attention.md` under `## Tasks`, added or rewritten;
- routing rows: appended to the index; a retired row is marked `[DEPRECATED]`, never removed.

A scope without memory is initialized first (APM rule 6), never overwriting a file.
"""
from __future__ import annotations

import dataclasses

from apm_git import clock
from apm_git.errors import FindingsError, SecretRefused, UsageError
from apm_git.model import dated, names, routing, tasks
from apm_git.model.vocabulary import DecisionValue, RememberAction
from apm_git.operations.journal import allowed, append_record, refusal, suspected
from apm_git.store import layout
from apm_git.store.repo import MemoryRepo
from apm_git.store.scope import Scope, parse_scope
from apm_git.store.writer import write_lock

# The rows write-back adds when the index has no active row for the file it writes.
DEFAULT_ROWS = {
    "experience.md": (("decision", "lesson", "why", "experience"), "P2"),
    "attention.md": (("task", "todo", "blocker", "status"), "P0"),
}


@dataclasses.dataclass
class RememberResult:
    scope: str
    action: RememberAction
    file: str
    line: int | None = None
    entry_id: str | None = None
    detail: str = ""
    created: list[str] = dataclasses.field(default_factory=list)
    rows_added: list[str] = dataclasses.field(default_factory=list)
    rows_deprecated: list[int] = dataclasses.field(default_factory=list)


def memory_scope(text: str) -> Scope:
    scope = parse_scope(text)
    if scope.kind == "all":
        raise UsageError("remember needs one scope: --scope main or --scope group:NAME")
    return scope


def _folder(scope: Scope) -> str:
    return layout.group_dir(scope.group) if scope.group else names.MAIN


def _index(scope: Scope) -> str:
    return layout.group_index(scope.group) if scope.group else names.MAIN_INDEX


def _initialize(repo: MemoryRepo, scope: Scope, result: RememberResult) -> None:
    today = clock.today()
    made = layout.ensure_group(repo, scope.group, today) if scope.group else layout.ensure_main(repo, today)
    result.created = [repo.repo_path(rel) for rel in made]


def _ensure_row(repo: MemoryRepo, scope: Scope, file: str, result: RememberResult) -> None:
    """Append the default routing row for `file` when the index routes nothing to it."""
    text = repo.read(_index(scope)) or ""
    if any(route.file == file for route in routing.parse_routing(text).active):
        return
    keywords, priority = DEFAULT_ROWS[file]
    row = routing.render_row(keywords, file, priority)
    repo.write(_index(scope), routing.append_row(text, row))
    result.rows_added.append(row)


def remember_decision(
    repo: MemoryRepo, scope: Scope, text: str, *, title: str | None = None, value: DecisionValue = "MEDIUM",
    allow_secret: bool = False,
) -> RememberResult:
    result = RememberResult(str(scope), "decision", "")
    with write_lock(repo):
        _initialize(repo, scope, result)
        today = clock.today()
        if scope.group is None:
            rel, new_file = dated.journal_name(today), layout.new_journal(today)
        else:
            rel, new_file = f"{_folder(scope)}/experience.md", ""
        entry = append_record(repo, rel, new_file, text, kind="decision", title=title, value=value,
                              allow_secret=allow_secret)
        if scope.group is not None:
            _ensure_row(repo, scope, "experience.md", result)
    result.file, result.line, result.entry_id = entry.file, entry.line, entry.entry_id
    result.detail = f"appended {entry.entry_id}"
    return result


def remember_task(
    repo: MemoryRepo, scope: Scope, task: str, status: str, *, allow_secret: bool = False,
) -> RememberResult:
    task = " ".join(task.split())
    status = " ".join(status.split())
    if not task:
        raise UsageError("--task is empty; give the task's text")
    if not status or "]" in status or "[" in status:
        raise UsageError(f"--status {status!r} must be a short word without brackets (e.g. todo, doing, blocked, done)")
    rel = f"{_folder(scope)}/attention.md"
    flagged = suspected(tasks.render_task(task, status, clock.today()))
    if flagged and not allow_secret:
        raise SecretRefused(refusal(repo.repo_path(rel), "the task", flagged[1], allow_secret))
    task = allowed(task) if flagged else task
    result = RememberResult(str(scope), "task", repo.repo_path(rel))
    with write_lock(repo):
        _initialize(repo, scope, result)
        edit = tasks.set_task(repo.read(rel) or "", task, status, clock.today())
        repo.write(rel, edit.text)
        _ensure_row(repo, scope, "attention.md", result)
    result.line = edit.line
    result.detail = f"added task [{status}]" if edit.added else f"task status {edit.previous} -> {status}"
    return result


def remember_route(repo: MemoryRepo, scope: Scope, file: str, keywords: list[str], priority: str) -> RememberResult:
    """Route `keywords` to `file`; an earlier active row for the file is marked [DEPRECATED]."""
    keywords = [word for word in dict.fromkeys(" ".join(k.split()).lower() for k in keywords) if word]
    if not keywords:
        raise UsageError("--keywords is empty; give comma-separated trigger keywords")
    if any("|" in word for word in keywords):
        raise UsageError("--keywords may not contain '|' (it separates the table's cells)")
    if priority not in routing.PRIORITIES:
        raise UsageError(f"--priority {priority!r} must be one of P0, P1, P2, P3")
    if not routing.safe_file(file):
        raise UsageError(f"--route {file!r} must be a .md path inside {_folder(scope)}/ (no '..', not absolute)")
    index = _index(scope)
    result = RememberResult(str(scope), "route", repo.repo_path(index))
    with write_lock(repo):
        if not repo.exists(f"{_folder(scope)}/{file}"):
            raise UsageError(f"{repo.repo_path(_folder(scope) + '/' + file)} does not exist; create it before "
                             "routing to it (a routing table may only name files that exist)")
        _initialize(repo, scope, result)
        text = repo.read(index) or ""
        active = [route for route in routing.parse_routing(text).active if route.file == file]
        if any(set(route.keywords) == set(keywords) and route.priority == priority for route in active):
            result.detail = "already routed so; nothing changed"
            return result
        row = routing.render_row(keywords, file, priority)
        text = routing.deprecate_rows(text, [route.line for route in active])
        repo.write(index, routing.append_row(text, row))
    result.rows_added.append(row)
    result.rows_deprecated = [route.line for route in active]
    result.detail = f"routed {', '.join(keywords)} -> {file} ({priority})"
    return result


def deprecate_route(repo: MemoryRepo, scope: Scope, file: str) -> RememberResult:
    index = _index(scope)
    result = RememberResult(str(scope), "deprecate", repo.repo_path(index))
    with write_lock(repo):
        text = repo.read(index)
        table = routing.parse_routing(text or "")
        active = [route for route in table.active if route.file == file]
        if not active:
            if any(route.file == file for route in table.routes):
                result.detail = f"the rows for {file} are already [DEPRECATED]; nothing changed"
                return result
            raise FindingsError(f"{repo.repo_path(index)} has no routing row for {file}; nothing to deprecate")
        repo.write(index, routing.deprecate_rows(text or "", [route.line for route in active]))
    result.rows_deprecated = [route.line for route in active]
    result.detail = f"marked {len(active)} row(s) for {file} [DEPRECATED]"
    return result
