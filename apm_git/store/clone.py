"""This clone's id: a random name kept under the git dir, carried by every commit apm-git makes.

Two clones that make the same change from the same commit in the same second (two agents hitting
one entry, with no git identity of their own, so both commit as apm-git's fallback identity) would
otherwise build byte-identical commits: git takes them for one, and one side's change vanishes
from the count of a later merge.  The trailer `Apm-Clone: <id>` keeps their commits apart.

The id names the clone, not the machine or the user: a random 16 hex digits, made on first use.
The file also records the git dir it was made in, so a repository copied whole (`cp -r`, a
backup restored beside the original) gets an id of its own on its first commit.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from apm_git.store.atomic import write_atomic

CLONE_FILE = "clone-id"
TRAILER = "Apm-Clone"


def clone_id(git_dir: Path) -> str:
    """The id of the clone whose git dir is `git_dir`, made (and kept) on first use."""
    path = git_dir / "apm-git" / CLONE_FILE
    home = os.path.realpath(git_dir)
    try:
        ident, _, made_in = path.read_text(encoding="utf-8").strip().partition("\t")
    except (OSError, UnicodeDecodeError):
        ident, made_in = "", ""
    if len(ident) == 16 and all(char in "0123456789abcdef" for char in ident) and made_in == home:
        return ident
    ident = secrets.token_hex(8)
    write_atomic(path, f"{ident}\t{home}\n".encode())
    return ident


def clone_trailer(git_dir: Path) -> tuple[str, str]:
    return TRAILER, clone_id(git_dir)
