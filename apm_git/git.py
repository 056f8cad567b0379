"""The one gateway to git: argument tuples, no shell, `--` before paths, `-z` output.

This is the only module that starts git and the only one that reads git's output: every other
module calls a typed function here (`log`, `grep_lines`, `blob_sizes`, `status`, …) and gets
records back.  `_run` and `_out` are private; tests/project/test_structure.py holds the package to that.

Git runs as a subprocess, as pre-commit runs it.  GitPython was measured and left
out: importing it costs about 80 ms per process, more than the whole budget of
one pre-commit hook (see benchmarks/README.md).
"""
from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from apm_git.errors import BranchMoved, FetchFailed, GitError
from apm_git.store.atomic import TEMP_SUFFIX

# Status, diff and friends must not take index.lock behind a user's back.
_BASE_ENV = {"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "LANGUAGE": "C"}
IDENTITY_HINTS = ("Please tell me who you are", "empty ident", "unable to auto-detect email")
# Work trees whose history is in a git dir apart from them (a tracked folder, docs/tracking.md): every
# command run at one of them gets GIT_DIR and GIT_WORK_TREE, so nothing of git's is ever put in the folder.
_APART: dict[str, dict[str, str]] = {}


def _run(
    root: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, **_BASE_ENV, **_APART.get(str(root), {}), **(env or {})}
    try:
        proc = subprocess.run(
            ("git", *args), cwd=root, env=full_env, input=stdin, capture_output=True, check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; install git") from None
    if check and proc.returncode != 0:
        raise GitError(_describe_failure(args, proc))
    return proc


def _start(root: Path, *args: str, stdin: int = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    """A git command left running (`stdin=subprocess.PIPE` to talk to it), its output read by `_finish`."""
    try:
        return subprocess.Popen(("git", *args), cwd=root, env={**os.environ, **_BASE_ENV, **_APART.get(str(root), {})},
                                stdin=stdin,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; install git") from None


def _finish(proc: subprocess.Popen[bytes]) -> bytes:
    """The output of a command `_start` began, once it has ended; GitError when it failed."""
    out, err = proc.communicate()
    if proc.returncode != 0:
        args = [str(arg) for arg in proc.args[1:]] if isinstance(proc.args, (list, tuple)) else []
        raise GitError(_describe_failure(args, subprocess.CompletedProcess(proc.args, proc.returncode, out, err)))
    return out


def _out(root: Path, *args: str, env: Mapping[str, str] | None = None, stdin: bytes | None = None) -> str:
    return _run(root, *args, env=env, stdin=stdin).stdout.decode("utf-8", "surrogateescape")


def _describe_failure(args: Sequence[str], proc: subprocess.CompletedProcess[bytes]) -> str:
    stderr = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    detail = next((line for line in stderr if line.startswith(("fatal:", "error:"))), stderr[-1] if stderr else "")
    hint = ""
    if "index.lock" in detail:
        hint = "; another git process is working in this repository, retry when it is done"
    return f"`git {' '.join(args[:2])}` failed ({proc.returncode}): {detail or 'no message'}{hint}"


def head(root: Path) -> str | None:
    proc = _run(root, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return proc.stdout.decode().strip() or None


def _split_z(data: bytes) -> list[str]:
    return [part.decode("utf-8", "surrogateescape") for part in data.split(b"\0") if part]


class Change(NamedTuple):
    """One entry of `git status --porcelain -z --no-renames`: the `xy` codes and the path."""

    xy: str
    path: str


def status(root: Path, pathspecs: Sequence[str]) -> list[Change]:
    """Every changed, deleted or untracked path under `pathspecs`; a rename is a deletion and an addition."""
    if not pathspecs:  # no pathspec would mean the whole work tree, never what a caller wants
        return []
    proc = _run(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", *pathspecs)
    changes = [Change(entry[:2], entry[3:]) for entry in _split_z(proc.stdout)]
    return [change for change in changes if not is_temporary(change.path)]


def status_at_head(root: Path, pathspecs: Sequence[str]) -> tuple[str | None, list[Change]]:
    """HEAD's commit id (None before the first commit) and `status` of `pathspecs`, from one git process
    (`--porcelain=v2 --branch`, whose header names the commit): a flush needs both, and each git process
    costs it 2-3 ms.  The entries are `status`'s, with v2's `.` ("unchanged") read as v1's space."""
    if not pathspecs:
        return head(root), []
    proc = _run(root, "status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind", "--untracked-files=all",
                "--no-renames", "--", *pathspecs)
    commit: str | None = None
    changes = []
    for entry in _split_z(proc.stdout):
        kind, _, rest = entry.partition(" ")
        if kind == "#":
            key, _, value = rest.partition(" ")
            if key == "branch.oid":
                commit = None if value == "(initial)" else value
        elif kind in ("1", "u"):  # ordinary, unmerged: XY, then 7 or 9 fields, then the path
            fields = rest.split(" ", 7 if kind == "1" else 9)
            changes.append(Change(fields[0].replace(".", " "), fields[-1]))
        elif kind in ("?", "!"):
            changes.append(Change(kind * 2, rest))
    return commit, [change for change in changes if not is_temporary(change.path)]


def same_paths(root: Path, old: str, new: str, pathspecs: Sequence[str]) -> bool:
    """Whether commits `old` and `new` hold the same `pathspecs` (`git diff --quiet`)."""
    proc = _run(root, "diff", "--quiet", "--no-ext-diff", old, new, "--", *pathspecs, check=False)
    if proc.returncode not in (0, 1):
        raise GitError(_describe_failure(["diff", "--quiet"], proc))
    return proc.returncode == 0


def init(path: Path) -> None:
    """`git init` of a new repository at `path`."""
    _run(path, "init", "--quiet")


def git_path(root: Path, name: str) -> Path:
    """Where `name` (`info/exclude`, `hooks/pre-commit`) lives under the git dir (`git rev-parse --git-path`)."""
    return root / _out(root, "rev-parse", "--git-path", name).strip()


def tracked(root: Path, pathspecs: Sequence[str]) -> list[str]:
    """The paths the index tracks under `pathspecs`."""
    return _split_z(_run(root, "ls-files", "-z", "--", *pathspecs).stdout)


def refresh_index(root: Path) -> None:
    """Give index entries set from blob ids their stat data, so `git status` need not hash the files."""
    _run(root, "update-index", "-q", "--refresh", check=False)


def is_temporary(path: str) -> bool:
    """apm-git's own temporary files (a write cut short by a kill): never memory, never staged."""
    return path.endswith(TEMP_SUFFIX)


def cat_files(root: Path, specs: Iterable[str]) -> dict[str, bytes | None]:
    """Blob contents for `rev:path` specs in one `git cat-file --batch`; None when missing."""
    wanted = list(dict.fromkeys(specs))
    if not wanted:
        return {}
    stdin = "".join(f"{spec}\n" for spec in wanted).encode("utf-8", "surrogateescape")
    data = _run(root, "cat-file", "--batch", stdin=stdin).stdout
    result: dict[str, bytes | None] = {}
    position = 0
    for spec in wanted:
        end = data.index(b"\n", position)
        header = data[position:end].split()
        position = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            result[spec] = data[position:position + size]
            position += size + 1
        else:
            result[spec] = None
    return result


def blob_sizes(root: Path, blobs: Iterable[str]) -> dict[str, int]:
    """Blob id -> size in bytes, from one `git cat-file --batch-check` (no blob is read); a missing
    object is left out."""
    ids = sorted(set(blobs))
    if not ids:
        return {}
    proc = _run(root, "cat-file", "--batch-check", stdin="".join(f"{blob}\n" for blob in ids).encode())
    sizes = {}
    for line in proc.stdout.decode("ascii", "replace").splitlines():
        parts = line.split()  # "<id> <type> <size>", or "<id> missing"
        if len(parts) == 3 and parts[2].isdigit():
            sizes[parts[0]] = int(parts[2])
    return sizes


SMALL_BATCH = 400  # ids up to which small_blobs asks one process; its questions then fit a pipe's buffer


def small_blobs(root: Path, blobs: Iterable[str], limit: int) -> tuple[dict[str, int], dict[str, bytes | None]]:
    """The sizes of `blobs` and the contents of those of at most `limit` bytes: one `git cat-file
    --batch-command` (git 2.36+) that answers `info` for all, then `contents` for the small ones, so no
    large blob ever leaves git.  Beyond SMALL_BATCH ids, or with an older git, `blob_sizes` and
    `cat_files` (two processes): the questions of one batch must fit the pipe while git's answers
    wait to be read."""
    ids = sorted(set(blobs))
    if not ids:
        return {}, {}
    if len(ids) > SMALL_BATCH:
        return _small_blobs_apart(root, ids, limit)
    proc = _start(root, "cat-file", "--batch-command", "--buffer", stdin=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    sizes: dict[str, int] = {}
    small: list[str] = []
    try:
        proc.stdin.write("".join([*(f"info {blob}\n" for blob in ids), "flush\n"]).encode())
        proc.stdin.flush()
        for blob in ids:
            parts = proc.stdout.readline().split()  # "<id> <type> <size>", or "<id> missing"
            if len(parts) == 3 and parts[2].isdigit():
                sizes[blob] = int(parts[2])
        small = [blob for blob in ids if sizes.get(blob, limit + 1) <= limit]
        data, errors = proc.communicate("".join(f"contents {blob}\n" for blob in small).encode())
    except BrokenPipeError:  # git stopped reading: an option it does not know
        data, errors = proc.communicate()
    if proc.returncode == 129:  # usage: a git older than 2.36
        return _small_blobs_apart(root, ids, limit)
    if proc.returncode != 0:
        raise GitError(_describe_failure(("cat-file", "--batch-command"),
                                         subprocess.CompletedProcess(proc.args, proc.returncode, data, errors)))
    contents: dict[str, bytes | None] = {blob: None for blob in ids if blob not in sizes}  # missing objects
    position = 0
    for blob in small:
        end = data.index(b"\n", position)
        size = int(data[position:end].split()[2])
        contents[blob] = data[end + 1:end + 1 + size]
        position = end + 1 + size + 1
    return sizes, contents


def _small_blobs_apart(root: Path, ids: list[str], limit: int) -> tuple[dict[str, int], dict[str, bytes | None]]:
    sizes = blob_sizes(root, ids)
    return sizes, cat_files(root, [blob for blob in ids if sizes.get(blob, 0) <= limit])


def pathspec_stdin(paths: Iterable[str]) -> bytes:
    """Paths for `--pathspec-from-file=- --pathspec-file-nul`.  An empty list would make git act on
    the whole tree (`git add -A` of everything the user has), so it is refused."""
    data = b"".join(path.encode("utf-8", "surrogateescape") + b"\0" for path in paths)
    if not data:
        raise ValueError("no paths given: git would act on the whole work tree")
    return data


def unstage(root: Path, paths: Sequence[str]) -> None:
    """Put the index entries of `paths` back to HEAD's (undoing a `git add` of them)."""
    if paths:
        _run(root, "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul",
            stdin=pathspec_stdin(paths), check=False)


class Built(NamedTuple):
    """A commit object that no ref names yet, and the index entries it gave the committed paths."""

    commit: str
    entries: dict[str, tuple[str, str] | None]  # path -> (mode, blob), None: deleted
    fallback: bool = False  # made as FALLBACK_IDENTITY: git has no user identity here


def build_commit(
    root: Path,
    git_dir: Path,
    parent: str | None,
    paths: Sequence[str],
    message: str,
    *,
    contents: Mapping[str, bytes | None] | None = None,
    env: Mapping[str, str] | None = None,
    other_parents: Sequence[str] = (),
    start: str | None = None,
) -> Built:
    """`parent`'s tree with `paths` as the work tree (or `contents`) has them, as a new commit object.

    A merge commit names `other_parents` too and starts from `start` (a tree, e.g. git's own merge
    of the paths that are not memory) instead of `parent`'s tree.
    Everything goes through a temporary index under the git dir: the user's index, the work
    tree and every ref stay as they were, so a failure here changes nothing the user can see.
    """
    overrides = dict(contents or {})
    from_worktree = [path for path in paths if path not in overrides]
    if not from_worktree and not overrides and start is None:
        raise ValueError("no paths given: nothing to commit")
    state = git_dir / "apm-git"
    state.mkdir(exist_ok=True)
    temp_index = state / f"index.{os.getpid()}{TEMP_SUFFIX}"
    index_env = {**(env or {}), "GIT_INDEX_FILE": str(temp_index)}
    try:
        first = start or parent
        _run(root, "read-tree", *((first,) if first else ("--empty",)), env=index_env)
        if from_worktree:
            _run(root, "update-index", "--add", "--remove", "-z", "--stdin", env=index_env,
                stdin=pathspec_stdin(from_worktree))
        if overrides:
            blobs = hash_blobs(root, state, [data for data in overrides.values() if data is not None])
            lines = []
            for path, data in overrides.items():
                line = f"0 {'0' * 40}\t{path}" if data is None else f"100644 {blobs[data]}\t{path}"
                lines.append(line.encode("utf-8", "surrogateescape") + b"\0")
            _run(root, "update-index", "-z", "--index-info", env=index_env, stdin=b"".join(lines))
        tree = _out(root, "write-tree", env=index_env).strip()
        committed = [*from_worktree, *overrides]
        staged = index_entries(root, committed, env=index_env)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp_index.unlink()
    entries: dict[str, tuple[str, str] | None] = {path: staged.get(path) for path in committed}
    parents = [*((parent,) if parent else ()), *other_parents]
    made = commit_tree(root, tree, parents, message, env=env, sign=config_bool(root, "commit.gpgsign"))
    return Built(made.commit, entries, made.fallback)


class Committed(NamedTuple):
    """A commit object `git commit-tree` made (no ref names it yet)."""

    commit: str
    fallback: bool = False  # made as FALLBACK_IDENTITY: git has no user identity here (FALLBACK_NOTE says so)


def commit_tree(
    root: Path, tree: str, parents: Sequence[str], message: str, *, env: Mapping[str, str] | None = None,
    sign: bool = False,
) -> Committed:
    """A commit object of `tree` (`git commit-tree`, the message on stdin), as git's fallback identity when
    git has none here; no ref moves.  The caller says FALLBACK_NOTE once when `fallback` is set."""
    args = ["commit-tree", *(("-S",) if sign else ()), tree, *(arg for each in parents for arg in ("-p", each)),
            "-F", "-"]  # `git commit-tree` does not read commit.gpgsign itself: the caller says `sign`
    data = message.encode("utf-8")
    proc = _run(root, *args, env=env, stdin=data, check=False)
    fallback = False
    if proc.returncode != 0 and any(hint.encode() in proc.stderr for hint in IDENTITY_HINTS):
        proc = _run(root, *args, env={**(env or {}), **FALLBACK_IDENTITY}, stdin=data, check=False)
        fallback = True
    if proc.returncode != 0:
        raise GitError(_describe_failure(["commit", *args[1:]], proc))
    return Committed(proc.stdout.decode().strip(), fallback)


def hash_blobs(root: Path, state: Path, datas: Sequence[bytes]) -> dict[bytes, str]:
    """Write each text as a blob (as stored: no filters) in one `git hash-object`; text -> blob id."""
    unique = list(dict.fromkeys(datas))
    if not unique:
        return {}
    folder = state / f"blobs.{os.getpid()}{TEMP_SUFFIX}"
    folder.mkdir(exist_ok=True)
    try:
        files = []
        for number, data in enumerate(unique):
            file = folder / str(number)
            file.write_bytes(data)
            files.append(str(file))
        stdin = "".join(f"{file}\n" for file in files).encode("utf-8", "surrogateescape")
        ids = _out(root, "hash-object", "-w", "--no-filters", "--stdin-paths", stdin=stdin).split()
    finally:
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()
    return dict(zip(unique, ids, strict=True))


def index_entries(
    root: Path, paths: Sequence[str], *, env: Mapping[str, str] | None = None,
) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob) of the stage-0 entries of `paths` in the index (`env` may name another)."""
    if not paths:
        return {}
    entries = {}
    proc = _run(root, "ls-files", "-s", "-z", "--", *paths, env={**(env or {}), "GIT_LITERAL_PATHSPECS": "1"})
    for line in _split_z(proc.stdout):
        meta, path = line.split("\t", 1)
        mode, blob, stage = meta.split()
        if stage == "0":
            entries[path] = (mode, blob)
    return entries


def move_head(
    root: Path, new: str, old: str | None, reason: str, *, env: Mapping[str, str] | None = None,
) -> None:
    """Move the branch HEAD names from `old` (None: unborn) to `new`, only if it is still at `old`."""
    # The reflog's reason is the commit's subject, which may be the user's words (`flush -m`): its UTF-8
    # bytes, whatever the locale (under LANG=C an argument must otherwise be ASCII).
    message = os.fsdecode(f"commit: {reason}".encode("utf-8", "surrogateescape"))
    proc = _run(root, "update-ref", "-m", message, "HEAD", new, old or "", env=env, check=False)
    if proc.returncode != 0:
        raise BranchMoved(
            f"{_describe_failure(['update-ref', 'HEAD'], proc)}; the branch moved while apm-git was committing, "
            "nothing was changed — run the command again",
        )


def set_index(
    root: Path, entries: Mapping[str, tuple[str, str] | None], *, from_worktree: Sequence[str] = (),
) -> None:
    """Give the user's index the committed entries of these paths (as `git commit --only` does).

    Paths committed from the work tree are re-added from it, so their stat data is fresh;
    the others take the committed blob (and show as unstaged where the work tree differs).
    """
    fresh = set(from_worktree)
    if fresh:
        _run(root, "update-index", "--add", "--remove", "-z", "--stdin", stdin=pathspec_stdin(sorted(fresh)))
    lines = []
    for path, entry in entries.items():
        if path in fresh:
            continue
        line = f"0 {'0' * 40}\t{path}" if entry is None else f"{entry[0]} {entry[1]}\t{path}"
        lines.append(line.encode("utf-8", "surrogateescape") + b"\0")
    if lines:
        _run(root, "update-index", "-z", "--index-info", stdin=b"".join(lines))


def config_bool(root: Path, key: str) -> bool:
    proc = _run(root, "config", "--type=bool", "--get", key, check=False)
    return proc.stdout.strip() == b"true"


FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "apm-git",
    "GIT_AUTHOR_EMAIL": "apm-git@localhost",
    "GIT_COMMITTER_NAME": "apm-git",
    "GIT_COMMITTER_EMAIL": "apm-git@localhost",
}
# What a command says, once, when it made a commit as FALLBACK_IDENTITY (`Built.fallback`, `Committed.fallback`).
FALLBACK_NOTE = (f"NOTE: git has no user identity here, so the commit(s) were made as apm-git "
                 f"<{FALLBACK_IDENTITY['GIT_AUTHOR_EMAIL']}>; set yours with `git config --global user.name NAME` "
                 "and `git config --global user.email EMAIL`")


def commit_id(root: Path, ref: str) -> str | None:
    """The commit a ref names, or None when it names none."""
    proc = _run(root, "rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}", check=False)
    return proc.stdout.decode().strip() or None


def merge_base(root: Path, one: str, other: str) -> str | None:
    proc = _run(root, "merge-base", one, other, check=False)
    return proc.stdout.decode().strip() or None


def merge_bases(root: Path, one: str, other: str) -> list[str]:
    """Every best common ancestor of two commits (`merge-base --all`): more than one in a criss-cross history."""
    return _run(root, "merge-base", "--all", one, other, check=False).stdout.decode().split()


def merges(root: Path, base: str, tip: str) -> list[tuple[str, list[str]]]:
    """The merge commits in `base..tip`, oldest first, each with its parents."""
    lines = _out(root, "rev-list", "--merges", "--parents", "--topo-order", "--reverse", f"{base}..{tip}")
    return [(commit, parents) for commit, *parents in (line.split() for line in lines.splitlines())]


REGULAR_MODES = ("100644", "100755")


def index_blobs(root: Path, pathspecs: Sequence[str]) -> dict[str, str]:
    """path -> blob id of the regular files staged (stage 0) in the index, from one `git ls-files -s`."""
    return _index_blobs(_run(root, "ls-files", "-s", "-z", "--", *pathspecs).stdout)


def _index_blobs(data: bytes) -> dict[str, str]:
    blobs = {}
    for line in _split_z(data):
        meta, path = line.split("\t", 1)
        mode, blob, stage = meta.split()
        if mode in REGULAR_MODES and stage == "0":
            blobs[path] = blob
    return blobs


def tree_blobs(root: Path, rev: str, pathspecs: Sequence[str]) -> dict[str, str]:
    """path -> blob id of the regular files in a commit's tree, from one `git ls-tree -r`."""
    blobs = {}
    for line in _split_z(_run(root, "ls-tree", "-r", "-z", rev, "--", *pathspecs).stdout):
        meta, path = line.split("\t", 1)
        mode, kind, blob = meta.split()
        if mode in REGULAR_MODES and kind == "blob":
            blobs[path] = blob
    return blobs


class TreeFiles(NamedTuple):
    """The regular files of a commit's tree under some pathspecs: what `tree_texts` found."""

    texts: dict[str, str]  # path -> text, for the UTF-8 files of at most the size limit
    blobs: dict[str, str]  # path -> blob id, for every file
    sizes: dict[str, int]  # path -> size in bytes, for every file
    datas: dict[str, bytes]  # path -> bytes, for every file of at most the size limit (the text ones too)


def tree_texts(root: Path, rev: str, pathspecs: Sequence[str], *, limit: int) -> TreeFiles:
    """The regular files of a commit under `pathspecs`: every file's blob id and size, the bytes of those
    of at most `limit` bytes (a larger blob never leaves git: `small_blobs`), and the text of those
    that are UTF-8."""
    blobs = tree_blobs(root, rev, pathspecs)
    sizes, contents = small_blobs(root, blobs.values(), limit)
    texts, datas = {}, {}
    for path, blob in blobs.items():
        data = contents.get(blob)
        if data is None:
            continue
        datas[path] = data
        try:
            texts[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return TreeFiles(texts, blobs, {path: sizes.get(blob, 0) for path, blob in blobs.items()}, datas)


def untracked(root: Path, pathspecs: Sequence[str]) -> list[str]:
    return _split_z(_run(root, "ls-files", "-o", "-z", "--exclude-standard", "--", *pathspecs).stdout)


def unstaged(root: Path, pathspecs: Sequence[str]) -> list[str]:
    """Tracked files whose work tree may differ from the index (by stat data: a superset)."""
    return _split_z(_run(root, "diff-files", "--name-only", "-z", "--", *pathspecs).stdout)


def deleted(root: Path, pathspecs: Sequence[str]) -> list[str]:
    """Files the index tracks that are missing from the work tree: deleted by hand, not with `git rm`."""
    return _split_z(_run(root, "ls-files", "-d", "-z", "--", *pathspecs).stdout) if pathspecs else []


def staged(root: Path, folder: str) -> set[str]:
    """The paths under `folder` whose index entry differs from HEAD's: what the user staged
    (a `git rm` leaves no entry, a `git add` of an edit another blob)."""
    proc = _run(root, "diff-index", "--cached", "--name-only", "-z", "--no-renames", "HEAD", "--",
                f":(literal){folder}")
    return set(_split_z(proc.stdout))


class RawChange(NamedTuple):
    """One change of `git diff-* --raw -M`: status letter, blob ids (all zeros: the work tree), paths."""

    status: str
    old_blob: str
    new_blob: str
    path: str
    old_path: str | None = None


def diff_raw(root: Path, *args: str, pathspecs: Sequence[str]) -> list[RawChange]:
    """`git <args> --raw -z -M -- <pathspecs>` (diff-index or diff-tree), parsed."""
    return _parse_raw(_split_z(_run(root, *args, "--raw", "-z", "-M", "--", *pathspecs).stdout))


class StagedReads:
    """What a commit's hook reads first, started together and read later: the index's blobs under
    `pathspecs` (`git ls-files -s`) and its changes from `base` (`git diff-index --cached`).  The two git
    processes run side by side while the hook imports its checks (docs/hook-entry.md, "Start-up").
    Read each once; a failure raises GitError when it is read, as `index_blobs` and `diff_raw` would."""

    __slots__ = ("_changes", "_listing")

    def __init__(self, root: Path, base: str, pathspecs: Sequence[str]) -> None:
        self._listing = _start(root, "ls-files", "-s", "-z", "--", *pathspecs)
        self._changes = _start(root, "diff-index", "--cached", base, "--raw", "-z", "-M", "--", *pathspecs)

    def listing(self) -> dict[str, str]:
        return _index_blobs(_finish(self._listing))

    def changes(self) -> list[RawChange]:
        return _parse_raw(_split_z(_finish(self._changes)))


def _parse_raw(parts: Sequence[str]) -> list[RawChange]:
    """The `--raw -z` entries: `:MODE MODE OLD NEW STATUS`, then the path (two for a rename or copy)."""
    changes = []
    index = 0
    while index < len(parts):
        if not parts[index].startswith(":"):  # what `git log -z` leaves between a commit and its changes
            index += 1
            continue
        _, _, old_blob, new_blob, status = parts[index][1:].split()
        if status[0] in "RC":
            changes.append(RawChange(status[0], old_blob, new_blob, parts[index + 2], parts[index + 1]))
            index += 3
        else:
            changes.append(RawChange(status[0], old_blob, new_blob, parts[index + 1]))
            index += 2
    return changes


# --- history: log and grep ------------------------------------------------------------------

class Commit(NamedTuple):
    """One commit of `git log`."""

    sha: str
    date: str  # committer date, ISO 8601
    parents: tuple[str, ...]
    subject: str
    message: str  # the whole message: subject, body and trailers


class Logged(NamedTuple):
    """A commit of `git log --raw` and its changes to the paths asked for (renames found: -M)."""

    commit: Commit
    changes: list[RawChange]


_LOG_FORMAT = "--format=%x1e%H%x00%cI%x00%P%x00%s%x00%B%x00"


def _commit_fields(fields: Sequence[str]) -> Commit:
    sha, date, parents, subject, message = fields[:5]
    return Commit(sha.lstrip("\n"), date, tuple(parents.split()), subject, message)


def log(
    root: Path, revisions: Sequence[str], *, grep: str | None = None, max_count: int | None = None,
) -> list[Commit]:
    """The commits `git log REVISIONS` lists, newest first (merges included); with `grep`, only those whose
    message holds that fixed string."""
    options = [*(("-F", f"--grep={grep}") if grep is not None else ()),
               *((f"--max-count={max_count}",) if max_count is not None else ())]
    data = _out(root, "log", *options, _LOG_FORMAT, "--end-of-options", *revisions, "--")
    return [_commit_fields(chunk.split("\0")) for chunk in data.split("\x1e")[1:]]


def log_changes(root: Path, revision: str, paths: Sequence[str]) -> list[Logged]:
    """The commits of `revision` that touched `paths`, in topological order, newest first, each with its
    changes to them (`git log --raw -M`: blob ids before and after, renames and copies with their source)."""
    data = _out(root, "log", "-z", "--topo-order", "--raw", "--no-abbrev", "-M", _LOG_FORMAT,
                "--end-of-options", revision, "--", *paths)
    logged = []
    for chunk in data.split("\x1e")[1:]:
        fields = chunk.split("\0")
        logged.append(Logged(_commit_fields(fields), _parse_raw([token.lstrip("\n") for token in fields[5:]])))
    return logged


class Hunk(NamedTuple):
    """One `@@ -old_start,old_count +new_start,new_count @@` of a `-U0` patch, with the lines of it that start
    with the caller's prefix (line number, text): removed ones numbered in the old file, added in the new."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: list[tuple[int, str]]
    added: list[tuple[int, str]]
    spans: list[int]  # first and last non-blank line removed (old numbers), then added (new numbers); 0: none


class FilePatch(NamedTuple):
    path: str  # the file's path (the old one when the commit deleted it)
    created: bool
    deleted: bool
    hunks: list[Hunk]


def log_patches(root: Path, revision: str, paths: Sequence[str], marked: bytes) -> list[tuple[Commit, list[FilePatch]]]:
    """The first-parent commits of `revision` that touched `paths`, oldest first, each with its `-U0` patch of
    them (renames as a deletion and an addition; a merge against its first parent), in one `git log`."""
    data = _run(root, "-c", "core.quotepath=off", "log", "--reverse", "--first-parent", "--diff-merges=first-parent",
                "-p", "-U0", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv",
                "--format=%x1e%H%x00%cI%x00%P%x00%s%x00%B%x1f", "--end-of-options", revision, "--", *paths).stdout
    found = []
    for chunk in data.split(b"\x1e")[1:]:
        head, _, patch = chunk.partition(b"\x1f")
        sha, date, parents, subject, message = head.decode("utf-8", "replace").split("\0")[:5]
        found.append((Commit(sha.lstrip("\n"), date, tuple(parents.split()), subject, message),
                      _file_patches(patch, marked)))
    return found


def _file_patches(patch: bytes, marked: bytes) -> list[FilePatch]:
    files: list[FilePatch] = []
    header = False
    old_path = new_path = ""
    hunks: list[Hunk] = []
    old_line = new_line = 0

    def close() -> None:
        if old_path or new_path:
            files.append(FilePatch(new_path or old_path, not old_path, not new_path, hunks))

    for line in patch.split(b"\n"):
        first = line[:1]
        if first == b"-" and not header:
            if line.startswith(marked, 1):
                hunks[-1].removed.append((old_line, line[1:].decode("utf-8", "replace")))
            if line[1:].strip():
                spans = hunks[-1].spans
                spans[0] = spans[0] or old_line
                spans[1] = old_line
            old_line += 1
        elif first == b"+" and not header:
            if line.startswith(marked, 1):
                hunks[-1].added.append((new_line, line[1:].decode("utf-8", "replace")))
            if line[1:].strip():
                spans = hunks[-1].spans
                spans[2] = spans[2] or new_line
                spans[3] = new_line
            new_line += 1
        elif line.startswith(b"diff --git "):
            close()
            header, old_path, new_path, hunks = True, "", "", []
        elif line.startswith(b"@@ "):
            header = False
            old, new = line.split(b" ")[1:3]
            old_start, _, old_count = old[1:].partition(b",")
            new_start, _, new_count = new[1:].partition(b",")
            hunks.append(Hunk(int(old_start), int(old_count or 1), int(new_start), int(new_count or 1), [], [],
                              [0, 0, 0, 0]))
            old_line, new_line = int(old_start), int(new_start)
        elif header and line.startswith((b"--- ", b"+++ ")) and line[4:] != b"/dev/null":
            name = _unquote(line[4:].decode("utf-8", "surrogateescape"))[2:]  # `--- a/PATH`, `+++ b/PATH`
            if line.startswith(b"--- "):
                old_path = name
            else:
                new_path = name
    close()
    return files


def _unquote(name: str) -> str:
    """A path as `git diff` prints it: C-quoted when it holds unusual characters."""
    if not (name.startswith('"') and name.endswith('"')):
        return name
    raw = name[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
    return raw.decode("utf-8", "surrogateescape")


def paths_changing(root: Path, revision: str, needle: str, pathspecs: Sequence[str]) -> list[str]:
    """The paths under `pathspecs` where a commit of `revision` changed how often the fixed string `needle`
    occurs (`git log -S`, one process; merges are not diffed)."""
    data = _out(root, "log", "-z", "--format=", "--name-only", "--no-renames", f"-S{needle}", "--end-of-options",
                revision, "--", *pathspecs)
    return sorted({name.strip("\n") for name in data.split("\0") if name.strip("\n")})


def rev_list(root: Path, revision: str) -> list[str]:
    """The commits `revision` reaches, oldest first."""
    return _out(root, "rev-list", "--reverse", "--end-of-options", revision).split()


def grep_lines(root: Path, revision: str, patterns: Sequence[str], pathspecs: Sequence[str]) -> list[tuple[str, str]]:
    """(path, line) of every line of `revision`'s files under `pathspecs` that holds one of the fixed
    strings `patterns` (`git grep -F`, one process)."""
    found = []
    out = _grep(root, revision, patterns, pathspecs).decode("utf-8", "surrogateescape")
    at = 0
    while (end_of_path := out.find("\0", at)) != -1:  # `path\0line\n`: a path may hold a line break, a line not
        end = out.find("\n", end_of_path)
        end = len(out) if end == -1 else end
        if end > end_of_path + 1:
            found.append((out[at:end_of_path].removeprefix(f"{revision}:"), out[end_of_path + 1:end]))
        at = end + 1
    return found


def grep_files(root: Path, revision: str, patterns: Sequence[str], pathspecs: Sequence[str]) -> list[str]:
    """The files of `revision` under `pathspecs` that hold one of the fixed strings `patterns`."""
    return [path.removeprefix(f"{revision}:")
            for path in _split_z(_grep(root, revision, patterns, pathspecs, "-l"))]


def _grep(root: Path, revision: str, patterns: Sequence[str], pathspecs: Sequence[str], *options: str) -> bytes:
    if not patterns:
        return b""
    args = ["grep", *options, "-z", "-F", *(arg for pattern in patterns for arg in ("-e", pattern))]
    proc = _run(root, *args, revision, "--", *pathspecs, check=False)
    if proc.returncode not in (0, 1):  # 1: nothing found
        raise GitError(_describe_failure(args, proc))
    return proc.stdout


# --- remotes: fetch, push, merge (apm-git sync) ---------------------------------------------

# Never wait for a password prompt: sync runs from cron and agent hooks, with no one to type it.
REMOTE_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
MISSING_REF_HINT = "couldn't find remote ref"


def current_branch(root: Path) -> str | None:
    """The branch HEAD names (`main`), or None when HEAD is detached."""
    proc = _run(root, "symbolic-ref", "-q", "HEAD", check=False)
    ref = proc.stdout.decode().strip()
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


def config_get(root: Path, key: str) -> str | None:
    proc = _run(root, "config", "--get", key, check=False)
    return proc.stdout.decode("utf-8", "surrogateescape").strip() or None


def config_set(root: Path, key: str, value: str) -> None:
    _run(root, "config", key, value)


def gc_auto(root: Path, loose_objects: int) -> bool:
    """`git gc --auto`: git packs the loose objects when there are more than about `loose_objects` (its `gc.auto`
    estimate) and otherwise does nothing, quickly.  As after `git commit`, the packing itself runs detached, in
    the background, unless the repository sets `gc.autoDetach` false; a `gc.auto` it sets wins (0: never).
    True when git ran without an error."""
    args = [] if config_get(root, "gc.auto") is not None else ["-c", f"gc.auto={loose_objects}"]
    return _run(root, *args, "gc", "--auto", "--quiet", check=False).returncode == 0


def is_ref_name(root: Path, ref: str, *, pattern: bool = False) -> bool:
    """Whether `ref` (`refs/heads/NAME`) is a valid ref name (`pattern`: may hold one `*`)."""
    options = ("--refspec-pattern",) if pattern else ()
    return _run(root, "check-ref-format", *options, ref, check=False).returncode == 0


def remotes(root: Path) -> list[str]:
    return _out(root, "remote").split()


def is_ancestor(root: Path, ancestor: str, descendant: str) -> bool:
    return _run(root, "merge-base", "--is-ancestor", ancestor, descendant, check=False).returncode == 0


def fetch(root: Path, remote: str, refspecs: Sequence[str]) -> bool:
    """`git fetch` of `refspecs` from `remote`, tags left alone; False when the first refspec's
    source branch does not exist on the remote (a branch not pushed yet), FetchFailed when the
    remote cannot be read."""
    proc = _run(root, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--end-of-options", remote,
               *refspecs, env=REMOTE_ENV, check=False)
    if proc.returncode == 0:
        return True
    if MISSING_REF_HINT.encode() in proc.stderr and len(refspecs) >= 1:
        if len(refspecs) > 1:  # fetch the rest (the branches to gather) without the missing one
            rest = _run(root, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--end-of-options", remote,
                       *refspecs[1:], env=REMOTE_ENV, check=False)
            if rest.returncode != 0:
                raise FetchFailed(_describe_failure(["fetch", remote], rest))
        return False
    raise FetchFailed(_describe_failure(["fetch", remote], proc))


class Pushed(NamedTuple):
    """What `git push` did: ok, or rejected as not a fast-forward (the remote branch moved: merge again)."""

    ok: bool
    rejected: bool
    detail: str


def push(root: Path, remote: str, commit: str, branch: str) -> Pushed:
    """`git push REMOTE COMMIT:refs/heads/BRANCH`, never forced: the remote takes it only as a fast-forward."""
    proc = _run(root, "push", "--porcelain", "--end-of-options", remote,
               f"{commit}:refs/heads/{branch}", env=REMOTE_ENV, check=False)
    if proc.returncode == 0:
        return Pushed(True, False, "")
    report = proc.stdout.decode("utf-8", "replace")
    rejected = any(line.startswith("!") and "[rejected]" in line for line in report.splitlines())  # not a fast-forward
    lines = [line for line in report.splitlines() if line.startswith("!")]
    detail = lines[0].split("\t")[-1] if lines else _describe_failure(["push", remote], proc)
    return Pushed(False, rejected, detail)


def ls_remote(root: Path, remote: str, ref: str) -> str | None:
    """The commit `ref` names on `remote` (one round trip, nothing fetched), None when it names none."""
    proc = _run(root, "ls-remote", "--end-of-options", remote, ref, env=REMOTE_ENV, check=False)
    if proc.returncode != 0:
        raise FetchFailed(_describe_failure(["ls-remote", remote], proc))
    for line in proc.stdout.decode().splitlines():
        commit, name = line.split("\t", 1)
        if name == ref:
            return commit
    return None


def merge_tree(root: Path, ours: str, theirs: str, *, ours_for: Sequence[str] = ()) -> tuple[str, list[str]]:
    """git's own merge of two commits as a tree (`merge-tree --write-tree`, nothing checked out):
    the tree id and the paths git could not merge (their blobs hold conflict markers).  The merge
    drivers named in `ours_for` keep ours without running (the caller merges those paths itself)."""
    quiet = [arg for name in ours_for for arg in ("-c", f"merge.{name}.driver=true")]
    proc = _run(root, *quiet, "merge-tree", "--write-tree", "--name-only", "-z", "--allow-unrelated-histories",
               ours, theirs, check=False)
    if proc.returncode not in (0, 1):
        raise GitError(_describe_failure(["merge-tree", "--write-tree"], proc))
    head_part, _, _ = proc.stdout.partition(b"\0\0")  # tree, conflicted paths, then the messages
    parts = _split_z(head_part)
    return parts[0], list(dict.fromkeys(parts[1:])) if proc.returncode == 1 else []


def tree_entries(root: Path, rev: str, paths: Sequence[str]) -> dict[str, tuple[str, str] | None]:
    """path -> (mode, object id) in a commit's or tree's tree for each of `paths`; None: absent."""
    found: dict[str, tuple[str, str] | None] = dict.fromkeys(paths)
    if not paths:
        return found
    proc = _run(root, "ls-tree", "-r", "-z", "--full-tree", rev)  # whole tree: no argument-list limit
    for line in _split_z(proc.stdout):
        meta, path = line.split("\t", 1)
        mode, _, oid = meta.split()
        if path in found:
            found[path] = (mode, oid)
    return found


def changed_paths(root: Path, old: str, new: str) -> list[str]:
    """Every path whose entry differs between two commits (or trees), renames as delete + add."""
    return _split_z(_run(root, "diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new).stdout)


def update_ref(root: Path, ref: str, new: str, old: str | None, reason: str) -> None:
    """Point `ref` at `new` if it is at `old` (None: only if it does not exist yet)."""
    _run(root, "update-ref", "-m", reason, ref, new, old or "")


def refs_under(root: Path, prefix: str) -> list[str]:
    return _out(root, "for-each-ref", "--format=%(refname)", "--sort=refname", prefix).split()


def delete_ref(root: Path, ref: str) -> None:
    _run(root, "update-ref", "-d", ref, check=False)


# --- a tracked folder: its history in a git dir apart from it (docs/tracking.md) ------------------

def use_git_dir(work_tree: Path, git_dir: Path) -> None:
    """Run every later git command at `work_tree` on the history in `git_dir` (GIT_DIR, GIT_WORK_TREE)."""
    _APART[str(work_tree)] = {"GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(work_tree)}


def init_apart(work_tree: Path, git_dir: Path, settings: Mapping[str, str]) -> None:
    """`git init` of `git_dir` for the work tree `work_tree` (nothing is written into the work tree), with
    `settings` in its config."""
    use_git_dir(work_tree, git_dir)
    _run(work_tree, "init", "--quiet")
    for key, value in settings.items():
        _run(work_tree, "config", key, value)


def add(root: Path, paths: Sequence[str]) -> None:
    """`git add -A` of exactly `paths` (literal names: added, changed or deleted) into the index."""
    if paths:
        _run(root, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", env={"GIT_LITERAL_PATHSPECS": "1"},
             stdin=pathspec_stdin(paths))


def head_tree(root: Path) -> tuple[str, str] | None:
    """HEAD's commit and tree in one `git rev-parse`; None before the first commit."""
    proc = _run(root, "rev-parse", "HEAD", "HEAD^{tree}", check=False)
    found = proc.stdout.decode().split()
    return (found[0], found[1]) if proc.returncode == 0 and len(found) == 2 else None


def write_tree(root: Path) -> str:
    """The index as a tree object."""
    return _out(root, "write-tree").strip()


def read_tree(root: Path, rev: str) -> None:
    """Set the index to `rev`'s tree, then give its entries the work tree's stat data where the files match."""
    _run(root, "read-tree", rev)
    refresh_index(root)


def project_root(path: Path) -> Path | None:
    """The root of the git work tree `path` lies in, the main one for a linked worktree (every worktree of a
    repository is one project); None outside git."""
    proc = _run(path, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir", check=False)
    found = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode != 0 or len(found) != 2:
        return None
    common = Path(found[1])
    return common.parent if common.name == ".git" else Path(found[0])


def remote_url(root: Path) -> str | None:
    """The URL of `origin`, else of the first remote; None when the repository has none."""
    url = config_get(root, "remote.origin.url")
    if url:
        return url
    names = remotes(root)
    return config_get(root, f"remote.{names[0]}.url") if names else None
