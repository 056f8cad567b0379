"""apm_git.store.atomic.write_atomic: a file is replaced whole or not at all, and nothing is left behind."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.store import atomic
from apm_git.store.atomic import write_atomic


def test_replaces_the_file_and_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "decisions.md"
    path.write_bytes(b"old\n")
    path.chmod(0o640)
    write_atomic(path, b"new\n" * 1000)
    assert path.read_bytes() == b"new\n" * 1000
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(tmp_path.iterdir()) == [path]  # no temporary file left


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_its_folders_and_the_mode_the_umask_allows(tmp_path: Path, umask: int, mode: int) -> None:
    path = tmp_path / "groups/team/experience.md"
    before = os.umask(umask)
    try:
        assert atomic.umask() == umask
        write_atomic(path, b"text", sync=False)
    finally:
        os.umask(before)
    assert path.read_bytes() == b"text"
    assert path.stat().st_mode & 0o777 == mode


def test_a_failed_replace_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    (target / "inside").mkdir(parents=True)  # a folder that is not empty cannot be replaced by a file
    with pytest.raises(OSError):
        write_atomic(target, b"text")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["taken"]
    assert (target / "inside").is_dir()


@pytest.mark.slow
@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_files_init_and_flush_create_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    """Real processes under a umask: a memory in a shared folder is readable by the group and others at 022."""
    root = tmp_path / "mem"

    def apm(*args: str) -> None:
        proc = subprocess.run((sys.executable, "-m", "apm_git", *args), cwd=tmp_path, umask=umask,
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr

    apm("init", str(root), "--no-install")
    apm("--repo", str(root), "journal", "add", "ship on Tuesdays", "--kind", "decision")
    apm("--repo", str(root), "flush")
    made = [root / "apm.yaml", root / ".gitattributes", root / ".pre-commit-config.yaml", root / "memory/INDEX.md",
            root / "memory/decisions.md", root / "memory/flush-state.json", *root.glob("memory/20*.md")]
    assert len(made) == 7  # the journal of today among them
    assert {path.name: path.stat().st_mode & 0o777 for path in made} == {path.name: mode for path in made}
    kept = root / "memory/lessons.md"
    kept.chmod(0o600)  # a mode the user chose stays when apm-git rewrites the file
    kept.write_text(kept.read_text() + "\n")
    apm("--repo", str(root), "flush")
    assert kept.stat().st_mode & 0o777 == 0o600
