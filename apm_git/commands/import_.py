"""`apm-git import`: turn free-form dated sections and session notes into records, as one commit.

Planned first (`--plan`, or the text plan when run without options), then carried out from a
plan (`--apply`), re-checked against the files as they are then.
"""
from __future__ import annotations

from typing import Any

from apm_git import clock
from apm_git.dreaming.execute import Changes
from apm_git.dreaming.importing import (
    STAGE,
    ImportPlan,
    execute_import,
    import_from_json,
    import_json,
    import_trailers,
    plan_import,
)
from apm_git.model.records import parse
from apm_git.operations.consolidation import StageResult, commit_stage, flush_first
from apm_git.store import layout
from apm_git.store.lock import write_lock
from apm_git.store.repo import MemoryRepo


def _inputs(repo: MemoryRepo) -> tuple[dict[str, str], dict[str, str]]:
    """The texts of the journals and category files, and where each entry id already is."""
    names = [*layout.journals(repo), *(name for name in layout.category_files(repo) if repo.exists(name))]
    files = {name: repo.read(name) or "" for name in names}
    taken: dict[str, str] = {}
    for rel in repo.markdown_files():
        text = files.get(rel)
        for record in parse(text if text is not None else repo.read(rel) or "").records:
            if record.day is not None and record.title:
                taken.setdefault(record.id, repo.repo_path(rel))
    return files, taken


def import_plan(repo: MemoryRepo) -> ImportPlan:
    files, taken = _inputs(repo)
    return plan_import(files, repo.config.routing, taken, clock.today())


def import_plan_json(repo: MemoryRepo) -> dict[str, Any]:
    return import_json(import_plan(repo), repo.memory_prefix)


def import_apply(repo: MemoryRepo, plan_data: Any) -> StageResult:
    """Carry out a plan printed by `import --plan` (items may be dropped or their kind changed)."""
    plan = import_from_json(plan_data, repo.memory_prefix, clock.today())

    def precheck() -> None:
        files, taken = _inputs(repo)
        execute_import(plan, files, repo.config.routing, taken)

    flushed = flush_first(repo, STAGE, precheck)
    with write_lock(repo):
        files, taken = _inputs(repo)
        writes = execute_import(plan, files, repo.config.routing, taken)
        count = len(plan.items)
        subject = f"import {count} section{'s' if count != 1 else ''} as records" if count else "import nothing"
        result = StageResult(STAGE, subject, import_json(plan, repo.memory_prefix),
                             import_trailers(plan, repo.memory_prefix), flushed=flushed)
        if writes:
            body = ("Free-form sections turned into records in place; every line kept "
                    "(a dated heading in its record's Source field).")
            commit_stage(repo, result, Changes(writes, [], {name: files[name] for name in writes}), body, plan.day)
    return result
