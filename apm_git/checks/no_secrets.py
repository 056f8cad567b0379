"""apm-no-secrets: a memory file holds something that looks like a credential.

The detectors are detect-secrets' (AWS keys, GitHub and GitLab tokens, Slack tokens and
webhooks, private key blocks) plus its high-entropy string detectors, applied to the
values of `key=value` pairs (and `key: value` when the key names a secret).  Importing
detect-secrets costs more than a whole commit's checks, so a cheap prefilter, a strict
superset of what those detectors flag, picks the candidate lines first: ordinary memory
text never pays for the import.  A finding never repeats the secret.
"""
from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from apm_git.checks.snapshot import Finding, Snapshot

ID = "apm-no-secrets"
ALLOW = "pragma: allowlist secret"
BASE64 = frozenset(string.ascii_letters + string.digits + "+/-_=")
HEX = frozenset(string.hexdigits)
BASE64_LIMIT = 4.5  # detect-secrets' defaults
HEX_LIMIT = 3.0
MARGIN = 0.5  # the prefilter's thresholds sit this far below, so it never misses what a detector flags

# Literal starts of the tokens the regex detectors know; only Slack's are case-insensitive there.
_TOKEN = re.compile(
    r"A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA"  # AWS access key ids
    r"|gh[pousr]_"  # GitHub
    r"|gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|GR1348941"  # GitLab
    r"|(?i:xox[abposr]-|hooks\.slack\.com)"  # Slack
    r"|PRIVATE KEY|PuTTY-User-Key-File"  # private key blocks
    r"|(?i:aws)",  # AWS secret keys are found by the word aws near a quoted 40-character string
)
_QUOTED_40 = re.compile(r"['\"][0-9a-zA-Z/+]{40}['\"]")
# An assignment: the separator, then the value.  The key is read backwards from the separator.
_ASSIGNED = re.compile(r"[=:][ \t]*[\"'`]?([A-Za-z0-9+/_-]{8,}={0,2})")
_KEY = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*$")
_SECRET_KEY = re.compile(r"key|token|secret|pass|pwd|auth|cred", re.IGNORECASE)


class Candidate(NamedTuple):
    line: int
    text: str
    values: list[str]  # values of key=value pairs worth an entropy check


def shannon(data: str) -> float:
    counts: dict[str, int] = {}
    for char in data:
        counts[char] = counts.get(char, 0) + 1
    return -sum(n / len(data) * math.log2(n / len(data)) for n in counts.values())


def _high_entropy(value: str) -> bool:
    if len(value) < 17 and not set(value) <= HEX:  # base64 entropy above 4.0 needs 17 distinct characters
        return False
    if set(value) <= HEX:
        bits = shannon(value)
        if value.isdigit():
            bits -= 1.2 / math.log2(len(value))  # detect-secrets discounts all-digit strings
        if bits > HEX_LIMIT - MARGIN:
            return True
    return set(value) <= BASE64 and shannon(value) > BASE64_LIMIT - MARGIN


def candidates(text: str) -> list[Candidate]:
    """Lines a detector might flag (never fewer), with the key=value values worth an entropy check."""
    found: dict[int, Candidate] = {}

    def line_at(position: int) -> tuple[int, str]:
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        return text.count("\n", 0, start) + 1, text[start:end if end != -1 else len(text)].rstrip("\r")

    def at(position: int) -> Candidate:
        number, line = line_at(position)
        return found.setdefault(number, Candidate(number, line, []))

    for match in _TOKEN.finditer(text):
        if match[0].lower() != "aws" or _QUOTED_40.search(line_at(match.start())[1]):
            at(match.start())
    for position, value in assignments(text, _high_entropy):
        at(position).values.append(value)
    return [candidate for number, candidate in sorted(found.items()) if ALLOW not in candidate.text]


def assignments(text: str, keep: Callable[[str], bool] = lambda value: True) -> Iterator[tuple[int, str]]:
    """(position, value) of each `key=value`, and of `key: value` where the key names a secret."""
    for match in _ASSIGNED.finditer(text):
        value = match[1]
        if not keep(value):  # the cheap test first: most values are ordinary words
            continue
        key = _KEY.search(text, max(0, match.start() - 100), match.start())
        # `key: value` is everyday Markdown; only a key that names a secret makes it an assignment.
        if key and (text[match.start()] == "=" or _SECRET_KEY.search(key[1])):
            yield match.start(), value


def detect(path: str, lines: Iterable[Candidate]) -> Iterator[tuple[int, str]]:
    """(line, kind of secret) for each candidate line detect-secrets flags."""
    from detect_secrets.filters import heuristic
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString, HexHighEntropyString
    from detect_secrets.plugins.private_key import PrivateKeyDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.settings import get_settings

    # Verification would send the secret to its service: never.
    get_settings().disable_filters("detect_secrets.filters.common.is_ignored_due_to_verification_policies")
    tokens = [AWSKeyDetector(), GitHubTokenDetector(), GitLabTokenDetector(), SlackDetector(), PrivateKeyDetector()]
    entropy = [Base64HighEntropyString(limit=BASE64_LIMIT), HexHighEntropyString(limit=HEX_LIMIT)]
    for candidate in lines:
        scans: list[tuple[Any, str]] = [(plugin, candidate.text) for plugin in tokens]
        scans += [(plugin, f'"{value}"') for value in candidate.values for plugin in entropy]
        kinds = set()
        for plugin, line in scans:
            for secret in plugin.analyze_line(filename=path, line=line, line_number=candidate.line):
                value = secret.secret_value or ""
                if not (
                    heuristic.is_sequential_string(value) or heuristic.is_potential_uuid(value)
                    or heuristic.is_templated_secret(value) or heuristic.is_not_alphanumeric_string(value)
                    or heuristic.is_likely_id_string(value, candidate.text, plugin)
                ):
                    kinds.add(secret.type)
        if kinds:
            yield candidate.line, ", ".join(sorted(kinds))


def validate(snap: Snapshot) -> Iterator[Finding]:
    for path in snap.targets:
        text = snap.new.get(path)
        lines = candidates(text) if text else []
        if not lines:
            continue
        for line, kinds in detect(path, lines):
            yield Finding(
                path, line, ID,
                f"looks like a credential ({kinds}); remove it from memory and note where the secret lives "
                f"instead, or end the line with '{ALLOW}' if it is not one",
            )
