"""The one gateway to git: argument tuples, no shell, `--` before paths, `-z` output.

Git runs as a subprocess, as pre-commit runs it.  GitPython was measured and left
out: importing it costs about 80 ms per process, more than the whole budget of
one pre-commit hook (see benchmarks/README.md).
"""
from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from apm_git.errors import GitError

# Status, diff and friends must not take index.lock behind a user's back.
_BASE_ENV = {"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "LANGUAGE": "C"}
IDENTITY_HINTS = ("Please tell me who you are", "empty ident", "unable to auto-detect email")


def run(
    root: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, **_BASE_ENV, **(env or {})}
    try:
        proc = subprocess.run(
            ("git", *args), cwd=root, env=full_env, input=stdin, capture_output=True, check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; install git") from None
    if check and proc.returncode != 0:
        raise GitError(describe_failure(args, proc))
    return proc


def out(root: Path, *args: str, env: Mapping[str, str] | None = None, stdin: bytes | None = None) -> str:
    return run(root, *args, env=env, stdin=stdin).stdout.decode("utf-8", "surrogateescape")


def describe_failure(args: Sequence[str], proc: subprocess.CompletedProcess[bytes]) -> str:
    stderr = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    detail = next((line for line in stderr if line.startswith(("fatal:", "error:"))), stderr[-1] if stderr else "")
    hint = ""
    if "index.lock" in detail:
        hint = "; another git process is working in this repository, retry when it is done"
    return f"`git {' '.join(args[:2])}` failed ({proc.returncode}): {detail or 'no message'}{hint}"


def head(root: Path) -> str | None:
    proc = run(root, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return proc.stdout.decode().strip() or None


def split_z(data: bytes) -> list[str]:
    return [part.decode("utf-8", "surrogateescape") for part in data.split(b"\0") if part]


class Change(NamedTuple):
    """One entry of `git status --porcelain -z --no-renames`: the `xy` codes and the path."""

    xy: str
    path: str


def status(root: Path, pathspecs: Sequence[str]) -> list[Change]:
    """Every changed, deleted or untracked path under `pathspecs`; a rename is a deletion and an addition."""
    if not pathspecs:  # no pathspec would mean the whole work tree, never what a caller wants
        return []
    proc = run(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", *pathspecs)
    return [Change(entry[:2], entry[3:]) for entry in split_z(proc.stdout)]


def cat_files(root: Path, specs: Iterable[str]) -> dict[str, bytes | None]:
    """Blob contents for `rev:path` specs in one `git cat-file --batch`; None when missing."""
    wanted = list(dict.fromkeys(specs))
    if not wanted:
        return {}
    stdin = "".join(f"{spec}\n" for spec in wanted).encode("utf-8", "surrogateescape")
    data = run(root, "cat-file", "--batch", stdin=stdin).stdout
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
        run(root, "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul",
            stdin=pathspec_stdin(paths), check=False)


def commit_paths(
    root: Path,
    git_dir: Path,
    paths: Sequence[str],
    message: str,
    *,
    env: Mapping[str, str] | None = None,
) -> str:
    """Commit exactly `paths` as they are in the work tree; every other staged change stays staged.

    `git commit --only` takes the work-tree contents of the named paths and leaves the
    rest of the index alone; the paths are added first so new files and deletions count.
    """
    stdin = pathspec_stdin(paths)
    run(root, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", env=env, stdin=stdin)
    message_file = git_dir / "apm-git" / "COMMIT_MSG"
    message_file.parent.mkdir(exist_ok=True)
    message_file.write_bytes(message.encode("utf-8"))
    args = (
        "commit", "--no-verify", "--quiet", "--only", "-F", str(message_file),
        "--pathspec-from-file=-", "--pathspec-file-nul",
    )
    proc = run(root, *args, env=env, stdin=stdin, check=False)
    if proc.returncode != 0 and any(hint.encode() in proc.stderr for hint in IDENTITY_HINTS):
        proc = run(root, *args, env={**(env or {}), **FALLBACK_IDENTITY}, stdin=stdin, check=False)
        FALLBACK_COMMITS.append(root)  # the command line says so once (apm_git.cli)
    if proc.returncode != 0:
        unstage(root, paths)  # the `git add` above must not outlive the commit that failed
        raise GitError(describe_failure(args, proc))
    sha = head(root)
    assert sha is not None
    return sha


FALLBACK_COMMITS: list[Path] = []  # repositories this process committed to as FALLBACK_IDENTITY
FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "apm-git",
    "GIT_AUTHOR_EMAIL": "apm-git@localhost",
    "GIT_COMMITTER_NAME": "apm-git",
    "GIT_COMMITTER_EMAIL": "apm-git@localhost",
}


def commit_id(root: Path, ref: str) -> str | None:
    """The commit a ref names, or None when it names none."""
    proc = run(root, "rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}", check=False)
    return proc.stdout.decode().strip() or None


def merge_base(root: Path, one: str, other: str) -> str | None:
    proc = run(root, "merge-base", one, other, check=False)
    return proc.stdout.decode().strip() or None


REGULAR_MODES = ("100644", "100755")


def index_blobs(root: Path, pathspecs: Sequence[str]) -> dict[str, str]:
    """path -> blob id of the regular files staged (stage 0) in the index, from one `git ls-files -s`."""
    blobs = {}
    for line in split_z(run(root, "ls-files", "-s", "-z", "--", *pathspecs).stdout):
        meta, path = line.split("\t", 1)
        mode, blob, stage = meta.split()
        if mode in REGULAR_MODES and stage == "0":
            blobs[path] = blob
    return blobs


def tree_blobs(root: Path, rev: str, pathspecs: Sequence[str]) -> dict[str, str]:
    """path -> blob id of the regular files in a commit's tree, from one `git ls-tree -r`."""
    blobs = {}
    for line in split_z(run(root, "ls-tree", "-r", "-z", rev, "--", *pathspecs).stdout):
        meta, path = line.split("\t", 1)
        mode, kind, blob = meta.split()
        if mode in REGULAR_MODES and kind == "blob":
            blobs[path] = blob
    return blobs


def untracked(root: Path, pathspecs: Sequence[str]) -> list[str]:
    return split_z(run(root, "ls-files", "-o", "-z", "--exclude-standard", "--", *pathspecs).stdout)


def unstaged(root: Path, pathspecs: Sequence[str]) -> list[str]:
    """Tracked files whose work tree may differ from the index (by stat data: a superset)."""
    return split_z(run(root, "diff-files", "--name-only", "-z", "--", *pathspecs).stdout)


class RawChange(NamedTuple):
    """One change of `git diff-* --raw -M`: status letter, blob ids (all zeros: the work tree), paths."""

    status: str
    old_blob: str
    new_blob: str
    path: str
    old_path: str | None = None


def diff_raw(root: Path, *args: str, pathspecs: Sequence[str]) -> list[RawChange]:
    """`git <args> --raw -z -M -- <pathspecs>` (diff-index or diff-tree), parsed."""
    parts = split_z(run(root, *args, "--raw", "-z", "-M", "--", *pathspecs).stdout)
    changes = []
    index = 0
    while index < len(parts):
        _, _, old_blob, new_blob, status = parts[index].lstrip(":").split()
        if status[0] in "RC":
            changes.append(RawChange(status[0], old_blob, new_blob, parts[index + 2], parts[index + 1]))
            index += 3
        else:
            changes.append(RawChange(status[0], old_blob, new_blob, parts[index + 1]))
            index += 2
    return changes
