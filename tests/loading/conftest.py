"""The loading tests' repository: two groups, the DM memory, journals and category files, committed."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from apm_git.commands.flush import flush
from apm_git.store.repo import MemoryRepo, open_repo
from tests.conftest import Invoke, made_once

NOW = "2026-04-06T15:00:00"
TODAY = "2026-04-06"
YESTERDAY = "2026-04-05"
ROOMS = {"room-a": "alpha", "room-b": "beta"}


def record(day: str, title: str, body: str, *, kind: str = "decision", hits: int = 0, value: str = "MEDIUM") -> str:
    return (f"## [{day}] {title}\n- Tags: {kind}\n"
            f"- Fitness: last_referenced={day}, hit_count={hits}, decision_value={value}\n- Body: {body}\n\n")


def write(repo: MemoryRepo, rel: str, text: str) -> None:
    path = repo.memory / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def build(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    """Fill `repo` (made by `init`) and commit it; the clock stays at NOW.

    Filled once per worker and day (`made_once`) and copied in place of `repo` for each test."""
    monkeypatch.setenv("APM_GIT_NOW", NOW)

    inited = repo.root.rename(repo.root.with_name(repo.root.name + "-init"))

    def make(folder: Path) -> None:
        shutil.copytree(inited, folder, symlinks=True)
        fill(open_repo(folder))

    filled = open_repo(made_once("loading-memory", make, repo.root))
    shutil.rmtree(inited)
    return filled


def fill(repo: MemoryRepo) -> None:
    write(repo, "group_names.json", json.dumps(ROOMS))
    flush(repo)  # creates both groups' indexes and files from the templates
    for group in ROOMS.values():
        base = f"groups/{group}"
        write(repo, f"{base}/attention.md", f"# Attention: {group}\n\n## Tasks\n\n- [todo] {group} release\n")
        write(repo, f"{base}/project.md", f"# Project: {group}\n\nStack of {group}: see conventions/api.md, "
                                          "then conventions/deploy.md.\n")
        write(repo, f"{base}/conventions/api.md", f"# API conventions of {group}\n\nVersioned paths.\n")
        write(repo, f"{base}/conventions/deploy.md", f"# Deploy conventions of {group}\n")
        write(repo, f"{base}/experience.md", f"# Experience: {group}\n\n" + "".join(
            record(TODAY, f"{group} decision {n}", f"Decided thing {n} for {group}.") for n in range(3)))
        write(repo, f"{base}/people.md", f"# People: {group}\n\nDana owns {group}.\n")
    write(repo, "main/attention.md", "# Attention (DM)\n\n## Tasks\n\n- [todo] answer the landlord\n")
    write(repo, "main/longterm.md", "# Long-term memory (DM)\n\nThe user prefers short answers.\n")
    write(repo, "main/daily-synced.md", "# Daily notes (DM)\n\nMonday: planning.\n")
    write(repo, f"{TODAY}.md", f"# Journal {TODAY}\n\n" + record(TODAY, "Redis for sessions", "Use Redis."))
    write(repo, f"{YESTERDAY}.md", f"# Journal {YESTERDAY}\n\n" + record(YESTERDAY, "Flaky CI", "Retry once.",
                                                                          kind="lesson"))
    write(repo, "lessons.md", "# Lessons\n\n" + record("2026-03-01", "Pool exhaustion", "Cap the pool at 50.",
                                                      kind="lesson"))
    write(repo, "decisions.md", "# Decisions\n\n" + record("2026-03-02", "Postgres 16", "Upgrade in May."))
    write(repo, "project-context.md", "# Project context\n\nThe API runs on Kubernetes.\n")
    write(repo, "people.md", "# People\n\nDana prefers async reviews.\n")
    write(repo, "tools-config.md", "# Tools and config\n\nSet KUBECONFIG first.\n")
    flush(repo)


@pytest.fixture
def mem(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    return build(repo, monkeypatch)


def cli_json(run_cli: Invoke, mem: MemoryRepo, *args: str) -> dict[str, Any]:
    """Run `apm-git --repo MEM --json ARGS…`, expect success, and return its JSON."""
    ran = run_cli("--repo", str(mem.root), "--json", *args)
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert isinstance(data, dict)
    return data
