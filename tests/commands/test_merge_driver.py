"""`apm-git merge-driver` through a real `git merge` of two branches, registered by `apm-git init`."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from apm_git.commands.init import init
from apm_git.merge.conserve import lost_entries
from apm_git.model.records import parse
from tests.cli.test_json_schemas import validator
from tests.conftest import Invoke, git


def rec(title: str, *, hits: int = 1, body: str = "The body.", fields: str = "") -> str:
    return (f"## [2026-04-06] {title}\n- Tags: decision\n"
            f"- Fitness: last_referenced=2026-04-07, hit_count={hits}, decision_value=MEDIUM\n"
            f"- Body: {body}\n{fields}\n")


def memory(tmp_path: Path) -> Path:
    root = tmp_path / "mem"
    init(root, install=False)
    decisions = root / "memory/decisions.md"
    decisions.write_text(decisions.read_text() + "\n" + rec("Redis cache") + rec("Use uv"))
    git(root, "commit", "-qam", "two decisions", "--no-verify")
    git(root, "branch", "other")
    return root


def commit_on(root: Path, branch: str, edits: dict[str, str]) -> None:
    git(root, "checkout", "-q", branch)
    for name, text in edits.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        git(root, "add", "--", name)
    git(root, "commit", "-qm", f"edits on {branch}", "--no-verify")


def merge(root: Path) -> subprocess.CompletedProcess[str]:
    git(root, "checkout", "-q", "main")
    return subprocess.run(("git", "merge", "--no-edit", "other"), cwd=root, capture_output=True, text=True,
                          check=False)


def tree(root: Path, rev: str) -> dict[str, str]:
    names = git(root, "ls-tree", "-r", "--name-only", rev, "--", "memory").split()
    return {name: git(root, "show", f"{rev}:{name}") for name in names}


@pytest.mark.slow
def test_a_hit_and_an_edit_of_one_entry_merge_cleanly(tmp_path: Path) -> None:
    root = memory(tmp_path)
    text = (root / "memory/decisions.md").read_text()
    commit_on(root, "other", {"memory/decisions.md": text.replace(rec("Redis cache"), rec("Redis cache", hits=3))
                              + rec("Theirs new")})
    commit_on(root, "main", {"memory/decisions.md": text.replace(rec("Redis cache"), rec("Redis cache", body="Edited."))
                             + rec("Ours new")})
    ran = merge(root)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    merged = (root / "memory/decisions.md").read_text()
    assert "<<<<<<<" not in merged
    assert rec("Redis cache", hits=3, body="Edited.") in merged
    assert [r.title for r in parse(merged).records] == ["Redis cache", "Use uv", "Ours new", "Theirs new"]
    assert git(root, "status", "--porcelain") == ""


@pytest.mark.slow
def test_the_body_changed_on_both_sides_is_a_conflict_with_both_versions_and_no_markers(
    tmp_path: Path, run_cli: Invoke,
) -> None:
    root = memory(tmp_path)
    text = (root / "memory/decisions.md").read_text()
    commit_on(root, "other", {"memory/decisions.md": text.replace("The body.", "Theirs.", 1)})
    commit_on(root, "main", {"memory/decisions.md": text.replace("The body.", "Ours.", 1)})
    ran = merge(root)
    assert ran.returncode != 0  # kept for a person: git stops before committing
    assert "memory/decisions.md" in git(root, "diff", "--name-only", "--diff-filter=U")
    merged = (root / "memory/decisions.md").read_text()
    assert "<<<<<<<" not in merged and "Body: Ours." in merged and "Body: Theirs." in merged
    records = {r.id: r for r in parse(merged).records}
    assert records["2026-04-06-redis-cache"].field("Conflicts", ).startswith(  # type: ignore[union-attr]
        "2026-04-06-redis-cache-merge-other-version — ")
    git(root, "add", "memory/decisions.md")
    git(root, "commit", "-qm", "merged", "--no-verify")
    assert lost_entries(tree(root, "HEAD^1"), tree(root, "HEAD^1"), tree(root, "HEAD^2"), tree(root, "HEAD")) == []
    status = run_cli("--repo", str(root), "status").stdout
    assert "Entries in conflict: 2" in status
    assert (": 2026-04-06-redis-cache: `apm-git resolve 2026-04-06-redis-cache --keep this|other|both` "
            "(Conflicts: 2026-04-06-redis-cache-merge-other-version — ") in status
    assert run_cli("--repo", str(root), "index").exit_code == 0
    index = (root / "memory/INDEX.md").read_text()
    assert "2026-04-06-redis-cache " in index or "2026-04-06-redis-cache |" in index
    assert "2026-04-06-redis-cache-merge-other-version" in index


@pytest.mark.slow
def test_an_entry_archived_on_one_branch_and_hit_on_the_other_ends_archived_only(tmp_path: Path) -> None:
    root = memory(tmp_path)
    text = (root / "memory/decisions.md").read_text()
    archived = rec("Redis cache", fields="- Archived: 2026-05-01 (fitness score: 20)\n")
    commit_on(root, "other", {"memory/decisions.md": text.replace(rec("Redis cache"), rec("Redis cache", hits=2))})
    commit_on(root, "main", {"memory/decisions.md": text.replace(rec("Redis cache"), ""),
                             "memory/archive/2026-05.md": "# Archive 2026-05\n\n" + archived})
    ran = merge(root)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Redis cache" not in (root / "memory/decisions.md").read_text()
    assert "Redis cache" in (root / "memory/archive/2026-05.md").read_text()


@pytest.mark.slow
def test_append_only_index_and_group_names_merge_through_git(tmp_path: Path) -> None:
    root = memory(tmp_path)
    index = (root / "memory/main/index.md").read_text()
    commit_on(root, "other", {"memory/main/index.md": index + "| theirs.md | t |\n",
                              "memory/group_names.json": '{"room-2": "web"}\n'})
    commit_on(root, "main", {"memory/main/index.md": index + "| ours.md | o |\n",
                             "memory/group_names.json": '{"room-1": "dev"}\n'})
    ran = merge(root)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert (root / "memory/main/index.md").read_text() == index + "| ours.md | o |\n| theirs.md | t |\n"
    assert (root / "memory/group_names.json").read_text() == '{\n  "room-1": "dev",\n  "room-2": "web"\n}\n'


def test_the_driver_alone_merges_one_file_and_keeps_an_entry_deleted_on_one_side_and_changed_on_the_other(
    tmp_path: Path, run_cli: Invoke,
) -> None:
    base, ours, theirs = (tmp_path / name for name in ("O", "A", "B"))
    base.write_text("# Decisions\n\n" + rec("Redis cache") + rec("Use uv"))
    ours.write_text("# Decisions\n\n" + rec("Use uv"))
    theirs.write_text("# Decisions\n\n" + rec("Redis cache", hits=2) + rec("Use uv"))
    ran = run_cli("merge-driver", str(base), str(ours), str(theirs), "memory/decisions.md")
    assert ran.exit_code == 0, ran.stderr
    assert ours.read_text() == "# Decisions\n\n" + rec("Redis cache", hits=2) + rec("Use uv")


def test_the_driver_reports_a_conflict_with_exit_1(tmp_path: Path, run_cli: Invoke) -> None:
    base, ours, theirs = (tmp_path / name for name in ("O", "A", "B"))
    base.write_text("# Notes\n\n## Stack\nPython.\n")
    ours.write_text("# Notes\n\n## Stack\nPython 3.12.\n")
    theirs.write_text("# Notes\n\n## Stack\nPython 3.13.\n")
    ran = run_cli("merge-driver", str(base), str(ours), str(theirs), "memory/main/longterm.md")
    assert ran.exit_code == 1
    assert "merge conflict kept in memory/main/longterm.md" in ran.stderr
    assert "Python 3.12." in ours.read_text() and "Python 3.13." in ours.read_text()


def test_the_driver_leaves_a_file_that_is_not_utf8_as_it_was(tmp_path: Path, run_cli: Invoke) -> None:
    base, ours, theirs = (tmp_path / name for name in ("O", "A", "B"))
    base.write_bytes(b"a\n")
    ours.write_bytes(b"\xff\xfe ours\n")
    theirs.write_bytes(b"theirs\n")
    ran = run_cli("merge-driver", str(base), str(ours), str(theirs), "memory/blob.md")
    assert ran.exit_code == 3 and "memory/blob.md" in ran.stderr and len(ran.stderr.strip().splitlines()) == 1
    assert ours.read_bytes() == b"\xff\xfe ours\n"


@pytest.mark.slow
def test_a_git_merge_that_puts_a_file_over_its_budget_says_so_and_the_next_rem_settles_it(
    tmp_path: Path, run_cli: Invoke,
) -> None:
    root = memory(tmp_path)  # decisions.md: 16 lines, 21 on each side, 26 merged
    config = root / "apm.yaml"
    config.write_text(config.read_text().replace("decisions.md: 200", "decisions.md: 22"))
    git(root, "commit", "-qam", "a budget of 22 lines", "--no-verify")
    git(root, "branch", "-f", "other")
    base = git(root, "rev-parse", "HEAD").strip()
    text = (root / "memory/decisions.md").read_text()
    commit_on(root, "other", {"memory/decisions.md": text + rec("Theirs new")})
    commit_on(root, "main", {"memory/decisions.md": text + rec("Ours new")})
    ran = merge(root)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ("apm-git: WARNING: memory/decisions.md is over its line budget after this merge (26/22 lines): a git merge "
            "sees one file and cannot archive; the next `apm-git rem`") in ran.stderr
    lint = run_cli("--repo", str(root), "lint", "--from-ref", base, "--to-ref", "HEAD")
    assert lint.exit_code == 1
    assert ("memory/decisions.md:23: apm-budget: 26/22 lines: over its line budget by 4; the next `apm-git rem` (or "
            "`apm-git dream`, when REM is due) archives its lowest-scored entries (a person's own `git merge` of two "
            "memories can leave a file over budget; `apm-git sync` archives in its merge)") in lint.stdout
    rem = run_cli("--repo", str(root), "rem", env={"APM_GIT_NOW": "2026-04-08T10:00:00"})
    assert rem.exit_code == 0 and "archived 1" in rem.stdout, rem.stdout + rem.stderr
    lint = run_cli("--repo", str(root), "lint", "--from-ref", base, "--to-ref", "HEAD")
    assert lint.exit_code == 0, lint.stdout


def test_json_names_the_budget_the_merge_passed(
    tmp_path: Path, run_cli: Invoke, monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = memory(tmp_path)
    config = root / "apm.yaml"
    config.write_text(config.read_text().replace("decisions.md: 200", "decisions.md: 22"))
    text = (root / "memory/decisions.md").read_text()
    base, ours, theirs = (tmp_path / name for name in ("O", "A", "B"))
    base.write_text(text)
    ours.write_text(text + rec("Ours new"))
    theirs.write_text(text + rec("Theirs new"))
    monkeypatch.chdir(root)  # as git runs the driver: apm.yaml is found from the work tree
    ran = run_cli("--json", "merge-driver", str(base), str(ours), str(theirs), "memory/decisions.md")
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["over_budget"] == {"lines": 26, "budget": 22}
    assert not list(validator("merge-driver").iter_errors(data))


@pytest.mark.slow
def test_a_git_merge_that_puts_a_journal_over_its_budget_points_at_the_journal_budget_not_at_rem(
    tmp_path: Path,
) -> None:
    root = memory(tmp_path)
    config = root / "apm.yaml"
    config.write_text(config.read_text().replace("  journal: 100\n", "  journal: 12\n"))
    journal = "memory/2026-04-06.md"
    (root / journal).write_text("# Journal 2026-04-06\n\n" + rec("Base item"))
    git(root, "add", "--", journal)
    git(root, "commit", "-qam", "a journal budget of 12 lines", "--no-verify")
    git(root, "branch", "-f", "other")
    text = (root / journal).read_text()  # 7 lines; 12 on each side, 17 merged
    commit_on(root, "other", {journal: text + rec("Theirs item")})
    commit_on(root, "main", {journal: text + rec("Ours item")})
    ran = merge(root)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert len((root / journal).read_text().splitlines()) == 17
    assert (f"apm-git: WARNING: {journal} is over its line budget after this merge (17/12 lines): the union of both "
            "sides' journals, kept whole (deep sleep promotes its items); a memory several agents share needs a "
            "journal budget sized for them (`budgets` -> `journal` in apm.yaml)") in ran.stderr
    assert "apm-git rem" not in ran.stderr
