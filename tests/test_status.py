from __future__ import annotations

import json

from apm_git.commands.flush import flush
from apm_git.repo import MemoryRepo
from tests.conftest import Invoke


def test_status_text_and_json(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "people.md").write_text("# People\n" + "x\n" * 120)
    state = json.loads((repo.memory / "flush-state.json").read_text())
    state["pending_items"].append({"source": "agent", "text": "ask about the deploy window"})
    state["dreaming"] = {"last_deep_sleep": "2026-04-05T09:00:00+00:00"}
    (repo.memory / "flush-state.json").write_text(json.dumps(state))
    env = {"APM_GIT_NOW": "2026-04-06T12:00:00+00:00"}
    ran = run_cli("--repo", str(repo.root), "status", env=env)
    assert ran.exit_code == 0, ran.stderr
    assert " 121 / 100   memory/people.md  OVER BUDGET" in ran.stdout
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
