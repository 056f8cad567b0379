"""`apm-git-hook-run HOOK-ID [FILE…]`: the computing half of the apm pre-commit hooks (a console script).

`apm-checks`, the hook `apm-git init` writes, runs every check here and prints every finding, in one
process per commit; nothing is stored, and pre-commit's `SKIP` names checks to leave out.

pre-commit runs `apm-git-hook` (scripts/apm-git-hook, POSIX sh) once per hook id.  When the
findings of this comparison are not stored yet, the script runs this, with the comparison's
key in APM_GIT_HOOK_KEY: every check runs once, for the hook's files and every changed file,
and the findings go to `.git/apm-git/hook-findings` for the other hooks of the same commit,
which the script then answers without starting Python.  This module writes that file and the
script alone reads it (its layout is described there and in docs/hook-entry.md).  A hook never
modifies a file in the work tree or the index.
"""
from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

from apm_git import __version__
from apm_git.checks.manifest import EVERY, HOOK_IDS, PER_FILE

CACHE = "hook-findings"
ENV_KEY = "APM_GIT_HOOK_KEY"  # the comparison's key, as the script computed it
ENV_RUN = "APM_GIT_HOOK_RUN_KEY"  # the pre-commit run's, when the script could know it
# The layout of hook-findings.  Change it together with scripts/apm-git-hook and bump FORMAT: the
# build writes STAMP into the script, so a script never reads a file of another layout or version.
FORMAT = 3
STAMP = f"{__version__}/{FORMAT}"
USAGE = f"usage: apm-git-hook HOOK-ID [FILE...]; HOOK-ID is one of {', '.join((*HOOK_IDS, EVERY.id))}\n"

Found = list[tuple[str, str, str]]  # (hook id, path, the line the hook prints)


def main(argv: Sequence[str] | None = None) -> int:
    # One short process per commit: the cyclic collector would only walk the objects of the imports
    # and parsed records again before the process exits and frees them all (docs/hook-entry.md).
    gc.disable()
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or (args[0] not in HOOK_IDS and args[0] != EVERY.id):
        sys.stderr.write(USAGE)
        return 2
    from apm_git.errors import ApmGitError

    hook, files = args[0], args[1:]
    try:
        answer = run_hook(hook, files, os.environ.get(ENV_KEY))
    except ApmGitError as error:
        sys.stderr.write(f"apm-git-hook {hook}: {error}\n")
        return error.exit_code
    for _, _, text in answer:
        sys.stdout.write(text + "\n")
    return 1 if answer else 0


def run_hook(hook: str, files: list[str], key: str | None) -> Found:
    """Every check for this comparison (base HEAD or PRE_COMMIT_FROM_REF, new side the index or
    PRE_COMMIT_TO_REF; a range's merge commits against each parent too); the findings are stored
    under `key`, and this hook's are returned."""
    from pathlib import Path

    from apm_git.operations.gather import gather, staged_sides, start_staged
    from apm_git.store.repo import open_repo

    repo = open_repo(Path.cwd())  # the repository git runs the hook in, whatever APM_GIT_REPO says
    prefix = repo.memory_prefix + "/"
    sides = staged_sides(repo.root)
    staged = start_staged(repo, sides)  # git reads the index while the checks are imported (docs/hook-entry.md)
    from apm_git.checks.run import run_checks
    from apm_git.operations.lint_merges import across_merges, merge_commits
    from apm_git.printable import neutral

    snap = gather(repo, sides, targets={name for name in files if name.startswith(prefix)}, with_changed=True,
                  staged=staged)
    found = run_checks(snap)
    merges = merge_commits(repo, sides)  # a range (pre-commit run --from-ref … --to-ref …): no git process otherwise
    if merges:
        found += across_merges(repo, merges, snap)
    # Each line as printed: a finding's text is one line (its path and message escaped), and a CI runner
    # reading the hook's output obeys no command in it (apm_git/printable.py).
    findings: Found = [(f.hook, f.path, neutral(str(f))) for f in found]
    wanted = {name for name in files if name.startswith(prefix)}
    if hook == EVERY.id:  # every check's findings, the per-file ones for the files given; no other hook to tell
        skipped = skips()
        return [finding for finding in findings if finding[0] not in skipped
                and (finding[0] not in PER_FILE or not files or finding[1] in wanted)]
    if key:  # a file given that is not on the new side (a link, a folder) has no findings: checked too
        _store(os.path.join(repo.state_dir, CACHE), key, prefix, sorted(wanted.union(snap.targets)), findings)
    if hook not in PER_FILE or not files:
        return [finding for finding in findings if finding[0] == hook]
    return [finding for finding in findings if finding[0] == hook and finding[1] in wanted]


def skips() -> frozenset[str]:
    """The hook ids in pre-commit's `SKIP` (comma-separated, as pre-commit reads it): a person who
    skips `apm-budget` for one commit expects `apm-checks` to leave that check out too."""
    return frozenset(name.strip() for name in os.environ.get("SKIP", "").split(",") if name.strip())


def _store(path: str, key: str, prefix: str, checked: list[str], findings: Found) -> None:
    """Leave the findings for the script; nothing when a field holds a tab or a line break, which
    the script's lines cannot carry, or is not UTF-8 (the next hook then computes its own answer)."""
    run = os.environ.get(ENV_RUN) or "-"
    fields = [key, run, prefix, *checked, *(field for finding in findings for field in finding)]
    if any("\t" in field or "\n" in field for field in fields):
        return
    lines = [f"apm-git-hook\t{key}", f"run\t{run}", f",{','.join(HOOK_IDS)},", prefix,
             "\t" + "".join(f"{name}\t" for name in checked)]
    lines += [f"{hook}\t{where if hook in PER_FILE else ''}\t{text}" for hook, where, text in findings]
    from apm_git.store.atomic import write_atomic

    try:
        # Synced: the other hooks of a commit (and of its retry after a crash) trust these findings.
        write_atomic(path, ("\n".join([*lines, "end"]) + "\n").encode("utf-8"))
    except (OSError, UnicodeEncodeError):  # costs the next hook this computation, no more
        return
