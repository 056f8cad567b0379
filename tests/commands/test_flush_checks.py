"""flush runs the checks in-process: findings are recorded, never a refusal; a secret stays out of the commit."""
from __future__ import annotations

import json

import pytest

from apm_git.model import trailers
from apm_git.store.repo import MemoryRepo
from tests.checks.helpers import record
from tests.checks.test_no_secrets import SECRETS
from tests.conftest import Invoke, git

NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}


def committed(repo: MemoryRepo) -> set[str]:
    return set(git(repo.root, "show", "--name-only", "--format=", "HEAD").split())


def test_findings_are_committed_as_trailers_and_pending_items(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "people.md").write_text("# People\n" + "".join(f"- person {n}\n" for n in range(120)))
    with (repo.memory / "lessons.md").open("a") as handle:
        handle.write("\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: no fitness\n")
    ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
    assert ran.exit_code == 0, ran.stderr
    expected = [
        "memory/lessons.md:7: apm-record-format: missing field '- Fitness:' (fields are Tags, Fitness, Body)",
        "memory/people.md:101: apm-budget: 121/100 lines: over its line budget by 21; archive or move entries "
        "(`apm-git rem`), or raise its budget in apm.yaml",
    ]
    found = [value for key, value in trailers.parse(git(repo.root, "log", "-1", "--format=%B")) if key == "Apm-Finding"]
    assert found == expected
    assert all(f"apm-git: finding: {finding}" in ran.stderr for finding in expected)
    state = json.loads((repo.memory / "flush-state.json").read_text())
    assert [item["finding"] for item in state["pending_items"]] == expected
    assert {"memory/people.md", "memory/lessons.md"} <= committed(repo)
    assert git(repo.root, "status", "--porcelain") == ""


def test_a_file_with_a_secret_stays_on_disk_uncommitted_and_the_rest_is_committed(
    repo: MemoryRepo, run_cli: Invoke,
) -> None:
    journal = repo.memory / "2026-04-06.md"
    entry = record("2026-04-06", "CI token", tags="tool", body=SECRETS["GitHub Token"])
    secret_text = "# Journal 2026-04-06\n\n" + entry
    journal.write_text(secret_text)
    with (repo.memory / "lessons.md").open("a") as handle:
        handle.write("\n" + record("2026-04-06", "Pin the runner image", tags="lesson"))
    ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
    assert ran.exit_code == 0, ran.stderr  # by hand: the warning is seen (a hook's flush exits 1)
    assert ("WARNING: memory/2026-04-06.md:6: the section \"[2026-04-06] CI token\" holds what looks like a "
            "credential (GitHub Token), so its file was NOT committed" in ran.stderr)
    assert "memory/2026-04-06.md" not in committed(repo) and "memory/lessons.md" in committed(repo)
    assert journal.read_text() == secret_text
    assert git(repo.root, "status", "--porcelain", "--", "memory").split() == ["??", "memory/2026-04-06.md"]
    index = git(repo.root, "show", "HEAD:memory/INDEX.md")
    assert "2026-04-06" not in index.split("## Daily Journals")[1]  # the index never names what the commit lacks
    message = git(repo.root, "log", "-1", "--format=%B")
    assert "Apm-Finding: memory/2026-04-06.md:6: apm-no-secrets: looks like a credential (GitHub Token)" in message
    assert SECRETS["GitHub Token"].split()[2] not in message

    journal.write_text(secret_text.replace(SECRETS["GitHub Token"], "CI token lives in the vault"))
    ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
    assert ran.exit_code == 0 and "WARNING" not in ran.stderr
    assert "memory/2026-04-06.md" in committed(repo)
    assert "| 2026-04-06 |" in git(repo.root, "show", "HEAD:memory/INDEX.md")
    state = json.loads((repo.memory / "flush-state.json").read_text())
    assert state["pending_items"] == []  # the last flush's findings replace the previous ones


def test_a_secret_in_a_tracked_file_keeps_its_committed_version(repo: MemoryRepo) -> None:
    from apm_git.commands.flush import flush

    tools = repo.memory / "tools-config.md"
    before = git(repo.root, "show", "HEAD:memory/tools-config.md")
    tools.write_text(before + "\n" + record("2026-04-06", "Slack bot", tags="tool", body=SECRETS["Slack Token"]))
    (repo.memory / "people.md").write_text(git(repo.root, "show", "HEAD:memory/people.md") + "\n- Ana: reviews\n")
    result = flush(repo)
    assert result.withheld == ["memory/tools-config.md"] and result.commit is not None
    assert git(repo.root, "show", "HEAD:memory/tools-config.md") == before
    assert "memory/people.md" in committed(repo)
    assert git(repo.root, "status", "--porcelain", "--", "memory").split() == ["M", "memory/tools-config.md"]


