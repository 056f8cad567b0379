"""Each expected error: one clear line naming the fix, the right exit code, nothing changed."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import Invoke, git, run_apm


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_not_a_memory_repository(tmp_path: Path, run_cli: Invoke) -> None:
    git(tmp_path, "init", "-q")
    ran = run_cli("--repo", str(tmp_path), "status")
    assert ran.exit_code == 3
    line = one_line(ran.stderr)
    assert f"--repo names {tmp_path}, in {tmp_path}, which has no apm.yaml (not a memory repository)" in line
    assert f"give --repo your memory repository's folder (or run `apm-git init {tmp_path}`" in line
    ran = run_cli("--repo", str(tmp_path / "missing"), "flush")
    assert ran.exit_code == 3 and "does not exist" in one_line(ran.stderr)


@pytest.mark.parametrize("name", ["flush-state.json", "group_names.json"])
@pytest.mark.parametrize("content", ['{"groups": ', "[]", '{"groups": []}'])
def test_corrupt_state_files_are_left_untouched(repo: MemoryRepo, run_cli: Invoke, name: str, content: str) -> None:
    if name == "group_names.json" and content == '{"groups": []}':
        content = '{"room": ["x"]}'
    (repo.memory / name).write_text(content)
    (repo.memory / "lessons.md").write_text("# Lessons\n\nchanged\n")
    args = ["flush", "--room", "r1"] if name == "group_names.json" else ["flush"]
    ran = run_cli("--repo", str(repo.root), *args)
    assert ran.exit_code == 3
    line = one_line(ran.stderr)
    assert f"memory/{name}" in line and "git checkout --" in line
    assert (repo.memory / name).read_text() == content
    assert git(repo.root, "rev-list", "--count", "HEAD").strip() == "1"


def test_unknown_room(repo: MemoryRepo, run_cli: Invoke) -> None:
    ran = run_cli("--repo", str(repo.root), "flush", "--room", "!room:example.org")
    assert ran.exit_code == 3
    assert one_line(ran.stderr) == (
        "apm-git: room '!room:example.org' is not mapped in memory/group_names.json; "
        'add "!room:example.org": "<group name>" to it'
    )


@pytest.mark.parametrize("name", ["../x", "/etc", "a/b", "..", "UPPER", "", "last_flush_time"])
def test_unsafe_group_names_on_the_command_line(repo: MemoryRepo, run_cli: Invoke, name: str) -> None:
    ran = run_cli("--repo", str(repo.root), "flush", "--scope", f"group:{name}")
    assert ran.exit_code == 2
    assert "unsafe group name" in one_line(ran.stderr)
    assert not (repo.root.parent / "x.md").exists()


@pytest.mark.parametrize("name", ["../../escape", "last_flush_time"])
def test_unsafe_group_name_in_group_names_json(repo: MemoryRepo, run_cli: Invoke, name: str) -> None:
    (repo.memory / "group_names.json").write_text(json.dumps({"room-1": name}))
    for args in (["flush", "--room", "room-1"], ["flush"]):
        ran = run_cli("--repo", str(repo.root), *args)
        assert ran.exit_code == 3 and f"unsafe group name {name!r}" in one_line(ran.stderr)
    assert not (repo.root.parent / "escape.md").exists()


def test_symlink_out_of_the_memory_dir(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo.memory / "groups").mkdir()
    (repo.memory / "groups" / "evil").symlink_to(outside, target_is_directory=True)
    ran = run_cli("--repo", str(repo.root), "flush", "--scope", "group:evil")
    assert ran.exit_code == 3 and "symlink" in one_line(ran.stderr)
    assert list(outside.iterdir()) == []


def test_a_group_file_linked_out_of_the_memory_dir(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("not memory\n")
    (repo.memory / "groups/team").mkdir(parents=True)
    (repo.memory / "groups/team/people.md").symlink_to(secret)
    ran = run_cli("--repo", str(repo.root), "flush", "--scope", "group:team")
    assert ran.exit_code == 3 and "resolves outside the memory dir" in one_line(ran.stderr)
    assert secret.read_text() == "not memory\n"


def test_invalid_utf8_in_a_memory_file(repo: MemoryRepo, run_cli: Invoke) -> None:
    bad = b"# Journal\n\n## [2026-04-06] caf\xe9\n"
    (repo.memory / "2026-04-06.md").write_bytes(bad)
    ran = run_cli("--repo", str(repo.root), "journal", "add", "x", "--kind", "lesson",
                  env={"APM_GIT_NOW": "2026-04-06"})
    assert ran.exit_code == 3
    assert one_line(ran.stderr).startswith("apm-git: memory/2026-04-06.md:3: not valid UTF-8")
    assert (repo.memory / "2026-04-06.md").read_bytes() == bad


def test_flush_saves_memory_even_with_invalid_utf8(repo: MemoryRepo, run_cli: Invoke) -> None:
    bad = b"# Journal\n\ncaf\xe9\n"
    (repo.memory / "2026-04-06.md").write_bytes(bad)
    ran = run_cli("--repo", str(repo.root), "flush")
    assert ran.exit_code == 0
    assert "not valid UTF-8" in ran.stderr
    assert git(repo.root, "show", "HEAD:memory/2026-04-06.md").encode("utf-8", "surrogateescape")
    assert "Apm-Finding: memory/2026-04-06.md:3: not valid UTF-8" in git(repo.root, "log", "-1", "--format=%B")


def test_bad_apm_git_now(repo: MemoryRepo) -> None:
    ran = run_apm("status", cwd=repo.root, env={"APM_GIT_NOW": "yesterday"})
    assert ran.exit_code == 3 and "APM_GIT_NOW" in one_line(ran.stderr)


def test_hook_input_that_is_not_utf8(repo: MemoryRepo) -> None:
    proc = subprocess.run((sys.executable, "-m", "apm_git", "flush", "--hook-input", "-"), cwd=repo.root,
                          input=b'{"session_id": "caf\xe9"}', capture_output=True, check=False)
    assert proc.returncode == 3
    assert "not valid UTF-8" in one_line(proc.stderr.decode())


def test_damaged_file_does_not_stop_status_or_a_hit_elsewhere(repo: MemoryRepo, run_cli: Invoke) -> None:
    (repo.memory / "2026-04-05.md").write_bytes(b"# Journal\n\ncaf\xe9\n")
    run_cli("--repo", str(repo.root), "journal", "add", "use redis", "--kind", "decision", "--title", "Redis",
            env={"APM_GIT_NOW": "2026-04-06"})
    ran = run_cli("--repo", str(repo.root), "status", "--files")
    assert ran.exit_code == 0 and "   3 / 100   memory/2026-04-05.md" in ran.stdout
    assert "memory/2026-04-05.md:3: apm-record-format: not valid UTF-8" in ran.stdout
    ran = run_cli("--repo", str(repo.root), "hit", "2026-04-06-redis", env={"APM_GIT_NOW": "2026-04-07"})
    assert ran.exit_code == 0, ran.stderr
    assert "hit_count=1" in (repo.memory / "2026-04-06.md").read_text()
    assert "skipped memory/2026-04-05.md:3: not valid UTF-8" in ran.stderr
    assert (repo.memory / "2026-04-05.md").read_bytes() == b"# Journal\n\ncaf\xe9\n"


def test_a_plan_that_is_not_utf8_is_refused(repo: MemoryRepo, run_cli: Invoke, tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_bytes(b"\xff\xfe{")
    head = git(repo.root, "rev-parse", "HEAD")
    ran = run_cli("--repo", str(repo.root), "deep-sleep", "--apply", str(plan))
    assert ran.exit_code == 1 and "not valid UTF-8" in one_line(ran.stderr)
    assert git(repo.root, "rev-parse", "HEAD") == head


@pytest.mark.slow
def test_every_exception_class_lives_in_errors_py() -> None:
    """One hierarchy in one file (apm_git/errors.py): a reader finds every error a command can end with there.

    A private class (a leading underscore) that never leaves its module is allowed: control flow, not an error.
    """
    import ast

    package = Path(__file__).resolve().parents[2] / "apm_git"
    errors = ast.parse((package / "errors.py").read_text(encoding="utf-8"))
    known = {"Exception", "ValueError", *(node.name for node in errors.body if isinstance(node, ast.ClassDef))}
    outside = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "errors.py" and path.parent == package:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            bases = {base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
                     for base in node.bases}
            if bases & known or any(name.endswith(("Error", "Exception")) for name in bases):
                outside.append(f"{path.relative_to(package.parent)}: class {node.name}")
    assert outside == []
