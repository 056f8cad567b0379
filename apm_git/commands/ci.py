"""`apm-git ci github|gitlab`: write the CI job that reviews memory in pull requests (docs/ci.md).

The job fetches the whole history, installs apm-git, runs the gate (`lint` on the range, merge
commits included) and publishes `apm-git diff --format markdown`.  The file lands in the memory
repository's work tree and is left for the user to commit: apm-git commits memory, not CI.

A user's file is never overwritten: an existing `.gitlab-ci.yml` that apm-git did not write gets
an include file beside it instead, and `--force` rewrites only a file apm-git wrote.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Final

from apm_git import __version__
from apm_git.errors import StateError, UsageError
from apm_git.model.vocabulary import CiAction, CiProvider
from apm_git.store.atomic import write_atomic
from apm_git.store.templates import template_dir

GITHUB = "github"
GITLAB = "gitlab"
PROVIDERS = (GITHUB, GITLAB)
GITHUB_WORKFLOW = ".github/workflows/apm-memory.yml"
GITLAB_CI = ".gitlab-ci.yml"
GITLAB_INCLUDE = ".gitlab/apm-memory.yml"
ASK = ("give --install-spec with a pip requirement CI can reach, e.g. "
       "'apm-git @ git+https://HOST/OWNER/apm-git.git@COMMIT'")
MARK = "# Written by `apm-git ci "  # the first line of every file apm-git writes here

WRITTEN: Final = "written"
UNCHANGED: Final = "unchanged"
REWRITTEN: Final = "rewritten"


@dataclasses.dataclass
class CiResult:
    provider: CiProvider
    path: str  # repo-relative: the file written (or found up to date)
    action: CiAction
    install_spec: str
    include: str | None = None  # GitLab: the line to add to the user's .gitlab-ci.yml, when it lacks it


def default_install_spec() -> str:
    """The running apm-git as pip recorded where it came from (apm_git/model/install_spec.py), so CI checks
    with the rules this memory was written under; a UsageError naming `--install-spec` when CI cannot
    install it from there (a local folder)."""
    from importlib import metadata

    from apm_git.model.install_spec import NAME, spec_from

    try:
        dist = metadata.distribution(NAME)
    except metadata.PackageNotFoundError:
        raise UsageError(f"apm-git runs from its source, not from an installation, so CI cannot install it the same "
                         f"way: {ASK}") from None
    spec, why = spec_from(dist.read_text("direct_url.json"), dist.version)
    if spec is None:
        raise UsageError(f"CI cannot install this apm-git ({why}): {ASK}")
    return spec


def render(provider: str, install_spec: str) -> str:
    spec = install_spec.strip()
    if not spec or "\n" in spec or "\r" in spec:
        raise UsageError("--install-spec: give one pip requirement on one line, e.g. "
                         "'apm-git @ git+https://HOST/OWNER/apm-git.git@COMMIT'")
    text = (template_dir() / "ci" / f"{provider}.yml").read_text(encoding="utf-8")
    # A JSON string is a YAML double-quoted scalar: any spec (a URL, quotes, `#`) stays one value.
    return text.replace("@APM_VERSION@", __version__).replace("@APM_INSTALL_SPEC@", json.dumps(spec))


def write_ci(root: Path, provider: CiProvider, *, install_spec: str | None = None, force: bool = False) -> CiResult:
    """Write the provider's CI file into the repository at `root`; see the module's docstring."""
    spec = install_spec if install_spec is not None else default_install_spec()
    text = render(provider, spec)
    include = None
    target = GITHUB_WORKFLOW
    if provider == GITLAB:
        target = GITLAB_CI
        own = _read(root, GITLAB_CI)
        if own is not None and not own.startswith(MARK):
            target = GITLAB_INCLUDE  # the user's pipeline: ours goes beside it, to be included
            if GITLAB_INCLUDE not in own:
                include = f"include:\n  - local: {GITLAB_INCLUDE}"
    action = _write(root, target, text, force=force, provider=provider)
    return CiResult(provider, target, action, spec.strip(), include)


def _read(root: Path, rel: str) -> str | None:
    path = root / rel
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise StateError(f"{rel} is a link or not a regular file; apm-git writes no CI file through it")
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None


def _write(root: Path, rel: str, text: str, *, force: bool, provider: str) -> CiAction:
    old = _read(root, rel)
    if old == text:
        return UNCHANGED
    if old is not None and not old.startswith(MARK):
        raise StateError(f"{rel} exists and apm-git did not write it; left alone (move it away to let "
                         f"`apm-git ci {provider}` write its own)")
    if old is not None and not force:
        raise StateError(f"{rel} differs from what this apm-git writes (edited, or written by another version); "
                         f"left alone; `apm-git ci {provider} --force` rewrites it")
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text.encode("utf-8"))  # a new file gets what the umask allows: one to commit and share
    return WRITTEN if old is None else REWRITTEN
