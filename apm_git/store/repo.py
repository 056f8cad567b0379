"""A memory repository on disk: its root, config, and safe reads and writes under the memory dir."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from apm_git.errors import InvalidUtf8, NotAMemoryRepo, OsFailure, StateError, TooLarge, UnsafePath
from apm_git.model.config import CONFIG_FILE, Config
from apm_git.model.limits import MAX_FILE_BYTES
from apm_git.model.names import memory_rel, repo_rel, zone
from apm_git.model.slotted import Slotted
from apm_git.store.atomic import write_atomic
from apm_git.store.config import load_config
from apm_git.store.odd_names import skipped

ENV_REPO = "APM_GIT_REPO"
STATE_DIR = "apm-git"  # under the git dir: locks, caches, session state
COMMIT_JOURNAL = "commit-journal.json"  # under STATE_DIR: a commit whose landing is not finished (store/landing.py)
CONFIG_CACHE = "config.cache"


# A plain class, not a dataclass: the pre-commit hook imports this module (apm_git.model.slotted).
class MemoryRepo(Slotted):
    """An apm-git memory repository: its work tree, its git dir and its parsed apm.yaml."""

    __slots__ = ("_memory", "_notes", "config", "git_dir", "root")

    def __init__(self, root: Path, git_dir: Path, config: Config) -> None:
        self.root = root
        self.git_dir = git_dir
        self.config = config
        self._memory = root / config.memory_dir  # asked for once per file by the listings of a flush
        self._notes: dict[str, None] = {}  # what the command did on the side, for its caller to say once

    def note(self, text: str) -> None:
        """Keep one line for the user about what was done on the side (an interrupted commit finished,
        the fallback identity used); the command line or MCP worker that opened this repository says it."""
        self._notes.setdefault(text, None)

    def take_notes(self) -> list[str]:
        """The lines noted so far, each once, in order; they are said, so they go."""
        notes = list(self._notes)
        self._notes.clear()
        return notes

    @property
    def memory(self) -> Path:
        return self._memory

    @property
    def memory_prefix(self) -> str:
        """The memory dir as a repo-relative posix path, for git pathspecs."""
        return self.config.memory_dir

    @property
    def state_dir(self) -> Path:
        """apm-git's private state (locks, sessions, caches), under the git dir, never in the tree."""
        path = self.git_dir / STATE_DIR
        path.mkdir(exist_ok=True)
        return path

    def repo_path(self, rel: str) -> str:
        """A memory-relative path as a repo-relative one."""
        return repo_rel(self.memory_prefix, rel)

    def memory_rel(self, path: str) -> str | None:
        """A repo-relative path relative to the memory dir, or None when it is outside."""
        return memory_rel(self.memory_prefix, path)

    def path(self, rel: str) -> Path:
        """The file at `rel` under the memory dir; refuses anything that would leave it, and a link
        that crosses from one group (or main/) into another."""
        target = safe_join(self.memory, rel)
        crossed = self.crossing(rel, target)
        if crossed is not None:
            raise UnsafePath(crossed)
        return target

    def crossing(self, rel: str, target: Path) -> str | None:
        """Why `target` (reached as `rel`) leads through a link into another zone, or None."""
        home = zone(rel)
        if not home and not target.is_symlink() and target.parent == self.memory:
            return None  # a plain top-level file: nothing to resolve
        landed = target.resolve().relative_to(self.memory.resolve()).as_posix()
        if landed == ".":
            landed = ""
        if zone(landed) == home:
            return None
        where = f"{self.repo_path(landed)}" if landed else self.memory_prefix
        return (f"{self.repo_path(rel)} leads through a symlink to {where}; links may not cross from one group "
                "(or main/) into another memory: remove the link")

    def read(self, rel: str) -> str | None:
        """A memory file's text, or None when it does not exist; invalid UTF-8 is an error."""
        path = self.path(rel)
        try:
            with path.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > MAX_FILE_BYTES:
                    raise TooLarge(self.repo_path(rel), size, MAX_FILE_BYTES)
                data = handle.read()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise StateError(f"{self.repo_path(rel)} is a folder, expected a file") from None
        except NotADirectoryError:
            raise StateError(f"{self.blocker(rel)} is a file where a folder must be (for {self.repo_path(rel)}); "
                             "move it away") from None
        except OSError as error:
            raise OsFailure.of(error, self.repo_path(rel)) from None
        return decode(data, self.repo_path(rel))

    def write(self, rel: str, text: str) -> None:
        path = self.path(rel)
        try:
            write_atomic(path, text.encode("utf-8"))
        except NotADirectoryError:
            raise StateError(f"{self.blocker(rel)} is a file where a folder must be (for {self.repo_path(rel)}); "
                             "move it away") from None
        except OSError as error:
            raise OsFailure.of(error, self.repo_path(rel)) from None

    def blocker(self, rel: str) -> str:
        """The repo-relative path of the first folder of `rel` that is a file (or the file itself)."""
        parts = rel.split("/")
        for end in range(1, len(parts)):
            folder = "/".join(parts[:end])
            if (self.memory / folder).exists() and not (self.memory / folder).is_dir():
                return self.repo_path(folder)
        return self.repo_path(rel)

    def count_lines(self, rel: str) -> int:
        """The lines of a memory file, counted in bounded memory however large it is."""
        count, last = 0, b"\n"
        with self.path(rel).open("rb") as handle:
            while chunk := handle.read(1 << 20):
                count += chunk.count(b"\n")
                last = chunk[-1:]
        return count + (last != b"\n")

    def exists(self, rel: str) -> bool:
        return self.path(rel).is_file()

    def markdown_files(self, under: str = "") -> Iterator[str]:
        """Memory-relative paths of every .md file (sorted), skipping symlinks that leave the memory dir
        or cross from one group (or main/) into another, and names that are not UTF-8 (store/odd_names.py).

        One `os.scandir` per folder, whose entries carry their type: a flush lists the whole memory
        (INDEX.md, the conflicts of every file), so this costs a system call per folder, not per file.
        Linked folders are not entered (as `Path.rglob` does not); a linked file is listed when it
        stays inside its own zone.
        """
        base = self.path(under) if under else self.memory
        if not base.is_dir():
            return
        memory = self.memory.resolve()
        found: list[tuple[tuple[str, ...], bool]] = []
        _walk(str(base), base.relative_to(self.memory).parts, found)
        for parts, link in sorted(found):
            rel = "/".join(parts)
            if skipped(self.repo_path(rel)):
                continue
            if link:
                path = self.memory / rel
                if not path.is_file() or not _inside(path.resolve(), memory) or self.crossing(rel, path):
                    continue
            yield rel


