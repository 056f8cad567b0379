"""`apm-git setup` on a fresh `git clone`: what `.git/config` needs, registered once; `status` tells."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.commands.init import init
from tests.conftest import Invoke, git


def cloned(tmp_path: Path) -> tuple[Path, Path]:
    """A memory repository made by `apm-git init` and a fresh `git clone` of it."""
    origin = tmp_path / "origin"
    init(origin, install=False)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return origin, clone


@pytest.mark.slow
def test_setup_registers_what_a_fresh_clone_lacks_once(tmp_path: Path, run_cli: Invoke) -> None:
    _, clone = cloned(tmp_path)
    assert git(clone, "config", "--get", "diff.apm-memory.xfuncname", check=False) == ""
    status = run_cli("--repo", str(clone), "status")
    assert ("This clone is not set up (lacks the diff driver apm-memory and the merge driver apm-memory "
            "and the pre-commit hook)") in status.stdout
    ran = run_cli("--repo", str(clone), "setup")
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout.splitlines() == ["apm-git: registered the diff driver apm-memory",
                                       "apm-git: registered the merge driver apm-memory",
                                       "apm-git: registered the path of apm-git's hook program (for commits whose "
                                       "PATH lacks it)",
                                       "apm-git: registered the pre-commit hook"]
    assert Path(git(clone, "config", "--get", "apm-git.apm-git-hook-run").strip()).name == "apm-git-hook-run"
    assert git(clone, "config", "--get", "diff.apm-memory.xfuncname").strip() == "^## .*$"
    assert git(clone, "config", "--get", "merge.apm-memory.driver").strip() == "apm-git merge-driver %O %A %B %P"
    assert "pre-commit" in (clone / ".git/hooks/pre-commit").read_text()
    config = (clone / ".git/config").read_text()
    again = run_cli("--repo", str(clone), "setup")
    assert again.exit_code == 0 and again.stdout.strip() == "apm-git: this clone is set up already"
    assert (clone / ".git/config").read_text() == config  # idempotent: nothing written twice
    assert "not set up" not in run_cli("--repo", str(clone), "status").stdout
    assert json.loads(run_cli("--repo", str(clone), "--json", "status").stdout)["not_set_up"] == []


def test_the_diff_driver_names_the_record_in_a_clone_after_setup(tmp_path: Path, run_cli: Invoke) -> None:
    _, clone = cloned(tmp_path)
    assert run_cli("--repo", str(clone), "setup", "--no-install").exit_code == 0
    longterm = clone / "memory/main/longterm.md"
    longterm.write_text(longterm.read_text() + "\n## Redis for sessions\n\n" + "".join(f"line {i}\n" for i in range(8)))
    git(clone, "commit", "-qam", "a section", "--no-verify")
    longterm.write_text(longterm.read_text().replace("line 7", "line seven"))
    assert not (clone / ".git/hooks/pre-commit").exists()  # --no-install
    diff = git(clone, "diff", "-U1", "--", "memory/main/longterm.md")
    assert "@@ ## Redis for sessions" in diff
    status = run_cli("--repo", str(clone), "--json", "status")
    assert json.loads(status.stdout)["not_set_up"] == ["the pre-commit hook"]


@pytest.mark.slow
def test_init_in_an_existing_clone_sets_it_up(tmp_path: Path, run_cli: Invoke) -> None:
    _, clone = cloned(tmp_path)
    ran = run_cli("init", str(clone))
    assert ran.exit_code == 0, ran.stderr
    assert "already initialized: nothing changed" in ran.stdout
    assert git(clone, "config", "--get", "diff.apm-memory.xfuncname").strip() == "^## .*$"
    assert git(clone, "config", "--get", "merge.apm-memory.driver").strip() == "apm-git merge-driver %O %A %B %P"
    assert "not set up" not in run_cli("--repo", str(clone), "status").stdout


def test_memory_files_are_routed_to_the_merge_driver(tmp_path: Path) -> None:
    origin, _ = cloned(tmp_path)
    checked = git(origin, "check-attr", "merge", "--", "memory/decisions.md", "memory/groups/dev.md",
                  "memory/flush-state.json", "apm.yaml")
    assert checked.splitlines() == [
        "memory/decisions.md: merge: apm-memory",
        "memory/groups/dev.md: merge: apm-memory",
        "memory/flush-state.json: merge: apm-memory",
        "apm.yaml: merge: unspecified",
    ]


def test_an_older_gitattributes_with_union_lines_is_routed_to_the_driver_by_init(tmp_path: Path) -> None:
    origin, _ = cloned(tmp_path)
    older = "$m/**/*.md diff=apm-memory\n$m/groups/*.md merge=union\n$m/main/index.md merge=union\n"
    (origin / ".gitattributes").write_text(older.replace("$m", "memory"))
    git(origin, "commit", "-qam", "an older .gitattributes", "--no-verify")
    init(origin, install=False)
    checked = git(origin, "check-attr", "merge", "--", "memory/groups/dev.md")
    assert checked.strip() == "memory/groups/dev.md: merge: apm-memory"


def test_machine_written_state_is_marked_generated(tmp_path: Path) -> None:
    origin, _ = cloned(tmp_path)
    attributes = (origin / ".gitattributes").read_text()
    assert "memory/flush-state.json linguist-generated" in attributes
    checked = git(origin, "check-attr", "linguist-generated", "--", "memory/flush-state.json", "memory/INDEX.md",
                  "memory/main/longterm.md")
    assert checked.splitlines() == [
        "memory/flush-state.json: linguist-generated: set",
        "memory/INDEX.md: linguist-generated: set",
        "memory/main/longterm.md: linguist-generated: unspecified",
    ]
