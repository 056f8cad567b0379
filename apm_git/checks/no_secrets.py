"""apm-no-secrets: a memory file holds something that looks like a credential.

The scanning is `apm_git.secret_scan` (detect-secrets' plugins and filters, plus apm-git's
own plugins, behind a prefilter that keeps the detect-secrets import away from ordinary
memory).  A finding never repeats the secret.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from apm_git.checks.check import Check
from apm_git.model.snapshot import Finding, Snapshot
from apm_git.secret_scan import scan
from apm_git.secret_scan.prefilter import ALLOW

ID: Final = "apm-no-secrets"
_KINDS = "looks like a credential ("


def validate(snap: Snapshot) -> Iterator[Finding]:
    for path in snap.targets:
        text = snap.new.get(path)
        kinds: dict[int, set[str]] = {}
        for suspect in scan(text, path) if text else []:
            kinds.setdefault(suspect.line, set()).add(suspect.kind)
        for line, found in sorted(kinds.items()):
            yield Finding(
                path, line, ID,
                f"{_KINDS}{', '.join(sorted(found))}); remove it from memory and note where the "
                f"secret lives instead, or end the line with '{ALLOW}' if it is not one",
            )


def kinds(finding: Finding) -> list[str]:
    """The kinds of credential a finding of this check names (`AWS Access Key`, …)."""
    start = finding.message.find(_KINDS)
    if start < 0:
        return []
    start += len(_KINDS)
    end = finding.message.find("); ", start)  # a kind may hold a parenthesis itself: `API Key (sk-)`
    return finding.message[start:end if end >= 0 else None].split(", ")


CHECK = Check(
    ID, "a memory file holds something that looks like a credential",
    applies_to="file", severity=10, validate=validate,
)
