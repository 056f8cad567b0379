"""What a new user hits first (issue 14): each case failed before its fix."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git, run_apm
from tests.records import record


@pytest.mark.parametrize("command", [["lint"], ["status"], ["load"], ["flush"], ["index"], ["search", "redis"]])
def test_json_after_the_command_is_the_global_json(repo: MemoryRepo, run_cli: Invoke, command: list[str]) -> None:
    before = run_cli("--repo", str(repo.root), "--json", *command)
    after = run_cli("--repo", str(repo.root), *command, "--json")
    assert after.exit_code == before.exit_code != 2, after.stderr
    json.loads(after.stdout)
    assert json.loads(after.stdout).keys() == json.loads(before.stdout).keys()


def test_json_after_a_subcommand_of_a_group(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "journal", "add", "Use Redis", "--kind", "decision", "--json")
    assert ran.exit_code == 0, ran.stderr
    assert json.loads(ran.stdout)["entry_id"].endswith("use-redis")


def test_init_on_an_existing_file_is_one_line(tmp_path: Path, run_cli: Invoke) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    ran = run_cli("init", str(tmp_path / "notes.txt"), "--no-install")
    assert ran.exit_code == 2
    assert ran.stderr.count("\n") == 1 and "is a file, not a folder" in ran.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_init_under_a_file_is_one_line(tmp_path: Path, run_cli: Invoke) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    ran = run_cli("init", str(tmp_path / "notes.txt" / "mem"), "--no-install")
    assert ran.exit_code == 3
    assert ran.stderr.count("\n") == 1 and "cannot create" in ran.stderr


@pytest.mark.parametrize("command", [
    ["flush", "--scope", "group:nope"],
    ["remember", "--scope", "group:nope", "--decision", "Use Redis"],
])
def test_a_mistyped_group_is_refused(repo: MemoryRepo, run_cli: Invoke, command: list[str]) -> None:
    head = git(repo.root, "rev-parse", "HEAD")
    ran = run_cli("--repo", str(repo.root), *command)
    assert ran.exit_code == 2
    assert "unknown group 'nope'" in ran.stderr and "--create" in ran.stderr
    assert not (repo.memory / "groups/nope").exists() and not (repo.memory / "groups/nope.md").exists()
    assert git(repo.root, "rev-parse", "HEAD") == head


def test_a_mistyped_group_under_hook_input_is_exit_1(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "flush", "--hook-input", "-", "--scope", "group:nope", input="{}")
    assert ran.exit_code == 1 and "unknown group" in ran.stderr


def test_create_starts_a_group_and_then_it_is_known(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "flush", "--scope", "group:team", "--create")
    assert ran.exit_code == 0, ran.stderr
    assert (repo.memory / "groups/team.md").is_file()
    again = run_cli("--repo", str(repo.root), "remember", "--scope", "group:team", "--decision", "Use Redis")
    assert again.exit_code == 0, again.stderr


def test_a_group_mapped_in_group_names_needs_no_create(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "group_names.json").write_text(json.dumps({"room-1": "team"}))
    ran = run_cli("--repo", str(repo.root), "remember", "--scope", "group:team", "--decision", "Use Redis")
    assert ran.exit_code == 0, ran.stderr
    assert "Use Redis" in (repo.memory / "groups/team/experience.md").read_text()


def test_invalid_utf8_is_one_cannot_read_finding_not_every_entry_gone(repo: MemoryRepo, run_cli: Invoke) -> None:
    path = repo.memory / "decisions.md"
    path.write_text(path.read_text() + record("2026-04-06", "Alpha") + record("2026-04-06", "Beta"))
    assert run_cli("--repo", str(repo.root), "flush").exit_code == 0
    path.write_bytes(path.read_bytes() + b"caf\xe9\n")
    ran = run_cli("--repo", str(repo.root), "--json", "lint")
    assert ran.exit_code == 1
    no_loss = [f for f in json.loads(ran.stdout)["findings"] if f["hook"] == "apm-no-loss"]
    assert len(no_loss) == 1 and no_loss[0]["path"] == "memory/decisions.md"
    assert "cannot read this file" in no_loss[0]["message"] and "not valid UTF-8" in no_loss[0]["message"]
    assert "is gone" not in ran.stdout


@pytest.mark.slow
def test_without_a_git_identity_the_fallback_is_said_once(tmp_path: Path) -> None:
    home = tmp_path / "no-identity-home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tuseConfigOnly = true\n[init]\n\tdefaultBranch = main\n")
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GIT_AUTHOR", "GIT_COMMITTER")) and key != "EMAIL"}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home))
    ran = subprocess.run((sys.executable, "-m", "apm_git", "init", str(tmp_path / "mem"), "--no-install"),
                         env=env, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.count("apm-git@localhost") == 1 and "git config --global user.email" in ran.stderr
    root = tmp_path / "mem"
    assert git(root, "log", "-1", "--format=%ae").strip() == "apm-git@localhost"
    (root / "memory/people.md").write_text((root / "memory/people.md").read_text() + "- Ana: on call\n")
    flushed = subprocess.run((sys.executable, "-m", "apm_git", "--json", "flush"), cwd=root,
                             env=env, capture_output=True, text=True, check=False)
    assert flushed.returncode == 0, flushed.stderr
    json.loads(flushed.stdout)  # the note goes to stderr, never into the JSON
    assert flushed.stderr.count("apm-git@localhost") == 1


def test_with_a_git_identity_nothing_is_said(repo: MemoryRepo) -> None:
    (repo.memory / "people.md").write_text((repo.memory / "people.md").read_text() + "- Ana: on call\n")
    flushed = run_apm("flush", cwd=repo.root)
    assert flushed.exit_code == 0 and "localhost" not in flushed.stderr
