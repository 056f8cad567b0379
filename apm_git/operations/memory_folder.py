"""What `init` checks of the memory dir before it writes anything (docs/adopting.md, "A folder that is not
memory"): that it is a folder, and one that looks like an agent's memory (apm_git/model/memory_folder.py)."""
from __future__ import annotations

import os
from pathlib import Path

from apm_git.errors import StateError
from apm_git.model import memory_folder
from apm_git.model.config import CONFIG_FILE

HEAD = 4096  # characters of a Markdown file read for a dated record
MOST = 5000  # files looked at: enough to judge, bounded for a huge folder


def check(root: Path, memory_dir: str, *, force: bool) -> None:
    """Refuse, before anything is written, a memory dir that is a file, or (unless `force`) a folder that does
    not look like an agent's memory; one line naming what was found and the way out."""
    folder = root / memory_dir
    if folder.is_symlink() or not folder.exists():
        return  # a link is refused by the layout's own check; a missing folder is made
    if not folder.is_dir():
        raise StateError(f"{folder} is a file, not the memory folder; move it away, or keep memory in another folder: "
                         f"write `memory_dir: NAME` into {root / CONFIG_FILE} first")
    if force:
        return
    found = memory_folder.refusal(_files(folder))
    if found is not None:
        raise StateError(f"{memory_dir}/ does not look like an agent's memory ({found}); keep memory in another "
                         f"folder: write `memory_dir: NAME` into {root / CONFIG_FILE} first, or adopt this one anyway "
                         "with `apm-git init --force`")


def _files(folder: Path) -> list[tuple[str, str]]:
    files = []
    for current, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        for name in sorted(names):
            path = Path(current, name)
            rel = path.relative_to(folder).as_posix()
            head = ""
            if name.lower().endswith(memory_folder.MARKDOWN):
                try:
                    with path.open(encoding="utf-8", errors="replace") as text:
                        head = text.read(HEAD)
                except OSError:
                    pass
            files.append((rel, head))
            if len(files) >= MOST:
                return files
    return files
