"""Where things live in the memory dir (docs/design.md 2), and auto-initialization (APM rule 6).

Auto-initialization only ever creates files that are completely absent.
"""
from __future__ import annotations

import datetime as dt
import os
from collections.abc import Collection, Mapping
from pathlib import Path

from apm_git.errors import UnsafePath
from apm_git.model.dated import journal_date
from apm_git.model.groups import check_group_name, is_group_name
from apm_git.model.names import GROUP_FILES, GROUP_NAMES, GROUPS, MAIN, MAIN_FILES, MAIN_INDEX, MEMORY_MD
from apm_git.store import templates
from apm_git.store.repo import MemoryRepo, decode
from apm_git.store.state import group_names as read_group_names


def category_files(repo: MemoryRepo) -> list[str]:
    return list(dict.fromkeys(repo.config.routing.values()))






def journals(repo: MemoryRepo) -> list[str]:
    """Live daily journals (top of the memory dir), oldest first."""
    if not repo.memory.is_dir():
        return []
    names = [path.name for path in repo.memory.glob("*.md") if path.is_file() and journal_date(path.name)]
    return sorted(names)




def group_index(group: str) -> str:
    return f"{GROUPS}/{check_group_name(group)}.md"


def group_dir(group: str) -> str:
    return f"{GROUPS}/{check_group_name(group)}"


def groups(repo: MemoryRepo) -> list[str]:
    """The groups under groups/: an index file `<group>.md` or a folder (not a link) with a group name.

    Anything else there (a folder named `Foo`, notes.txt) is no group and is left alone.
    """
    folder = repo.memory / GROUPS
    if not folder.is_dir():
        return []
    found = set()
    for path in folder.iterdir():
        if path.suffix == ".md" and path.is_file():
            found.add(path.stem)
        elif path.is_dir() and not path.is_symlink():
            found.add(path.name)
    return sorted(name for name in found if is_group_name(name))


def is_group(repo: MemoryRepo, name: str) -> bool:
    """Whether `name` is one of `groups(repo)`, asking only about that name (a flush asks about the groups it
    touched, not all of them)."""
    if not is_group_name(name):
        return False
    folder = repo.memory / GROUPS
    if (folder / f"{name}.md").is_file():
        return True
    inner = folder / name
    return inner.is_dir() and not inner.is_symlink()


def _missing(repo: MemoryRepo, rels: list[str]) -> list[str]:
    """Which of `rels` do not exist, in order.  The caller has checked their folder with `repo.path`;
    a file that is a link counts as existing, and a link that leaves the memory dir is refused."""
    missing = []
    for rel in rels:
        path = repo.memory / rel
        if path.is_symlink():
            repo.path(rel)
        elif not path.exists():
            missing.append(rel)
    return missing


def ensure_group(
    repo: MemoryRepo, group: str, today: dt.date, group_names: Mapping[str, str] | None = None,
    skip: Collection[str] = (),
) -> list[str]:
    """Create a group's index and files from the templates, where absent; returns what was created.

    `group_names` (room id -> group) is group_names.json, read here when the caller has not; the
    memory-relative paths in `skip` are not created (flush: a file deleted by hand is kept, not replaced).
    """
    folder = group_dir(group)
    if repo.path(folder).is_symlink():
        raise UnsafePath(f"{repo.repo_path(folder)} is a symlink; group memory must be a real folder")
    files = {group_index(group): "group/index.md", **{f"{folder}/{name}": f"group/{name}" for name in GROUP_FILES}}
    missing = [rel for rel in _missing(repo, list(files)) if rel not in skip]
    if missing:
        mapping = read_group_names(repo) if group_names is None else group_names
        rooms = ", ".join(sorted(room for room, name in mapping.items() if name == group))
        values = {"group": group, "rooms": rooms or f"none mapped in {GROUP_NAMES}", "date": today.isoformat()}
        for rel in missing:
            repo.write(rel, templates.render(files[rel], **values))
    return missing


def ensure_groups(
    repo: MemoryRepo, names: Collection[str], today: dt.date, group_names: Mapping[str, str] | None = None,
    skip: Collection[str] = (),
) -> list[str]:
    """`ensure_group` for each of `names`, in order; returns what was created.

    A flush of the whole memory runs this over every group, so the common case, where every
    group's files are there as plain files, costs one `os.scandir` per group folder; only a group
    with something absent or linked goes through `ensure_group`'s path checks.
    """
    created: list[str] = []
    present = _plain_entries(repo.memory / GROUPS)
    for group in names:
        folder = present.get(check_group_name(group))
        inside = _plain_entries(repo.memory / GROUPS / group) if folder is False else {}
        whole = (present.get(f"{group}.md") is False and folder is False
                 and all(inside.get(name) is False for name in GROUP_FILES))
        if not whole:
            created += ensure_group(repo, group, today, group_names, skip)
    return created


def _plain_entries(folder: Path) -> dict[str, bool]:
    """A folder's entry names -> whether each is a link (or of a kind `os.scandir` could not tell);
    {} when the folder is absent, a link, or unreadable."""
    if folder.is_symlink():
        return {}
    try:
        with os.scandir(folder) as entries:
            return {entry.name: _linked(entry) for entry in entries}
    except OSError:
        return {}


def _linked(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return True


def ensure_main(repo: MemoryRepo, today: dt.date, skip: Collection[str] = ()) -> list[str]:
    """Create the DM index and files where absent, but those in `skip` (see `ensure_group`); longterm.md is
    seeded from MEMORY.md when there is one."""
    repo.path(MAIN)  # refuses a main/ that leads out of the memory dir
    files = {MAIN_INDEX: "main/index.md", **{f"{MAIN}/{name}": f"main/{name}" for name in MAIN_FILES}}
    missing = [rel for rel in _missing(repo, list(files)) if rel not in skip]
    for rel in missing:
        text = templates.render(files[rel], date=today.isoformat())
        if rel == f"{MAIN}/longterm.md":
            text = _seed_longterm(repo, text, today)
        repo.write(rel, text)
    return missing


def _seed_longterm(repo: MemoryRepo, template: str, today: dt.date) -> str:
    source = repo.root / MEMORY_MD
    if not source.is_file():
        return template
    seed = decode(source.read_bytes(), MEMORY_MD)
    if seed and not seed.endswith("\n"):
        seed += "\n"
    return f"{template}<!-- Seeded from {MEMORY_MD} on {today.isoformat()}. -->\n\n{seed}"


def new_journal(day: dt.date) -> str:
    return templates.render("journal.md", date=day.isoformat())
