"""apm_git.store.atomic.write_atomic: a file is replaced whole or not at all, and nothing is left behind."""
from __future__ import annotations

from pathlib import Path

import pytest

from apm_git.store.atomic import write_atomic


def test_replaces_the_file_and_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "decisions.md"
    path.write_bytes(b"old\n")
    path.chmod(0o640)
    write_atomic(path, b"new\n" * 1000)
    assert path.read_bytes() == b"new\n" * 1000
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(tmp_path.iterdir()) == [path]  # no temporary file left


def test_a_new_file_gets_its_folders_and_stays_private(tmp_path: Path) -> None:
    path = tmp_path / "groups/team/experience.md"
    write_atomic(path, b"text", sync=False)
    assert path.read_bytes() == b"text"
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_failed_replace_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    (target / "inside").mkdir(parents=True)  # a folder that is not empty cannot be replaced by a file
    with pytest.raises(OSError):
        write_atomic(target, b"text")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["taken"]
    assert (target / "inside").is_dir()
