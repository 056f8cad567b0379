"""Two clones of one memory that changed the body of the same entry differently, and the sync merge that
kept both versions for a person to settle: real `apm-git` processes, a real bare remote."""
from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from tests.conftest import Ran, run_apm
from tests.sync_helpers import bare_remote, clone, first_clone, git

NOW = "2026-05-04T10:00:00"
JOURNAL = "memory/2026-05-04.md"
MINE = "2026-05-04-shared-lesson"  # the merging clone's version keeps the id
THEIRS = "2026-05-04-shared-lesson-merge-other-version"


def apm(root: Path, *args: str, expect: int | None = 0, now: str = NOW) -> Ran:
    ran = run_apm(*args, cwd=root, env={"APM_GIT_NOW": now})
    assert expect is None or ran.exit_code == expect, (args, ran.stdout, ran.stderr)
    return ran


def conflicted(tmp_path: Path) -> Path:
    """The server's clone after `sync` merged the laptop's version of the entry into its own (exit 1):
    both versions live in the journal, linked by `Conflicts:`, committed and pushed."""
    return conflicting_sync(tmp_path)[0]


# The conflict is made once per worker and day (seven real `apm-git` processes, a few seconds) and copied
# for each test that asks for it, as the `repo` fixture copies its init: the copy is the same three
# repositories, with the remote's path, the index's file times and the clone ids moved to where it lies.
_MADE: dict[str, tuple[Path, Ran]] = {}
PARTS = ("remote.git", "laptop", "server")


def conflicting_sync(tmp_path: Path) -> tuple[Path, Ran]:
    """`conflicted`, and what its sync printed."""
    today = dt.date.today().isoformat()
    if today not in _MADE:
        made = tmp_path.parent / f"conflict-{today}"  # beside the test's folder: this worker's base folder
        made.mkdir()
        _MADE[today] = (made, make_conflict(made)[1])
    made, ran = _MADE[today]
    for part in PARTS:
        shutil.copytree(made / part, tmp_path / part, symlinks=True, copy_function=shutil.copy)
    for part in ("laptop", "server"):
        root = tmp_path / part
        git(root, "remote", "set-url", "origin", str(tmp_path / "remote.git"))
        git(root, "update-index", "-q", "--refresh")
        ident = root / ".git" / "apm-git" / "clone-id"
        ident.write_text(ident.read_text().replace(str((made / part).resolve()), str(root.resolve())))
    return tmp_path / "server", ran


def make_conflict(tmp_path: Path) -> tuple[Path, Ran]:
    url = str(bare_remote(tmp_path))
    laptop = first_clone(tmp_path / "laptop", url)
    apm(laptop, "journal", "add", "shared lesson: what was learned", "--kind", "lesson", "--title", "shared lesson")
    apm(laptop, "sync")
    server = clone(tmp_path / "server", url)
    apm(server, "setup", "--no-install")
    for root, text in ((laptop, "the laptop's version"), (server, "the server's version")):
        path = root / JOURNAL
        path.write_text(path.read_text().replace("shared lesson: what was learned", text))
    apm(laptop, "sync")
    ran = apm(server, "sync", expect=1)
    assert "CONFLICT" in ran.stderr, ran.stderr
    assert git(server, "status", "--porcelain") == ""
    return server, ran
