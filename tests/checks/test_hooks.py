"""The pre-commit hooks that `apm-git init` installs, on real repositories, committing with plain `git commit`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.checks.catalog import CHECKS
from apm_git.checks.manifest import OLD_PROGRAM, alias, local_hook
from apm_git.commands.init import init
from apm_git.operations.precommit import hook_command
from tests.checks.helpers import record
from tests.checks.test_no_secrets import SECRETS
from tests.conftest import Ran, git, run_apm


@pytest.fixture
def hooked(tmp_path: Path) -> Path:
    """A memory repository made by `apm-git init`, pre-commit hooks installed."""
    result = init(tmp_path / "mem")
    assert result.hooks_installed, result.warning
    return result.root


@pytest.fixture
def separate(hooked: Path) -> Path:
    """The same repository with the seven separate hooks an apm-git before `apm-checks` wrote (their entry
    names `apm-git-hook`): one verdict line per check, each its own process, nothing shared."""
    hooks = [local_hook(alias(check), "memory", hook_command(OLD_PROGRAM, None if check.per_file else "memory"))
             for check in CHECKS]
    config = {"repos": [{"repo": "local", "hooks": hooks}]}
    (hooked / ".pre-commit-config.yaml").write_text(json.dumps(config, indent=2) + "\n")  # JSON is YAML
    git(hooked, "add", ".pre-commit-config.yaml")
    git(hooked, "commit", "-qm", "the seven separate hooks", "--no-verify")
    return hooked


def commit(root: Path, message: str = "change") -> Ran:
    """`git add -A && git commit`; git hands a hook's output to stderr, so `stdout` holds both streams."""
    git(root, "add", "-A")
    proc = subprocess.run(("git", "commit", "-m", message), cwd=root, capture_output=True, text=True, check=False)
    return Ran(proc.returncode, proc.stdout + proc.stderr, proc.stderr)


def verdict(output: str, hook_id: str) -> str:
    """Passed, Failed or Skipped: what pre-commit printed for a hook."""
    (line,) = [line for line in output.splitlines() if line.startswith(hook_id + ".")]
    return line.rsplit(".", 1)[1].split(")")[-1]


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


@pytest.mark.slow
def test_init_installs_the_hook_and_a_clean_edit_of_a_category_file_is_accepted(hooked: Path) -> None:
    assert (hooked / ".git/hooks/pre-commit").is_file()
    assert "apm-git-hook-run apm-checks" in git(hooked, "show", "HEAD:.pre-commit-config.yaml")
    append(hooked / "memory/decisions.md", "\n" + record("2026-04-06", "Redis cache strategy"))
    ran = commit(hooked)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert verdict(ran.stdout, "apm-checks") == "Passed"
    assert not (hooked / ".git/apm-git/hook-findings").exists()  # one hook: nothing to share


@pytest.mark.slow
def test_the_seven_separate_hooks_each_give_a_verdict(separate: Path) -> None:
    append(separate / "memory/people.md", "".join(f"- note {n}\n" for n in range(120)))
    ran = commit(separate)
    assert ran.exit_code == 1 and "memory/people.md:101: apm-budget: 125/100 lines" in ran.stdout
    assert verdict(ran.stdout, "apm-budget") == "Failed"
    assert [verdict(ran.stdout, check.id) for check in CHECKS if check.id not in ("apm-budget", "apm-state-json")] == [
        "Passed"] * 5
    assert not (separate / ".git/apm-git/hook-findings").exists()


@pytest.mark.slow
def test_setup_moves_the_seven_old_hooks_to_apm_checks(separate: Path) -> None:
    """After an upgrade, `apm-git setup` migrates the config; the next commit runs the one hook."""
    assert run_apm("setup", cwd=separate).exit_code == 0
    config = (separate / ".pre-commit-config.yaml").read_text()
    assert "apm-git-hook-run apm-checks" in config and "apm-git-hook apm-" not in config
    append(separate / "memory/people.md", "".join(f"- note {n}\n" for n in range(120)))
    ran = commit(separate)
    assert ran.exit_code == 1 and "memory/people.md:101: apm-budget: 125/100 lines" in ran.stdout
    assert verdict(ran.stdout, "apm-checks") == "Failed"
    assert not [line for line in ran.stdout.splitlines() if line.startswith(tuple(f"{c.id}." for c in CHECKS))]


