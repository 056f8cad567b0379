"""`init` adopts a memory folder only when it looks like an agent's memory, and the merge driver takes memory
Markdown only: a project's own `memory/` (C code, its README) is refused in one line, before anything is
written, unless `--force`."""
from __future__ import annotations

from pathlib import Path

import pytest

from apm_git.model.memory_folder import refusal
from apm_git.operations.memory_folder import _files
from tests.cli.test_errors import one_line
from tests.conftest import Invoke, git
from tests.realworld import cases_dir

SLAB = "/* the slab allocator */\n#include <stdlib.h>\n\nvoid *slab_alloc(size_t n) { return malloc(n); }\n"


def project(tmp_path: Path, files: dict[str, str], *, repository: bool = True) -> Path:
    root = tmp_path / "proj"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    if repository:
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "the project")
    return root


def test_a_folder_of_code_is_refused_and_nothing_is_written(tmp_path: Path, run_cli: Invoke) -> None:
    root = project(tmp_path, {"memory/slab.c": SLAB, "memory/README.md": "# Memory allocator\n\nSlabs.\n",
                              "src/main.c": "int main(void) { return 0; }\n"})
    head = git(root, "rev-parse", "HEAD")
    ran = run_cli("init", str(root), "--no-install")
    assert ran.exit_code == 3
    assert one_line(ran.stderr) == (
        "apm-git: memory/ does not look like an agent's memory (slab.c, README.md: files that are not Markdown, and "
        "no journal, memory file or dated record among them); keep memory in another folder: write "
        f"`memory_dir: NAME` into {root / 'apm.yaml'} first, or adopt this one anyway with `apm-git init --force`")
    assert git(root, "rev-parse", "HEAD") == head and git(root, "status", "--porcelain") == ""
    assert not (root / "apm.yaml").exists() and not (root / ".gitattributes").exists()


def test_without_git_no_repository_is_left_behind(tmp_path: Path, run_cli: Invoke) -> None:
    root = project(tmp_path, {"memory/README.md": "# Memory\n", "memory/CHANGELOG.md": "## 1.0\n"}, repository=False)
    ran = run_cli("init", str(root), "--no-install")
    assert ran.exit_code == 3 and "README.md: a project's documentation" in one_line(ran.stderr)
    assert sorted(path.name for path in root.iterdir()) == ["memory"]


@pytest.mark.slow
def test_force_adopts_it_and_the_merge_driver_leaves_the_code_to_git(tmp_path: Path, run_cli: Invoke) -> None:
    root = project(tmp_path, {"memory/slab.c": SLAB, "memory/README.md": "# Memory allocator\n"})
    ran = run_cli("init", str(root), "--no-install", "--force")
    assert ran.exit_code == 0, ran.stderr
    attributes = git(root, "check-attr", "merge", "--", "memory/slab.c", "memory/decisions.md",
                     "memory/flush-state.json", "memory/group_names.json", "src/x.md")
    assert attributes.splitlines() == ["memory/slab.c: merge: unspecified", "memory/decisions.md: merge: apm-memory",
                                       "memory/flush-state.json: merge: apm-memory",
                                       "memory/group_names.json: merge: apm-memory", "src/x.md: merge: unspecified"]
    # Both sides change the C file: git's own merge, never apm-git's (which would write HTML comments into it).
    git(root, "checkout", "-qb", "other")
    (root / "memory/slab.c").write_text(SLAB.replace("the slab allocator", "the slab allocator, v2"))
    git(root, "commit", "-qam", "other side", "--no-verify")
    git(root, "checkout", "-q", "main")
    (root / "memory/slab.c").write_text(SLAB.replace("malloc(n)", "calloc(1, n)"))
    git(root, "commit", "-qam", "this side", "--no-verify")
    git(root, "merge", "-q", "--no-edit", "other")
    merged = (root / "memory/slab.c").read_text()
    assert "v2" in merged and "calloc" in merged and "<!--" not in merged


