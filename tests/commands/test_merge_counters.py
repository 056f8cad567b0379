"""Counters in a plain `git pull` (issue 22, case 2): git merges a file both sides changed to the same bytes
without the merge driver; the post-merge hook that `apm-git setup` installs (`apm-git merge-counters`) adds up
the hits both sides made alike, in a commit after the merge."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.commands.test_sync import add, sync
from tests.commands.test_sync_safety import entry_of, hit
from tests.conftest import Invoke
from tests.sync_helpers import bare_remote, clone, first_clone, git

IDENT = "2026-05-04-shared-lesson"
DAY = "2026-05-06T09:00:00"


def pull(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(("git", "pull", "--no-rebase", "--no-edit", "origin", "main"), cwd=root,
                          capture_output=True, text=True, check=False)


def hit_alike_on_two_clones(run_cli: Invoke, tmp_path: Path) -> tuple[Path, Path]:
    """Two set-up clones that each hit one entry on the same day and committed it; the laptop has pushed."""
    url = str(bare_remote(tmp_path))
    laptop = first_clone(tmp_path / "laptop", url)
    add(run_cli, laptop, "shared lesson")
    assert sync(run_cli, laptop)[0] == 0
    server = clone(tmp_path / "server", url)
    assert run_cli("--repo", str(server), "setup", "--no-install").exit_code == 0
    for root in (laptop, server):
        hit(run_cli, root, IDENT, DAY)
        assert run_cli("--repo", str(root), "flush", env={"APM_GIT_NOW": DAY}).exit_code == 0
    assert git(laptop, "rev-parse", "HEAD") != git(server, "rev-parse", "HEAD")  # Apm-Clone tells them apart
    git(laptop, "push", "-q", "origin", "HEAD:main")
    assert git(laptop, "rev-parse", "HEAD:memory") == git(server, "rev-parse", "HEAD:memory")  # the same bytes
    return laptop, server


def test_setup_installs_the_post_merge_hook_once_and_leaves_ones_own_alone(
    run_cli: Invoke, tmp_path: Path,
) -> None:
    url = str(bare_remote(tmp_path))
    assert sync(run_cli, first_clone(tmp_path / "laptop", url))[0] == 0
    hook = tmp_path / "laptop/.git/hooks/post-merge"
    assert "apm-git merge-counters" in hook.read_text() and hook.stat().st_mode & 0o111
    server = clone(tmp_path / "server", url)
    status = run_cli("--repo", str(server), "status", "--json")
    assert "the merge driver apm-memory" in status.stdout
    mine = server / ".git/hooks/post-merge"
    mine.write_text("#!/bin/sh\nexit 0\n")
    ran = run_cli("--repo", str(server), "setup", "--no-install")
    assert ran.exit_code == 0 and "registered the merge driver apm-memory" in ran.stdout
    assert mine.read_text() == "#!/bin/sh\nexit 0\n"
    again = run_cli("--repo", str(server), "setup", "--no-install")
    assert "set up already" in again.stdout


def test_a_plain_git_pull_adds_up_hits_both_sides_made_alike(run_cli: Invoke, tmp_path: Path) -> None:
    _, server = hit_alike_on_two_clones(run_cli, tmp_path)
    ran = pull(server)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "added up the hit counts both sides made alike in memory/2026-05-04.md" in ran.stdout + ran.stderr
    assert entry_of(server, IDENT) == "last_referenced=2026-05-06, hit_count=2, decision_value=MEDIUM"
    assert "hit_count=1" in git(server, "show", "HEAD^:memory/2026-05-04.md")  # git's merge: one hit
    assert "hit_count=2" in git(server, "show", "HEAD:memory/2026-05-04.md")
    assert git(server, "rev-list", "--count", "--merges", "HEAD").strip() == "1"
    message = git(server, "log", "-1", "--format=%B")
    assert message.startswith("memory: count the hits both sides of merge ")
    assert "Apm-Trigger: merge-counters" in message
    assert git(server, "status", "--porcelain") == ""
    again = run_cli("--repo", str(server), "--json", "merge-counters")
    assert '"skipped": "HEAD is not a merge of two commits"' in again.stdout
    lint = run_cli("--repo", str(server), "lint", "--from-ref", "HEAD~2", "--to-ref", "HEAD")
    assert lint.exit_code == 0, lint.stdout + lint.stderr


@pytest.mark.slow
def test_an_uncommitted_edit_of_the_file_is_left_alone_and_named(run_cli: Invoke, tmp_path: Path) -> None:
    _, server = hit_alike_on_two_clones(run_cli, tmp_path)
    journal = server / "memory/2026-05-04.md"
    edited = journal.read_text() + "\nA note of mine, not committed.\n"
    journal.write_text(edited)
    ran = pull(server)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "holds an edit of yours that is not committed" in ran.stderr
    assert journal.read_text() == edited
    assert "hit_count=1" in git(server, "show", "HEAD:memory/2026-05-04.md")
    assert len(git(server, "log", "-1", "--format=%P").split()) == 2  # HEAD is git's merge: nothing counted


@pytest.mark.slow
def test_a_failing_count_leaves_the_merge_committed(run_cli: Invoke, tmp_path: Path) -> None:
    _, server = hit_alike_on_two_clones(run_cli, tmp_path)
    (server / "apm.yaml").write_text("budgets: [not, a, mapping\n")  # apm-git stops on it
    git(server, "commit", "-qam", "a broken apm.yaml", "--no-verify")
    ran = pull(server)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "were not added up" in ran.stderr
    assert len(git(server, "log", "-1", "--format=%P").split()) == 2  # the merge, committed
