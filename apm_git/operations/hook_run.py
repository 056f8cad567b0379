"""`apm-git-hook-run HOOK-ID [FILE…]`: the apm pre-commit hook (a console script).

`apm-checks`, the hook `apm-git init` writes, runs every check and prints every finding, in one
process per commit; pre-commit's `SKIP` names checks to leave out.  A check's own id (`apm-budget`,
…) runs that check alone: the hook ids of configurations written before `apm-checks`, kept as
aliases until `init` or `setup` migrates them (docs/hook-entry.md).  Nothing is stored between hooks,
and a hook never modifies a file in the work tree or the index.

One short process per commit, so this module and what it imports keep start-up cheap: no dataclasses,
inspect or click (docs/hook-entry.md, "Start-up"; tests/checks/test_hook_entry.py holds it).
"""
from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

from apm_git.checks.manifest import EVERY
from apm_git.model.vocabulary import CHECK_IDS

USAGE = f"usage: apm-git-hook-run HOOK-ID [FILE...]; HOOK-ID is one of {', '.join((EVERY.id, *CHECK_IDS))}\n"


def main(argv: Sequence[str] | None = None) -> int:
    # One short process per commit: the cyclic collector would only walk the objects of the imports
    # and parsed records again before the process exits and frees them all (docs/hook-entry.md).
    gc.disable()
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or (args[0] not in CHECK_IDS and args[0] != EVERY.id):
        sys.stderr.write(USAGE)
        return 2
    from apm_git.errors import ApmGitError

    hook, files = args[0], args[1:]
    try:
        answer = run_hook(hook, files)
    except ApmGitError as error:
        sys.stderr.write(f"apm-git-hook-run {hook}: {error}\n")
        return error.exit_code
    for text in answer:
        sys.stdout.write(text + "\n")
    return 1 if answer else 0


def run_hook(hook: str, files: list[str]) -> list[str]:
    """The findings of `hook` (every check for `apm-checks`, less those `SKIP` names) for this comparison
    (base HEAD or PRE_COMMIT_FROM_REF, new side the index or PRE_COMMIT_TO_REF; a range's merge commits
    against each parent too), each as the line the hook prints; per-file checks only for the files given."""
    from pathlib import Path

    from apm_git.operations.gather import gather, staged_sides, start_staged
    from apm_git.store.repo import open_repo

    repo = open_repo(Path.cwd())  # the repository git runs the hook in, whatever APM_GIT_REPO says
    prefix = repo.memory_prefix + "/"
    sides = staged_sides(repo.root)
    staged = start_staged(repo, sides)  # git reads the index while the checks are imported (docs/hook-entry.md)
    from apm_git.checks.run import CHECKS, PER_FILE, run_checks
    from apm_git.operations.lint_merges import across_merges, merge_commits
    from apm_git.printable import neutral

    skipped = skips() if hook == EVERY.id else frozenset()
    chosen = [check for check in CHECKS if check == hook or (hook == EVERY.id and check not in skipped)]
    wanted = {name for name in files if name.startswith(prefix)}
    snap = gather(repo, sides, targets=wanted, with_changed=True, staged=staged)
    found = run_checks(snap, chosen)
    merges = merge_commits(repo, sides)  # a range (pre-commit run --from-ref … --to-ref …): no git process otherwise
    if merges:
        found += [finding for finding in across_merges(repo, merges, snap) if finding.hook in chosen]
    # Each line as printed: a finding's text is one line (its path and message escaped), and a CI runner
    # reading the hook's output obeys no command in it (apm_git/printable.py).
    return [neutral(str(finding)) for finding in found
            if finding.hook not in PER_FILE or not files or finding.path in wanted]


def skips() -> frozenset[str]:
    """The hook ids in pre-commit's `SKIP` (comma-separated, as pre-commit reads it): a person who
    skips `apm-budget` for one commit expects `apm-checks` to leave that check out too."""
    return frozenset(name.strip() for name in os.environ.get("SKIP", "").split(",") if name.strip())
