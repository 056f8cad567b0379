"""What CI installs: the apm-git the user has, read from how it was installed (docs/ci.md, "What CI installs").

pip records where a distribution came from in its `direct_url.json` (PEP 610): a VCS URL and the commit,
an archive's URL and hash, or a local folder.  A distribution installed from a package index has no such
file, and its version is on that index.  CI can install the first three only when they are not on this
machine and carry no credentials; a local folder (an editable install, a clone, a wheel file) it cannot
reach at all, and a requirement guessed for it (`apm-git==VERSION`) could install whatever someone else
published under that name, with the job's token.
"""
from __future__ import annotations

import json
from urllib.parse import urlsplit

NAME = "apm-git"
LOCAL = ("file",)


def spec_from(direct_url: str | None, version: str) -> tuple[str | None, str]:
    """(the pip requirement that installs this apm-git in CI, how it was found), or (None, why there is none)."""
    if direct_url is None:
        return f"{NAME}=={version}", f"version {version}, from the package index it was installed from"
    try:
        data = json.loads(direct_url)
    except json.JSONDecodeError:
        return None, "its direct_url.json (PEP 610) is not valid JSON"
    url = data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str) or not url:
        return None, "its direct_url.json (PEP 610) names no URL"
    problem = _unreachable(url)
    if problem is not None:
        return None, problem
    subdirectory = data.get("subdirectory")
    fragment = f"#subdirectory={subdirectory}" if isinstance(subdirectory, str) and subdirectory else ""
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict):
        commit = vcs.get("commit_id")
        if vcs.get("vcs") != "git" or not isinstance(commit, str) or not commit:
            return None, f"it was installed from {vcs.get('vcs')} at {url}, without a git commit to pin"
        return f"{NAME} @ git+{url}@{commit}{fragment}", f"git commit {commit[:12]} of {url}"
    archive = data.get("archive_info")
    if isinstance(archive, dict):
        hashes = archive.get("hashes") if isinstance(archive.get("hashes"), dict) else {}
        sha256 = hashes.get("sha256") if isinstance(hashes, dict) else None
        pin = f"#sha256={sha256}" if isinstance(sha256, str) and not fragment else ""
        return f"{NAME} @ {url}{pin or fragment}", f"the archive {url}"
    return None, f"it was installed from the folder {url}"


def _unreachable(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme in LOCAL or not parts.scheme:
        return f"it was installed from {url}, on this machine"
    if parts.password or (parts.username and parts.scheme != "ssh"):
        return f"the URL it was installed from ({parts.scheme}://{parts.hostname}/…) carries credentials"
    return None
