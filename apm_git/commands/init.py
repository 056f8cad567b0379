"""`apm-git init`: lay out a memory repository from templates/, never overwriting a file."""
from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

from apm_git import clock, git
from apm_git.errors import StateError, UsageError
from apm_git.model import names
from apm_git.model.config import CONFIG_FILE
from apm_git.operations import memory_folder, precommit
from apm_git.operations.adopt import Adoption, commit_as_found, keep_replaced, refuse_unreadable
from apm_git.operations.apply import as_committed
from apm_git.operations.baseline import record
from apm_git.operations.setup import DIFF_DRIVER, register_merge_driver  # init in a clone sets it up as setup does
from apm_git.store import layout, templates
from apm_git.store.atomic import TEMP_SUFFIX, write_atomic
from apm_git.store.commit import commit
from apm_git.store.config import load_config, parse_config
from apm_git.store.memory_index import own_index, refresh_index
from apm_git.store.repo import MemoryRepo, decode, find_root
from apm_git.store.state import group_names

GITATTRIBUTES = ".gitattributes"


@dataclasses.dataclass
class InitResult:
    root: Path
    created: list[str]
    updated: list[str]
    commit: str | None
    git_initialized: bool
    hooks_installed: bool
    warning: str | None = None
    adoption: Adoption = dataclasses.field(default_factory=Adoption)
    notes: list[str] = dataclasses.field(default_factory=list)  # what was done on the side (MemoryRepo.note)


def init(path: Path, *, install: bool = True, force: bool = False) -> InitResult:
    """`force` adopts a memory folder that does not look like an agent's memory (operations/memory_folder.py)."""
    path = path.expanduser().absolute()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"{path} is a file, not a folder; name a folder for the memory repository") from None
    except OSError as error:
        raise StateError(f"cannot create {path} ({error.strerror}); name a folder you can write to") from None
    found = find_root(path)
    root = found[0] if found else path
    created: list[str] = []
    updated: list[str] = []
    apm_yaml = templates.render("init/apm.yaml")
    config = load_config(root) if (root / CONFIG_FILE).exists() else parse_config(apm_yaml)
    hooks_config = precommit.with_apm_hooks(root, config.memory_dir)  # a broken config stops init before any write
    initialized = found is not None and _initialized(root)
    _check_memory_folder(root, in_git=found is not None, force=force)
    if not initialized:  # all or nothing: an unreadable file stops the adoption before anything is written
        refuse_unreadable(MemoryRepo(root, found[1] if found else root / ".git", config))
    git_initialized = found is None
    if found is None:
        git.init(path)
        found = find_root(path)
        assert found is not None
    repo = MemoryRepo(root, found[1], config)
    adoption = Adoption()
    gone: set[str] = set()  # repo-relative: in an initialized memory, deleted by hand and not committed yet
    if initialized:  # the person's pending edits, deletions too, are the next flush's, never init's
        gone = set(git.deleted(root, [CONFIG_FILE, repo.memory_prefix]))
    else:
        adoption = commit_as_found(repo)  # what the folder already held, committed first as it was
        adoption.kept = keep_replaced(repo)
    if CONFIG_FILE not in gone and _create(root / CONFIG_FILE, apm_yaml.encode()):
        created.append(CONFIG_FILE)
    today = clock.today()
    memory_values = {"memory_dir": repo.memory_prefix}
    for rel in templates.tree("init/memory"):
        text = templates.render(f"init/memory/{rel}", **memory_values, date=today.isoformat())
        if repo.repo_path(rel) not in gone and _create(repo.path(rel), text.encode()):
            created.append(repo.repo_path(rel))
    skip = {rel for rel in map(repo.memory_rel, gone) if rel}
    created += [repo.repo_path(rel) for rel in layout.ensure_main(repo, today, skip)]
    mapping = group_names(repo)
    for group in sorted(set(mapping.values())):
        created += [repo.repo_path(rel) for rel in layout.ensure_group(repo, group, today, mapping, skip)]
    had_index = repo.exists(names.INDEX)
    if _refresh_index(repo, today, initialized, created, adoption):
        (updated if had_index else created).append(repo.repo_path(names.INDEX))
    retired = _retire_broad_merge_line(root / GITATTRIBUTES, repo.memory_prefix)
    if _merge_lines(root / GITATTRIBUTES, templates.render("init/.gitattributes", **memory_values)) or retired:
        (created if GITATTRIBUTES not in _tracked(root, GITATTRIBUTES) else updated).append(GITATTRIBUTES)
    if hooks_config is not None:
        (updated if (root / precommit.CONFIG).exists() else created).append(precommit.CONFIG)
        write_atomic(root / precommit.CONFIG, hooks_config.encode("utf-8"))
    git.config_set(root, *DIFF_DRIVER)
    register_merge_driver(root)
    precommit.register_hook_programs(root)  # this clone's own path to the hook programs, never the shared config
    # A kill can leave a temporary file of apm-git's behind: no `git add -A` of the user's stages it.
    exclude = git.git_path(root, "info/exclude")
    _merge_lines(exclude, f"# apm-git's temporary files\n*{TEMP_SUFFIX}\n")
    paths = created + updated + [path for move in adoption.kept for path in move]
    if not initialized and (paths or adoption.commit):  # the baseline records what holds with the layout in place
        adoption.known = record(repo).total
        if git.status(root, [repo.repo_path(names.BASELINE)]):
            (created if not adoption.commit and not _tracked(root, repo.repo_path(names.BASELINE)) else updated).append(
                repo.repo_path(names.BASELINE))
            paths.append(repo.repo_path(names.BASELINE))
    sha = commit(repo, paths, "init", [("Apm-Trigger", "init"), ("Apm-Scope", "all")]) if paths else None
    problem = precommit.install(root) if install else None
    result = InitResult(root, created, updated, sha, git_initialized, hooks_installed=install and problem is None,
                        adoption=adoption, notes=repo.take_notes())
    if problem is not None:
        result.warning = f"`pre-commit install` failed ({problem}); fix that, then run `pre-commit install` here"
    return result


