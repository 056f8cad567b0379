"""Two clones of one memory that changed the body of the same entry differently, and the sync merge that
kept both versions for a person to settle: real `apm-git` processes, a real bare remote."""
from __future__ import annotations

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


def conflicting_sync(tmp_path: Path) -> tuple[Path, Ran]:
    """`conflicted`, and what its sync printed."""
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
