from __future__ import annotations

import json
from pathlib import Path

from apm_git.commands.flush import flush
from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, Ran


def test_status_text_and_json(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "people.md").write_text("# People\n" + "x\n" * 120)
    state = json.loads((repo.memory / "flush-state.json").read_text())
    state["pending_items"].append({"source": "agent", "text": "ask about the deploy window"})
    state["dreaming"] = {"last_deep_sleep": "2026-04-05T09:00:00+00:00"}
    (repo.memory / "flush-state.json").write_text(json.dumps(state))
    env = {"APM_GIT_NOW": "2026-04-06T12:00:00+00:00"}
    ran = run_cli("--repo", str(repo.root), "status", env=env)
    assert ran.exit_code == 0, ran.stderr
    assert "1 over budget\n   121 / 100  memory/people.md\n" in ran.stdout
    assert "memory/decisions.md" not in ran.stdout, "only the files over budget are named"
    listed = run_cli("--repo", str(repo.root), "status", "--files", env=env).stdout
    assert " 121 / 100   memory/people.md  OVER BUDGET" in listed and "memory/decisions.md" in listed
    assert "  main: never" in ran.stdout
    assert "ask about the deploy window" in ran.stdout
    assert "deep-sleep: next due 2026-04-08 (last run: 2026-04-05 09:00)" in ran.stdout
    assert "rem: due now (last run: never)" in ran.stdout
    assert "Uncommitted memory changes: 2 file(s)" in ran.stdout

    flush(repo, trigger="manual")
    data = json.loads(run_cli("--repo", str(repo.root), "--json", "status", env=env).stdout)
    people = next(item for item in data["files"] if item["file"] == "memory/people.md")
    assert (people["lines"], people["budget"]) == (121, 100)
    assert data["last_flush"]["main"] is not None
    assert {due["stage"]: due["due_now"] for due in data["due"]} == {"deep-sleep": False, "rem": True}
    assert data["uncommitted"] == []


def test_findings_that_still_hold_show_after_the_next_flush_replaced_pending_items(
    repo: MemoryRepo, run_cli: Invoke,
) -> None:
    broken = "\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: no fitness\n"
    (repo.memory / "lessons.md").write_text((repo.memory / "lessons.md").read_text() + broken)
    assert flush(repo).findings
    (repo.memory / "main/attention.md").write_text((repo.memory / "main/attention.md").read_text() + "- more\n")
    assert flush(repo).commit and not flush(repo).findings
    ran = run_cli("--repo", str(repo.root), "status")
    assert "Findings that hold now: 1 (apm-record-format 1)\n  memory/lessons.md:" in ran.stdout
    data = json.loads(run_cli("--repo", str(repo.root), "--json", "status").stdout)
    assert data["findings"]["new_totals"] == {"apm-record-format": 1}


def test_status_stays_short_with_many_findings_and_names_the_command_for_the_rest(
    repo: MemoryRepo, run_cli: Invoke,
) -> None:
    for number in range(40):
        (repo.memory / f"notes-{number}.md").write_text("# Notes\n" + "- line\n" * 10)
        (repo.memory / f"2026-03-{number % 28 + 1:02d}.md").write_text("# Day\n" + "- line\n" * 120)
    ran = run_cli("--repo", str(repo.root), "status")
    assert ran.exit_code == 0
    assert len(ran.stdout.splitlines()) < 30
    assert "`apm-git lint --all` lists them" in ran.stdout
    assert "`apm-git status --files` lists every file" in ran.stdout


def test_status_counts_the_pending_records_of_the_live_journals(repo: MemoryRepo, run_cli: Invoke) -> None:
    """Issue 23, case 7: after `journal add … --kind pending`, status does not say "Pending items: 0"."""

    def run_apm(*args: str, cwd: Path, env: dict[str, str]) -> Ran:  # in-process: the test reads what it prints
        return run_cli("--repo", str(cwd), *args, env=env)

    env = {"APM_GIT_NOW": "2026-04-06T12:00:00+00:00"}
    assert "Pending items: 0" in run_apm("status", cwd=repo.root, env=env).stdout
    added = run_apm("journal", "add", "Ask about the deploy window", "--kind", "pending", "--title", "Deploy window",
                    cwd=repo.root, env=env)
    assert added.exit_code == 0, added.stderr
    with (repo.memory / "2026-04-06.md").open("a", encoding="utf-8") as journal:
        journal.write("\n## 14:30 — Session Notes\n- **Pending:** rotate the staging key — before Friday\n"
                      "- **Decision:** keep Postgres 15 — pgvector needs it\n")
    ran = run_apm("status", cwd=repo.root, env=env)
    assert "Pending items: 2\n" in ran.stdout, ran.stdout
    assert "  - memory/2026-04-06.md:3: Deploy window (2026-04-06-deploy-window)\n" in ran.stdout
    assert "  - memory/2026-04-06.md:10: rotate the staging key (2026-04-06-rotate-the-staging-key)\n" in ran.stdout
    data = json.loads(run_apm("--json", "status", cwd=repo.root, env=env).stdout)
    assert [(item["entry"], item["line"]) for item in data["pending_records"]] == [
        ("2026-04-06-deploy-window", 3), ("2026-04-06-rotate-the-staging-key", 10)]
    assert data["pending_items"] == []  # flush-state.json's own list is shown as it is
    assert run_apm("flush", cwd=repo.root, env=env).exit_code == 0
    later = {"APM_GIT_NOW": "2026-04-10T12:00:00+00:00"}
    assert run_apm("deep-sleep", cwd=repo.root, env=later).exit_code == 0  # pending items are never promoted
    assert "Pending items: 2\n" in run_apm("status", cwd=repo.root, env=later).stdout
