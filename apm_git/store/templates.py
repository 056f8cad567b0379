"""The files `init` and auto-initialization create, shipped in the wheel as `apm_git/templates`."""
from __future__ import annotations

import string
from collections.abc import Iterator
from pathlib import Path

from apm_git.errors import StateError


def template_dir() -> Path:
    package = Path(__file__).resolve().parent.parent
    # Installed wheel: apm_git/templates; source checkout or editable install: templates/ beside apm_git/.
    for candidate in (package / "templates", package.parent / "templates"):
        if (candidate / "init").is_dir():
            return candidate
    raise StateError("apm-git's templates are missing from its installation; reinstall apm-git")


def render(name: str, **values: str) -> str:
    text = (template_dir() / name).read_text(encoding="utf-8")
    return string.Template(text).safe_substitute(values)


def tree(folder: str) -> Iterator[str]:
    """Template paths under `folder`, relative to it, sorted."""
    base = template_dir() / folder
    for path in sorted(base.rglob("*")):
        if path.is_file():
            yield path.relative_to(base).as_posix()