def test_another_memory_dir_leaves_the_code_folder_alone(tmp_path: Path, run_cli: Invoke) -> None:
    root = project(tmp_path, {"memory/slab.c": SLAB})
    (root / "apm.yaml").write_text("memory_dir: agent-memory\n")
    ran = run_cli("init", str(root), "--no-install")
    assert ran.exit_code == 0, ran.stderr
    assert (root / "agent-memory/INDEX.md").is_file()
    assert "memory/slab.c" not in git(root, "show", "--name-only", "--format=", "HEAD")
    assert "agent-memory/**/*.md merge=apm-memory" in (root / ".gitattributes").read_text()


def test_a_file_named_memory_is_named_and_nothing_is_left_behind(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "memory").write_text("my memory, one file\n")
    ran = run_cli("init", str(root), "--no-install")
    assert ran.exit_code == 3
    assert one_line(ran.stderr).startswith(f"apm-git: {root / 'memory'} is a file, not the memory folder; move it away")
    assert sorted(path.name for path in root.iterdir()) == ["memory"], "no .git, no apm.yaml"


@pytest.mark.parametrize(("files", "adopted"), [
    ({"2026-04-06.md": "went well"}, True),  # a journal
    ({"standup-2026-04-06.md": "x"}, True),
    ({"ideas.md": "# Ideas\n", "self.md": "# Me\n"}, True),  # Markdown notes, nothing else
    ({"ideas.md": "# Ideas\n", "state.json": "{}", "run.log": ""}, True),  # notes with data beside them
    ({"topics.md": "## [2026-04-06] Redis\n- Tags: decision\n"}, True),  # a dated record
    ({"MEMORY.md": "# Memory\n", "embeddings.mjs": "export {}\n"}, True),  # an agent's memory with its tooling
    ({"groups/team.md": "# team\n"}, True),
    ({".dreams/events.jsonl": "{}"}, True),  # only hidden files: nothing to judge
    ({"slab.c": SLAB}, False),
    ({"README.md": "# Memory\n"}, False),
    ({"README.md": "# Memory\n", "pool.rs": "fn main() {}\n"}, False),
    ({"cache.json": "{}"}, False),  # data with no notes
])
def test_what_counts_as_memory(files: dict[str, str], adopted: bool) -> None:
    assert (refusal(sorted(files.items())) is None) is adopted


def test_every_real_workspace_is_taken_for_memory() -> None:
    cases = cases_dir()
    if cases is None:
        pytest.skip("the shared real workspaces are absent (../shared/realworld/cases or $APM_GIT_REALWORLD_CASES)")
    folders = sorted(path for path in cases.glob("*/memory") if path.is_dir())
    assert len(folders) >= 11
    assert {folder.parent.name: refusal(_files(folder)) for folder in folders} == \
        {folder.parent.name: None for folder in folders}


def test_init_narrows_the_merge_line_an_older_init_wrote(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "old"
    assert run_cli("init", str(root), "--no-install").exit_code == 0
    attributes = root / ".gitattributes"
    old = attributes.read_text().replace("memory/**/*.md merge=apm-memory\n", "memory/** merge=apm-memory\n")
    attributes.write_text(old + "*.png binary\n")
    git(root, "commit", "-qam", "as an older apm-git left it", "--no-verify")
    assert "memory/** merge=apm-memory" in git(root, "show", "HEAD:.gitattributes")
    ran = run_cli("init", str(root), "--no-install")
    assert ran.exit_code == 0 and "updated .gitattributes" in ran.stdout, ran.stdout
    text = attributes.read_text()
    assert "memory/** merge=apm-memory" not in text and "memory/**/*.md merge=apm-memory" in text
    assert text.endswith("*.png binary\nmemory/**/*.md merge=apm-memory\n")  # the user's line stays
    assert git(root, "check-attr", "merge", "--", "memory/notes.c").strip() == "memory/notes.c: merge: unspecified"
