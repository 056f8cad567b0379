"""Issue 23.2: a suspected secret already on disk withholds its section, not its file: the rest of the day's
journal is committed, the section stays uncommitted in the work tree, and no check or later flush trips on it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.checks.helpers import record
from tests.conftest import Invoke, git

NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
AWS_KEY = "AKIA" + "Q7XW2M4KZP3RT9BN"  # fake, of the real shape
APM = str(Path(sys.executable).parent / "apm-git")


def _journal(repo: MemoryRepo, *records: str) -> Path:
    journal = repo.memory / "2026-04-06.md"
    journal.write_text("# Journal 2026-04-06\n\n" + "\n".join(records))
    return journal


def _flush(run_cli: Invoke, repo: MemoryRepo) -> tuple[int, str, str]:
    ran = run_cli("--repo", str(repo.root), "flush", env=NOW)
    return ran.exit_code, ran.stdout, ran.stderr


def _lint_head(run_cli: Invoke, repo: MemoryRepo) -> int:
    return run_cli("--repo", str(repo.root), "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD", env=NOW).exit_code


@pytest.mark.slow
def test_only_the_section_with_the_secret_stays_uncommitted(repo: MemoryRepo, run_cli: Invoke) -> None:
    before = record("2026-04-06", "Pinned the runner image", tags="lesson")
    secret = record("2026-04-06", "Rotated the deploy key", tags="tool", body=f"the new key is {AWS_KEY}")
    after = record("2026-04-06", "Cache the wheels", tags="lesson")
    journal = _journal(repo, before, secret, after)
    on_disk = journal.read_text()
    code, _, said = _flush(run_cli, repo)
    assert code == 0  # by hand; from a hook the same flush exits 1 (below)
    assert ("memory/2026-04-06.md:12: the section \"[2026-04-06] Rotated the deploy key\" holds what looks like a "
            "credential (AWS Access Key), so it was NOT committed (the rest of the file was)") in said
    committed = git(repo.root, "show", "HEAD:memory/2026-04-06.md")
    assert committed == "# Journal 2026-04-06\n\n" + before + "\n" + after
    assert journal.read_text() == on_disk, "the work tree keeps the section"
    assert AWS_KEY not in git(repo.root, "log", "-p", "--all")
    assert "Cache the wheels" in git(repo.root, "show", "HEAD:memory/INDEX.md")
    assert "Rotated" not in git(repo.root, "show", "HEAD:memory/INDEX.md")
    assert git(repo.root, "status", "--porcelain", "--", "memory").split() == ["M", "memory/2026-04-06.md"]
    assert "+" + secret.splitlines()[0] in git(repo.root, "diff", "--", "memory/2026-04-06.md")
    assert _lint_head(run_cli, repo) == 0, "the commit passes every check, apm-no-loss too"

    code, out, _ = _flush(run_cli, repo)  # nothing new: the withheld section alone is no reason to commit
    assert code == 0 and "nothing to flush: the only changes are withheld" in out

    later = record("2026-04-06", "Retry the flaky job", tags="lesson")
    journal.write_text(journal.read_text() + "\n" + later)
    code, _, _ = _flush(run_cli, repo)
    assert code == 0
    assert "Retry the flaky job" in git(repo.root, "show", "HEAD:memory/2026-04-06.md")
    assert AWS_KEY not in git(repo.root, "log", "-p", "--all")

    journal.write_text(journal.read_text().replace(f"the new key is {AWS_KEY}", "the new key is in the vault"))
    code, _, said = _flush(run_cli, repo)
    assert code == 0, said
    assert git(repo.root, "show", "HEAD:memory/2026-04-06.md") == journal.read_text()
    assert git(repo.root, "status", "--porcelain", "--", "memory") == ""


def test_a_secret_put_into_a_committed_entry_keeps_that_entry_as_committed(repo: MemoryRepo, run_cli: Invoke) -> None:
    first = record("2026-04-06", "Deploy through the bastion", tags="tool", body="Use the bastion.")
    second = record("2026-04-06", "Pinned the runner image", tags="lesson", body="Pin it.")
    journal = _journal(repo, first, second)
    assert _flush(run_cli, repo)[0] == 0
    journal.write_text(journal.read_text().replace("Use the bastion.", f"Log in with {AWS_KEY}.")
                       .replace("Pin it.", "Pin it to 1.2."))
    code, _, said = _flush(run_cli, repo)
    assert code == 0, said
    committed = git(repo.root, "show", "HEAD:memory/2026-04-06.md")
    assert first in committed and "Pin it to 1.2." in committed and AWS_KEY not in committed
    assert _lint_head(run_cli, repo) == 0


@pytest.mark.slow
def test_a_hook_flush_that_withheld_a_section_exits_1_and_says_so(repo: MemoryRepo) -> None:
    _journal(repo, record("2026-04-06", "Pinned the runner image", tags="lesson"),
             record("2026-04-06", "Deploy key", tags="tool", body=f"the key is {AWS_KEY}"))
    payload = {"session_id": "sess-1", "hook_event_name": "PreCompact", "cwd": str(repo.root), "trigger": "auto"}
    ran = subprocess.run([APM, "flush", "--hook-input", "-"], input=json.dumps(payload), text=True,
                         capture_output=True, cwd=repo.root, check=False)
    assert ran.returncode == 1, ran.stderr
    assert "was NOT committed (the rest of the file was)" in ran.stderr and AWS_KEY not in ran.stderr
    assert "Pinned the runner image" in git(repo.root, "show", "HEAD:memory/2026-04-06.md")


def test_a_flagged_section_never_takes_the_place_of_another_with_its_heading() -> None:
    """Two `## Summary` sections: the flagged one is new, the other is committed; the second flush must not
    put the committed one in the flagged one's place as well (it did: the journal grew by a copy)."""
    from apm_git.model.withhold import withhold

    summary = "## Summary\n\nAll done.\n\n"
    current = "# Journal\n\n" + f"## Summary\n\nkey {AWS_KEY}\n\n" + "## Work\n\nthings\n\n" + summary
    base = "# Journal\n\n" + "## Work\n\nthings\n\n" + summary
    assert withhold(current, base, {5}) == base
    assert withhold(current, None, {5}) == base
