"""Put memory files back as they were when an operation fails part-way (a flush's INDEX.md and state file, forget).

A Transaction snapshots the bytes of every file before it is first written (and notes every
folder it creates); `rollback` gives each file its bytes back and removes what was created.
A consolidation needs none of this: it writes the work tree only after its commit has landed.
"""
from __future__ import annotations

import contextlib
from pathlib import Path

from apm_git.errors import EditedMeanwhile, StateError
from apm_git.store.atomic import write_atomic
from apm_git.store.repo import MemoryRepo


class Transaction:
    def __init__(self, repo: MemoryRepo) -> None:
        self.repo = repo
        self.saved: dict[str, bytes | None] = {}  # memory-relative path -> bytes before the run
        self.created_dirs: list[Path] = []

    @property
    def touched(self) -> list[str]:
        return list(self.saved)

    def guard(self, rel: str) -> Path:
        """Snapshot `rel` before something writes it; returns its path."""
        path = self.repo.path(rel)
        if rel not in self.saved:
            if path.is_dir():
                raise StateError(f"{self.repo.repo_path(rel)} is a folder where a file must go; move it away")
            self.saved[rel] = path.read_bytes() if path.exists() else None
        folder = path.parent
        missing = []
        while not folder.exists():
            missing.append(folder)
            folder = folder.parent
        for created in reversed(missing):
            created.mkdir()
            self.created_dirs.append(created)
        return path

    def write(self, rel: str, text: str, *, read: str | None = None) -> None:
        """Replace `rel` with `text`; with `read`, only if the file still holds that text ("": no file)."""
        path = self.guard(rel)
        if read is not None and (self.saved[rel] or b"") != read.encode("utf-8"):
            raise EditedMeanwhile(rel)
        write_atomic(path, text.encode("utf-8"))

    def rollback(self) -> None:
        for rel, data in reversed(self.saved.items()):
            path = self.repo.path(rel)
            if data is None:
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    path.unlink()
            else:
                write_atomic(path, data)
        for folder in reversed(self.created_dirs):
            with contextlib.suppress(OSError):
                folder.rmdir()