def _walk(folder: str, parts: tuple[str, ...], found: list[tuple[tuple[str, ...], bool]]) -> None:
    """Collect (path parts, is a link) of the .md files under `folder`; unreadable folders are left out."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_symlink():
                if entry.name.endswith(".md"):
                    found.append(((*parts, entry.name), True))
            elif entry.is_dir():
                _walk(entry.path, (*parts, entry.name), found)
            elif entry.name.endswith(".md") and entry.is_file():
                found.append(((*parts, entry.name), False))
        except OSError:
            continue


def decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, message = utf8_problem(data, error)
        raise InvalidUtf8(f"{name}:{line}: {message}") from None


def utf8_problem(data: bytes, error: UnicodeDecodeError) -> tuple[int, str]:
    """The line of an invalid UTF-8 byte, and what to do about it."""
    line = data.count(b"\n", 0, error.start) + 1
    return line, f"not valid UTF-8 (byte {error.start}); re-save the file as UTF-8 — apm-git leaves it untouched"


def safe_join(base: Path, rel: str) -> Path:
    candidate = Path(rel)
    if candidate.is_absolute() or ".." in candidate.parts or rel.startswith("~"):
        raise UnsafePath(f"{rel!r} leaves the memory dir; use a path inside {base.name}/")
    target = base / candidate
    if not _inside(target.resolve(), base.resolve()):
        raise UnsafePath(f"{rel!r} resolves outside the memory dir (a symlink?); remove the link")
    return target


def _inside(path: Path, base: Path) -> bool:
    return path == base or base in path.parents


def find_root(start: Path) -> tuple[Path, Path] | None:
    """The work tree and git dir containing `start`, without running git."""
    for folder in [start, *start.parents]:
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return folder, dot_git
        if dot_git.is_file():
            text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                git_dir = Path(text[len("gitdir:"):].strip())
                return folder, git_dir if git_dir.is_absolute() else (folder / git_dir).resolve()
    return None


def open_repo(explicit: Path | None = None, *, given_as: str | None = None) -> MemoryRepo:
    """The memory repository named by --repo, $APM_GIT_REPO, or containing the current directory.

    `given_as` is how the user named `explicit` (`--repo`, `--memory`, `APM_GIT_REPO`): a path that is
    no memory repository is reported under that name, so the fix is made where the mistake is."""
    if explicit is None and os.environ.get(ENV_REPO):
        explicit, given_as = Path(os.environ[ENV_REPO]), ENV_REPO
    start = (explicit or Path.cwd()).expanduser().absolute()
    named = None if explicit is None else (given_as or "--repo")
    if not start.exists():
        if named is not None:
            raise NotAMemoryRepo(f"{named} names {start}, which does not exist; {_fix(named)}")
        raise NotAMemoryRepo(f"{start} does not exist; pass --repo with a memory repository")
    found = find_root(start)
    if found is None:
        if named is not None:
            raise NotAMemoryRepo(f"{named} names {start}, which is not inside a git repository; {_fix(named)} "
                                 f"(or run `apm-git init {start}` to start one there)")
        raise NotAMemoryRepo(f"{start} is not inside a git repository; run `apm-git init` there first")
    root, git_dir = found
    if not (root / CONFIG_FILE).is_file():
        if named is not None:
            raise NotAMemoryRepo(f"{named} names {start}, in {root}, which has no {CONFIG_FILE} (not a memory "
                                 f"repository); {_fix(named)} (or run `apm-git init {root}` to start one there)")
        raise NotAMemoryRepo(f"{root} has no {CONFIG_FILE}: not a memory repository; run `apm-git init {root}`")
    repo = MemoryRepo(root, git_dir, load_config(root, git_dir / STATE_DIR / CONFIG_CACHE))
    check_memory_dir(repo)
    return repo


def _fix(named: str) -> str:
    if named == ENV_REPO:
        return f"set {ENV_REPO} to your memory repository's folder, or unset it"
    return f"give {named} your memory repository's folder"


def check_memory_dir(repo: MemoryRepo) -> None:
    """Refuse a memory dir that is (or lies behind) a symlink, or that leads out of the work tree
    or into the git dir: git cannot track files behind a link, and apm-git would read and write
    wherever the link points."""
    folder = repo.root
    for part in repo.config.memory_dir.split("/"):
        folder = folder / part
        if folder.is_symlink():
            target = folder.readlink()
            raise UnsafePath(
                f"{folder.relative_to(repo.root).as_posix()} is a symlink (to {target}); apm-git keeps memory in "
                "a real folder of the repository: replace the link by the folder it points to",
            )
    resolved = repo.memory.resolve()
    if not _inside(resolved, repo.root.resolve()):
        raise UnsafePath(f"{repo.memory_prefix} resolves to {resolved}, outside the repository; fix memory_dir "
                         f"in {CONFIG_FILE}")
    if _inside(resolved, repo.git_dir.resolve()):
        raise UnsafePath(f"{repo.memory_prefix} lies inside the git dir; fix memory_dir in {CONFIG_FILE}")