def test_a_flush_whose_only_change_is_a_secret_commits_nothing_and_stages_nothing(
    repo: MemoryRepo, run_cli: Invoke,
) -> None:
    (repo.root / "code.py").write_text("print(1)\n")
    git(repo.root, "add", "code.py")
    git(repo.root, "commit", "-qm", "code")
    (repo.root / "code.py").write_text("print(2)\n")  # the user's unstaged edit
    (repo.root / "notes.txt").write_text("untracked\n")
    (repo.memory / "2026-04-06.md").write_text(
        "# Journal 2026-04-06\n\n" + record("2026-04-06", "CI token", tags="tool", body=SECRETS["GitHub Token"]))
    head = git(repo.root, "rev-parse", "HEAD")
    state = (repo.memory / "flush-state.json").read_bytes()
    index = (repo.memory / "INDEX.md").read_bytes()
    for _ in range(2):  # an idle cron flush keeps finding the same withheld file: no commit, ever
        ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
        assert ran.exit_code == 0, ran.stderr
        assert "only changes are withheld" in ran.stdout and "WARNING" in ran.stderr
        assert git(repo.root, "rev-parse", "HEAD") == head
        assert git(repo.root, "diff", "--cached", "--name-only") == ""
        assert (repo.memory / "flush-state.json").read_bytes() == state
        assert (repo.memory / "INDEX.md").read_bytes() == index
    assert git(repo.root, "status", "--porcelain").splitlines() == [
        " M code.py", "?? memory/2026-04-06.md", "?? notes.txt",
    ]


AWS_KEY = "AKIA" + "Q7XW2M4KZP3RT9BN"  # fake, of the real shape
GITHUB_TOKEN = "ghp_" + "r8Vw2KpZ0mQx7LsT4bN9cYe1HfJ6uA3dGi5o"  # fake, of the real shape


def _history(repo: MemoryRepo) -> str:
    """Every commit's message and every blob it ever held, as text."""
    log = git(repo.root, "log", "--all", "-p", "--format=%H%n%B")
    blobs = git(repo.root, "rev-list", "--all", "--objects")
    shown = [git(repo.root, "cat-file", "-p", line.split()[0]) for line in blobs.splitlines() if " " in line]
    return log + "\n".join(shown)


def test_a_withheld_journal_s_titles_never_reach_the_committed_index(repo: MemoryRepo) -> None:
    """Issue 14: flush withheld the journal, but INDEX.md's Key Events carried its new title into history."""
    from apm_git.commands.flush import flush

    journal = repo.memory / "2026-04-06.md"
    journal.write_text("# Journal 2026-04-06\n\n" + record("2026-04-06", "Pinned the runner image", tags="lesson"))
    flush(repo)
    assert "Pinned the runner image" in git(repo.root, "show", "HEAD:memory/INDEX.md")
    journal.write_text(journal.read_text() + "\n" + record("2026-04-06", f"Rotated {AWS_KEY} and {GITHUB_TOKEN}"))
    (repo.memory / "2026-04-07.md").write_text(
        "# Journal 2026-04-07\n\n" + record("2026-04-07", f"New CI token {GITHUB_TOKEN}", tags="tool"))
    lessons = git(repo.root, "show", "HEAD:memory/lessons.md")
    (repo.memory / "lessons.md").write_text(lessons + "\n" + record("2026-04-06", "Cache the wheels", tags="lesson"))
    result = flush(repo)
    assert result.commit is not None and "memory/lessons.md" in result.files
    assert result.withheld == ["memory/2026-04-06.md", "memory/2026-04-07.md"]
    index = git(repo.root, "show", "HEAD:memory/INDEX.md")
    assert "Pinned the runner image" in index and "Rotated" not in index and "2026-04-07" not in index
    history = _history(repo)
    assert AWS_KEY not in history and GITHUB_TOKEN not in history
    assert AWS_KEY in journal.read_text()  # the user's text stays on disk, untouched
    assert (repo.memory / "INDEX.md").read_text() == index  # and the index on disk is the committed one


@pytest.mark.slow
def test_a_consolidation_commits_no_title_of_a_file_flush_left_out(repo: MemoryRepo, run_cli: Invoke) -> None:
    """REM rebuilds INDEX.md too: it describes the commit, never a withheld journal's new text."""
    from apm_git.commands.flush import flush

    tracked = repo.memory / "2026-04-05.md"
    tracked.write_text("# Journal 2026-04-05\n\n" + record("2026-04-05", "Pinned the runner image", tags="lesson"))
    flush(repo)
    tracked.write_text(tracked.read_text() + "\n" + record("2026-04-05", f"Rotated {AWS_KEY}"))
    (repo.memory / "2026-04-06.md").write_text(
        "# Journal 2026-04-06\n\n" + record("2026-04-06", f"New CI token {GITHUB_TOKEN}", tags="tool"))
    assert flush(repo).withheld == ["memory/2026-04-05.md", "memory/2026-04-06.md"]
    head = git(repo.root, "rev-parse", "HEAD")
    ran = run_cli("--repo", str(repo.root), "rem", "--force", env=NOW)
    assert ran.exit_code == 0, ran.stderr
    # REM has nothing to change: no commit (quiet commits), and HEAD's index still names no withheld text.
    assert git(repo.root, "rev-parse", "HEAD") == head
    index = git(repo.root, "show", "HEAD:memory/INDEX.md")
    assert "Pinned the runner image" in index and "| 2026-04-06 |" not in index
    history = _history(repo)
    assert AWS_KEY not in history and GITHUB_TOKEN not in history