def _initialized(root: Path) -> bool:
    """apm.yaml is committed: an init finished here before (or this is a clone of a memory repository).
    Until then every `init` adopts, so a second one finishes what a first one began."""
    return git.head(root) is not None and bool(git.tree_blobs(root, "HEAD", [f":(literal){CONFIG_FILE}"]))


def _refresh_index(repo: MemoryRepo, today: dt.date, initialized: bool, created: list[str], adoption: Adoption) -> bool:
    """Rebuild INDEX.md for the init commit; True when it changed.  At adoption, from the files as
    adopted (a withheld file left out), so an adopted journal is listed at once.  In an initialized
    memory only when init created a file or the index is missing, and from the committed memory and
    what init created: the person's uncommitted edits are the next flush's, and the index describes
    the commit (a person's own INDEX.md is left for that flush to move aside)."""
    if not initialized:
        return refresh_index(repo, today, exclude=[rel for rel in map(repo.memory_rel, adoption.withheld) if rel])
    made = {rel for rel in map(repo.memory_rel, created) if rel}
    if (not made and repo.exists(names.INDEX)) or own_index(repo) is not None:
        return False
    absent, committed = as_committed(repo, {*made, names.INDEX})
    return refresh_index(repo, today, exclude=absent, instead=committed)


def _check_memory_folder(root: Path, *, in_git: bool, force: bool) -> None:
    """Before anything is written: the memory dir is a folder, and one that looks like memory, unless `force`
    or apm-git adopted it already (apm.yaml is committed)."""
    config = load_config(root) if (root / CONFIG_FILE).exists() else parse_config(templates.render("init/apm.yaml"))
    adopted = in_git and _initialized(root)
    memory_folder.check(root, config.memory_dir, force=force or adopted)


def _create(path: Path, data: bytes) -> bool:
    if path.exists() or path.is_symlink():
        return False
    write_atomic(path, data)
    return True


def _merge_lines(path: Path, wanted: str) -> bool:
    """Add the lines of `wanted` that `path` lacks, keeping everything it has."""
    current = decode(path.read_bytes(), path.name) if path.exists() else ""
    have = {line.strip() for line in current.splitlines()}
    missing = [line for line in wanted.splitlines() if line.strip() and line.strip() not in have]
    if not any(not line.startswith("#") for line in missing):
        return False
    prefix = current if not current or current.endswith("\n") else current + "\n"
    write_atomic(path, (prefix + "\n".join(missing) + "\n").encode("utf-8"))
    return True


def _retire_broad_merge_line(path: Path, memory_dir: str) -> bool:
    """Take out the line an older init wrote that sent every file of the memory dir to the merge driver
    (code too); the lines that replace it name memory Markdown and the state files only."""
    if not path.is_file():
        return False
    text = decode(path.read_bytes(), path.name)
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if line.strip() != f"{memory_dir}/** merge=apm-memory"]
    if len(kept) == len(lines):
        return False
    write_atomic(path, "".join(kept).encode("utf-8"))
    return True


def _tracked(root: Path, path: str) -> set[str]:
    return set(git.tracked(root, [path]))
