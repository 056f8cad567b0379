"""`apm-git-hook-run HOOK-ID [FILE…]`: the computing half of one apm pre-commit hook (a console script).

pre-commit runs `apm-git-hook` (scripts/apm-git-hook, POSIX sh) once per hook id.  When
the shared findings of this comparison are not there yet, the script runs this, with the
comparison's key in APM_GIT_HOOK_KEY: every check runs once, for the hook's files and every
changed file, and the findings go to `.git/apm-git/hook-findings` for the other hooks of
the same commit, which the script then answers without starting Python.  A hook never
modifies a file in the work tree or the index.

hook-findings, tab-separated:  `apm-git-hook  KEY  MEMORY_DIR/  HOOK-IDS` (comma-separated),
then the checked files on one line, then one line per finding: `HOOK-ID  PATH  LINE  MESSAGE`.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from apm_git.checks.manifest import HOOK_IDS, PER_FILE

CACHE = "hook-findings"
ENV_KEY = "APM_GIT_HOOK_KEY"
USAGE = f"usage: apm-git-hook HOOK-ID [FILE...]; HOOK-ID is one of {', '.join(HOOK_IDS)}\n"

Found = list[tuple[str, str, int, str]]  # (hook id, path, line, message)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in HOOK_IDS:
        sys.stderr.write(USAGE)
        return 2
    from apm_git.errors import ApmGitError

    hook, files = args[0], args[1:]
    try:
        answer = run_hook(hook, files, os.environ.get(ENV_KEY))
    except ApmGitError as error:
        sys.stderr.write(f"apm-git-hook {hook}: {error}\n")
        return error.exit_code
    for hook_id, path, line, message in answer:
        sys.stdout.write(f"{path}:{line}: {hook_id}: {message}\n")
    return 1 if answer else 0


def run_hook(hook: str, files: list[str], key: str | None) -> Found:
    """Every check for this comparison (base HEAD or PRE_COMMIT_FROM_REF, new side the index or
    PRE_COMMIT_TO_REF; a range's merge commits against each parent too); the findings are stored
    under `key`, and this hook's are returned."""
    from pathlib import Path

    from apm_git.checks.run import run_checks
    from apm_git.operations.gather import INDEX, gather, resolve_sides
    from apm_git.operations.lint_merges import across_merges, merge_commits
    from apm_git.store.repo import open_repo

    repo = open_repo(Path.cwd())  # the repository git runs the hook in, whatever APM_GIT_REPO says
    prefix = repo.memory_prefix + "/"
    path = repo.state_dir / CACHE
    earlier = _read(path, key)[0] if key else set()
    targets = {name for name in files if name.startswith(prefix)} | earlier
    sides = resolve_sides(repo.root, default_new=INDEX)
    snap = gather(repo, sides, targets=targets, with_changed=True)
    found = run_checks(snap)
    merges = merge_commits(repo, sides)  # a range (pre-commit run --from-ref … --to-ref …): no git process otherwise
    if merges:
        found += across_merges(repo, merges, snap)
    findings = [(f.hook, f.path, f.line, f.message) for f in found]
    if key:
        _write(path, key, prefix, snap.targets, findings)
    if hook not in PER_FILE or not files:
        return [finding for finding in findings if finding[0] == hook]
    wanted = {name for name in files if name.startswith(prefix)}
    return [finding for finding in findings if finding[0] == hook and finding[1] in wanted]


def _read(path: os.PathLike[str], key: str) -> tuple[set[str], Found]:
    """The checked files and findings stored under `key`, or nothing."""
    try:
        with open(path, encoding="utf-8") as handle:
            header, checked, *rows = handle.read().split("\n")
    except (OSError, ValueError):
        return set(), []
    if header.split("\t")[:2] != ["apm-git-hook", key]:
        return set(), []
    found = [(row[0], row[1], int(row[2]), row[3]) for row in (line.split("\t") for line in rows) if len(row) == 4]
    return set(filter(None, checked.split("\t"))), found


def _write(path: os.PathLike[str], key: str, prefix: str, checked: list[str], findings: Found) -> None:
    def clean(text: str) -> str:
        return " ".join(text.split("\t")).replace("\n", " ")

    from apm_git.store.atomic import write_atomic

    lines = [f"apm-git-hook\t{key}\t{prefix}\t{','.join(HOOK_IDS)}", "\t".join(map(clean, checked))]
    lines += [f"{hook}\t{clean(where)}\t{line}\t{clean(message)}" for hook, where, line, message in findings]
    try:
        # Synced: the other hooks of a commit (and of its retry after a crash) trust these findings.
        write_atomic(path, ("\n".join(lines) + "\n").encode("utf-8"))
    except OSError:  # a file that cannot be written only costs the next hook this computation
        return