@pytest.mark.slow
def test_skip_leaves_a_check_out_of_the_one_hook(hooked: Path) -> None:
    append(hooked / "memory/people.md", "".join(f"- note {n}\n" for n in range(120)))
    git(hooked, "add", "-A")
    proc = subprocess.run(("git", "commit", "-qm", "over budget"), cwd=hooked, capture_output=True, text=True,
                          check=False, env={**os.environ, "SKIP": "apm-no-secrets, apm-budget"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    append(hooked / "memory/people.md", "- one more\n")
    assert "apm-budget: 126/100 lines" in commit(hooked).stdout  # without SKIP the check is back


@pytest.mark.slow
def test_over_budget_is_rejected_naming_the_file_and_lines(hooked: Path) -> None:
    append(hooked / "memory/people.md", "".join(f"- note {n}\n" for n in range(120)))
    ran = commit(hooked)
    assert ran.exit_code == 1
    assert "memory/people.md:101: apm-budget: 125/100 lines" in ran.stdout


@pytest.mark.slow
def test_a_malformed_record_is_rejected_with_its_line(hooked: Path) -> None:
    append(hooked / "memory/lessons.md", "\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: no fitness\n")
    ran = commit(hooked)
    assert ran.exit_code == 1
    assert "memory/lessons.md:7: apm-record-format: missing field '- Fitness:'" in ran.stdout


@pytest.mark.slow
def test_append_only_index_rules(hooked: Path) -> None:
    index = hooked / "memory/main/index.md"
    original = index.read_text()
    row = "| task, todo, blocker, status, focus, now, next | attention.md | P0 |"
    assert row in original
    for changed in (original.replace(row + "\n", ""), original.replace("blocker, ", "")):
        index.write_text(changed)
        ran = commit(hooked)
        assert ran.exit_code == 1 and "memory/main/index.md:" in ran.stdout and "apm-append-only" in ran.stdout
    index.write_text(original.replace(row, row.replace("| task", "| [DEPRECATED] task")))
    ran = commit(hooked)
    assert ran.exit_code == 0, ran.stdout
    index.unlink()
    ran = commit(hooked)
    assert ran.exit_code == 1 and "append-only file deleted" in ran.stdout


@pytest.mark.slow
def test_a_deleted_entry_is_rejected_and_the_same_entry_archived_is_accepted(hooked: Path) -> None:
    entry = record("2026-01-15", "Old server config", body="nginx on port 8080")
    append(hooked / "memory/decisions.md", "\n" + entry)
    assert commit(hooked).exit_code == 0
    decisions = hooked / "memory/decisions.md"
    kept = decisions.read_text().replace(entry, "")
    decisions.write_text(kept)
    ran = commit(hooked)
    assert ran.exit_code == 1
    assert "memory/decisions.md:7: apm-no-loss: entry 2026-01-15-old-server-config" in ran.stdout
    (hooked / "memory/archive").mkdir()
    (hooked / "memory/archive/2026-04.md").write_text("# Archive 2026-04\n\n" + entry)
    ran = commit(hooked)
    assert ran.exit_code == 0, ran.stdout


@pytest.mark.parametrize("kind", sorted(SECRETS))
@pytest.mark.slow
def test_each_secret_kind_is_rejected(hooked: Path, kind: str) -> None:
    append(hooked / "memory/tools-config.md", "\n" + record("2026-04-06", "Access", tags="tool", body=SECRETS[kind]))
    ran = commit(hooked)
    assert ran.exit_code == 1
    assert f"memory/tools-config.md:10: apm-no-secrets: looks like a credential ({kind})" in ran.stdout


@pytest.mark.slow
def test_an_index_row_for_a_missing_file_is_rejected_until_apm_git_index(hooked: Path) -> None:
    append(hooked / "memory/decisions.md", "\n" + record("2026-04-06", "Redis cache strategy"))
    index = hooked / "memory/INDEX.md"
    index.write_text(index.read_text().replace(
        "| people.md |", "| runbooks.md | 3 | 2026-04-06 | ops |\n| people.md |"))
    ran = commit(hooked)
    assert ran.exit_code == 1 and "memory/INDEX.md:" in ran.stdout
    assert "apm-index-fresh: names runbooks.md, which does not exist" in ran.stdout
    assert run_apm("index", cwd=hooked).exit_code == 0
    assert "runbooks.md" not in index.read_text()
    ran = commit(hooked)
    assert ran.exit_code == 0, ran.stdout


@pytest.mark.slow
def test_a_new_journal_needs_the_index_rebuilt_and_flush_does_that(hooked: Path) -> None:
    env = {"APM_GIT_NOW": "2026-04-06T10:00:00"}
    assert run_apm("journal", "add", "Chose Redis", "--kind", "decision", cwd=hooked, env=env).exit_code == 0
    ran = commit(hooked)
    assert ran.exit_code == 1 and "does not list the journal 2026-04-06.md" in ran.stdout
    git(hooked, "reset", "-q")
    ran = run_apm("flush", cwd=hooked, env=env)
    assert ran.exit_code == 0, ran.stderr
    assert "Apm-Finding" not in git(hooked, "log", "-1", "--format=%B")
    append(hooked / "memory/2026-04-06.md", "\n" + record("2026-04-06", "Another decision"))
    assert commit(hooked).exit_code == 0


@pytest.mark.slow
def test_a_violation_committed_with_no_verify_is_caught_by_lint(hooked: Path) -> None:
    decisions = hooked / "memory/decisions.md"
    append(decisions, "\n## [2026-04-06] Broken\n- Tags: decision\n")
    git(hooked, "add", "-A")
    git(hooked, "commit", "-q", "--no-verify", "-m", "sneak it in")
    assert run_apm("lint", cwd=hooked).exit_code == 0  # nothing changed since HEAD
    ran = run_apm("lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD", cwd=hooked)
    assert ran.exit_code == 1
    assert ran.stdout.splitlines() == [
        "memory/decisions.md:7: apm-record-format: missing field '- Body:' (fields are Tags, Fitness, Body)",
        "memory/decisions.md:7: apm-record-format: missing field '- Fitness:' (fields are Tags, Fitness, Body)",
    ]


@pytest.mark.slow
def test_hooks_never_modify_files(hooked: Path) -> None:
    append(hooked / "memory/people.md", "".join(f"- note {n}\n" for n in range(120)))
    git(hooked, "add", "-A")
    before = git(hooked, "status", "--porcelain")
    assert commit(hooked).exit_code == 1
    assert git(hooked, "status", "--porcelain") == before


@pytest.mark.slow
def test_pre_commit_run_between_two_refs_as_ci_does(hooked: Path) -> None:
    append(hooked / "memory/lessons.md", "\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: no fitness\n")
    git(hooked, "commit", "-qam", "sneak it in", "--no-verify")
    proc = subprocess.run((sys.executable, "-m", "pre_commit", "run", "--from-ref", "HEAD~1", "--to-ref", "HEAD"),
                          cwd=hooked, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert "memory/lessons.md:7: apm-record-format: missing field '- Fitness:'" in proc.stdout


@pytest.mark.slow
def test_a_journal_moved_whole_into_the_archive_is_accepted(separate: Path) -> None:
    hooked = separate
    env = {"APM_GIT_NOW": "2026-04-06T10:00:00"}
    assert run_apm("journal", "add", "Chose Redis", "--kind", "decision", cwd=hooked, env=env).exit_code == 0
    assert run_apm("flush", cwd=hooked, env=env).exit_code == 0
    (hooked / "memory/archive/journals").mkdir(parents=True)
    git(hooked, "mv", "memory/2026-04-06.md", "memory/archive/journals/2026-04-06.md")
    ran = commit(hooked)
    assert ran.exit_code == 1 and "names the journal 2026-04-06.md, which does not exist" in ran.stdout
    assert verdict(ran.stdout, "apm-index-fresh") == "Failed"
    assert [verdict(ran.stdout, hook) for hook in ("apm-no-loss", "apm-append-only", "apm-record-format")] == [
        "Passed", "Passed", "Passed"]
    assert run_apm("index", cwd=hooked, env=env).exit_code == 0
    ran = commit(hooked)
    assert ran.exit_code == 0, ran.stdout


@pytest.mark.slow
def test_hooks_in_a_linked_worktree(separate: Path, tmp_path: Path) -> None:
    hooked = separate
    git(hooked, "worktree", "add", "-q", str(tmp_path / "other"), "-b", "other")
    other = tmp_path / "other"
    append(other / "memory/people.md", "".join(f"- note {n}\n" for n in range(120)))
    ran = commit(other)
    assert ran.exit_code == 1 and "memory/people.md:101: apm-budget: 125/100 lines" in ran.stdout
    assert verdict(ran.stdout, "apm-no-loss") == "Passed"
    assert not (hooked / ".git/worktrees/other/apm-git/hook-findings").exists()


@pytest.mark.slow
def test_a_routing_row_for_a_missing_file_is_rejected_until_the_file_exists(hooked: Path) -> None:
    index = hooked / "memory/main/index.md"
    append(index, "| deploy, release | runbook.md | P2 |\n")
    ran = commit(hooked)
    assert ran.exit_code == 1
    line = len(index.read_text().splitlines())
    assert (f"memory/main/index.md:{line}: apm-record-format: routing row names runbook.md, which does not "
            "exist") in ran.stdout
    (hooked / "memory/main/runbook.md").write_text("# Runbook\n")
    ran = commit(hooked)
    assert ran.exit_code == 0, ran.stdout


def test_lint_reports_a_group_index_routing_to_a_missing_file(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    (root / "memory").mkdir(parents=True)
    (root / "memory/group_names.json").write_text('{"room-1": "team-a"}\n')
    init(root, install=False)
    (root / "memory/groups/team-a/people.md").unlink()
    ran = run_apm("lint", "--all", cwd=root)
    assert ran.exit_code == 1
    assert "memory/groups/team-a.md:" in ran.stdout and "routing row names people.md" in ran.stdout


@pytest.mark.slow
def test_write_back_to_an_index_passes_the_append_only_hook(hooked: Path) -> None:
    (hooked / "memory/main/projects").mkdir()
    (hooked / "memory/main/projects/api.md").write_text("# API project\n")
    ran = run_apm("remember", "--scope", "main", "--route", "projects/api.md", "--keywords", "api, endpoint",
                  "--priority", "P3", cwd=hooked)
    assert ran.exit_code == 0, ran.stderr
    assert commit(hooked).exit_code == 0
    ran = run_apm("remember", "--scope", "main", "--deprecate-route", "projects/api.md", cwd=hooked)
    assert ran.exit_code == 0, ran.stderr
    assert "[DEPRECATED]" in (hooked / "memory/main/index.md").read_text()
    ran = commit(hooked)
    assert ran.exit_code == 0, ran.stdout
    assert verdict(ran.stdout, "apm-checks") == "Passed"
