"""`apm-git-hook HOOK-ID [FILE…]`: one apm pre-commit hook, as pre-commit runs it (once per hook id).

pre-commit starts a process per hook, so a commit runs seven.  They share one
computation: the first to run checks everything for this comparison (the base commit,
the index, `apm.yaml`) and leaves the findings in `.git/apm-git/hook-findings.cache`;
the other six find them there.  That fast path imports only `os`, `sys` and `marshal`,
and asks git one `rev-parse`, spawned without the `subprocess` module: every import is
paid seven times per commit.  A hook never modifies a file.
"""
from __future__ import annotations

import os
import sys

from apm_git import __version__, cache
from apm_git.checks.manifest import HOOK_IDS, PER_FILE

CACHE = "hook-findings.cache"
FORMAT = 1
REFS = ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF")
USAGE = f"usage: apm-git-hook HOOK-ID [FILE...]; HOOK-ID is one of {', '.join(HOOK_IDS)}\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in HOOK_IDS:
        sys.stderr.write(USAGE)
        return 2
    hook, files = args[0], args[1:]
    key = comparison_key()
    path = os.path.join(str(key[1]), "apm-git", CACHE) if key else ""
    answer = _answer(cache.read(path), key, hook, files) if key else None
    if answer is None:
        computed = _compute(hook, files, key, path)
        if isinstance(computed, int):
            return computed
        answer = computed
    for hook_id, where, line, message in answer:
        sys.stdout.write(f"{where}:{line}: {hook_id}: {message}\n")
    return 1 if answer else 0


def comparison_key() -> tuple[object, ...] | None:
    """What the findings depend on: base and new side, the index's content, apm.yaml; None: do not cache."""
    refs = [os.environ[name] for name in REFS if os.environ.get(name)]
    lines = _git("rev-parse", "--absolute-git-dir", "--show-toplevel", "--git-path", "index", "HEAD", *refs)
    if lines is None or len(lines) != 4 + len(refs):
        return None
    git_dir, top, index, *commits = lines
    try:
        with open(index, "rb") as handle:
            stat = os.fstat(handle.fileno())
            handle.seek(max(0, stat.st_size - 32))
            trailer = handle.read()  # the index ends with a hash of its content
        with open(os.path.join(top, "apm.yaml"), "rb") as handle:
            config = handle.read()
    except OSError:
        return None
    return (FORMAT, git_dir, __version__, top, os.path.abspath(index), stat.st_size, stat.st_mtime_ns, trailer,
            tuple(commits), tuple(os.environ.get(name, "") for name in REFS), config)


def _git(*args: str) -> list[str] | None:
    """git's stdout lines, or None when it fails; posix_spawn, so no `subprocess` import."""
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    read_end, write_end = os.pipe()
    try:
        actions = [(os.POSIX_SPAWN_DUP2, write_end, 1), (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
        pid = os.posix_spawnp("git", ["git", *args], env, file_actions=actions)
    except (OSError, AttributeError):  # no git, or no posix_spawn (Windows): compute without a cache
        os.close(read_end)
        os.close(write_end)
        return None
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
        return None
    return b"".join(chunks).decode("utf-8", "surrogateescape").splitlines()


Found = list[tuple[str, str, int, str]]  # (hook id, path, line, message)


def _answer(stored: object, key: object, hook: str, files: list[str]) -> Found | None:
    """This hook's findings from the shared cache, or None when the cache does not cover this run."""
    if not isinstance(stored, tuple) or len(stored) != 5 or stored[0] != key:
        return None
    _, prefix, changed, checked, findings = stored
    if hook not in PER_FILE:
        return [finding for finding in findings if finding[0] == hook]
    wanted = {path for path in files if path.startswith(prefix)} if files else set(changed)
    if not wanted <= set(checked):
        return None
    return [finding for finding in findings if finding[0] == hook and finding[1] in wanted]


def _compute(hook: str, files: list[str], key: tuple[object, ...] | None, path: str) -> Found | int:
    """Run every check once for this comparison, store the findings for the other hooks, answer this one."""
    from apm_git.checks.gather import INDEX, gather, resolve_sides
    from apm_git.checks.run import run_checks
    from apm_git.errors import ApmGitError
    from apm_git.repo import open_repo

    try:
        repo = open_repo()
        prefix = repo.memory_prefix + "/"
        stored = cache.read(path) if key else None
        earlier = stored[3] if isinstance(stored, tuple) and len(stored) == 5 and stored[0] == key else []
        targets = {name for name in files if name.startswith(prefix)} | set(earlier)
        snap = gather(repo, resolve_sides(repo.root, default_new=INDEX), targets=targets, with_changed=True)
        findings = [(f.hook, f.path, f.line, f.message) for f in run_checks(snap)]
    except ApmGitError as error:
        sys.stderr.write(f"apm-git-hook {hook}: {error}\n")
        return error.exit_code
    changed = [change.path for change in snap.changes if change.status != "D"]
    stored = (key, prefix, changed, list(snap.targets), findings)
    if key is not None:
        cache.write(path, stored)
    answer = _answer(stored, key, hook, files)
    assert answer is not None
    return answer
