"""Where things live in the memory dir (DESIGN 2), and auto-initialization (APM rule 6).

Auto-initialization only ever creates files that are completely absent.
"""
from __future__ import annotations

import datetime as dt

from apm_git import templates
from apm_git.config import JOURNAL_NAME
from apm_git.errors import UnsafePath
from apm_git.names import ARCHIVE, GROUP_FILES, GROUP_NAMES, GROUPS, MAIN, MAIN_FILES, MAIN_INDEX, MEMORY_MD
from apm_git.repo import MemoryRepo, check_group_name, decode, is_group_name
from apm_git.state import rooms_of


def category_files(repo: MemoryRepo) -> list[str]:
    return list(dict.fromkeys(repo.config.routing.values()))


def journal_name(day: dt.date) -> str:
    return f"{day.isoformat()}.md"


def journal_date(rel: str) -> dt.date | None:
    if not JOURNAL_NAME.fullmatch(rel):
        return None
    try:
        return dt.date.fromisoformat(rel[:10])
    except ValueError:
        return None


def journals(repo: MemoryRepo) -> list[str]:
    """Live daily journals (top of the memory dir), oldest first."""
    if not repo.memory.is_dir():
        return []
    names = [path.name for path in repo.memory.glob("*.md") if path.is_file() and journal_date(path.name)]
    return sorted(names)


def archive_file(day: dt.date) -> str:
    return f"{ARCHIVE}/{day.year:04d}-{day.month:02d}.md"


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


def _create(repo: MemoryRepo, rel: str, text: str, created: list[str]) -> None:
    path = repo.path(rel)
    if path.exists() or path.is_symlink():
        return
    repo.write(rel, text)
    created.append(rel)


def ensure_group(repo: MemoryRepo, group: str, today: dt.date) -> list[str]:
    """Create a group's index and files from group_names.json, where absent; returns what was created."""
    check_group_name(group)
    folder = repo.path(group_dir(group))
    if folder.is_symlink():
        raise UnsafePath(f"{repo.repo_path(group_dir(group))} is a symlink; group memory must be a real folder")
    rooms = ", ".join(rooms_of(repo, group)) or f"none mapped in {GROUP_NAMES}"
    values = {"group": group, "rooms": rooms, "date": today.isoformat()}
    created: list[str] = []
    _create(repo, group_index(group), templates.render("group/index.md", **values), created)
    for name in GROUP_FILES:
        _create(repo, f"{group_dir(group)}/{name}", templates.render(f"group/{name}", **values), created)
    return created


def ensure_main(repo: MemoryRepo, today: dt.date) -> list[str]:
    """Create the DM index and files where absent; longterm.md is seeded from MEMORY.md when there is one."""
    values = {"date": today.isoformat()}
    created: list[str] = []
    _create(repo, MAIN_INDEX, templates.render("main/index.md", **values), created)
    for name in MAIN_FILES:
        text = templates.render(f"main/{name}", **values)
        if name == "longterm.md":
            text = _seed_longterm(repo, text, today)
        _create(repo, f"{MAIN}/{name}", text, created)
    return created


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
