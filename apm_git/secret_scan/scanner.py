"""detect-secrets' plugins and apm-git's own, run on candidate lines and filtered by detect-secrets' filters."""
from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.core.potential_secret import PotentialSecret
from detect_secrets.filters import heuristic
from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector
from detect_secrets.settings import get_settings

from apm_git.secret_scan import Suspect
from apm_git.secret_scan.plugins import PLACEHOLDER, PLUGINS
from apm_git.secret_scan.prefilter import METER, Line

# detect-secrets' plugins that apm-git leaves out, and why.  Every other plugin it has runs,
# including any that a newer detect-secrets adds.
LEFT_OUT = {
    "IPPublicDetector": "an IP address is not a credential",
    "KeywordDetector": "replaced by AssignedSecretDetector, which reads Markdown and prose",
    "Base64HighEntropyString": "alone, a random-looking string in memory is a hash or an id far more often than a "
                               "secret; its entropy measure judges the values of secret-naming keys instead",
    "HexHighEntropyString": "as Base64HighEntropyString",
}
# Kinds that name where a value sits rather than what it is: a more specific kind found for the
# same value on the same line replaces them.
GENERIC = frozenset({"Secret Keyword", "Bearer Token", "Basic Auth Credentials", "URL Password"})
_VERIFY = "detect_secrets.filters.common.is_ignored_due_to_verification_policies"


@functools.cache
def plugins() -> tuple[BasePlugin, ...]:
    # Verification would send the secret to its service: never.
    get_settings().disable_filters(_VERIFY)
    builtin: Iterable[type[BasePlugin]] = get_mapping_from_secret_type_to_class().values()
    return (*(cls() for cls in builtin if cls.__name__ not in LEFT_OUT), *(cls() for cls in PLUGINS))


def filtered(secret: str) -> bool:
    """detect-secrets' filters of a secret's value, and apm-git's: placeholders (`REDACTED`, `ghp_xxxx…`)."""
    return (
        heuristic.is_sequential_string(secret) or heuristic.is_potential_uuid(secret)
        or heuristic.is_templated_secret(secret) or heuristic.is_prefixed_with_dollar_sign(secret)
        or heuristic.is_not_alphanumeric_string(secret)
        or (len(secret) >= 12 and len(set(secret)) < 6) or bool(PLACEHOLDER.fullmatch(secret))
    )


def _whole(plugin: BasePlugin, line: str, values: list[str]) -> list[str]:
    """The whole tokens where a plugin's regex captures only their prefix.

    detect-secrets 1.5 reports `ghp` for every GitHub token and `glpat` for every GitLab one
    (Yelp/detect-secrets#858: a capture group around the prefix), so all would share one
    fingerprint; the whole match tells them apart.  The plugin's matches are listed once per
    line, however many values it found there.
    """
    if all(len(value) >= 8 for value in values) or not isinstance(plugin, RegexBasedDetector):
        return values
    patterns = list(plugin.denylist)
    METER.bounded(len(line), len(patterns))
    matches = [str(match[0]) for regex in patterns for match in regex.finditer(line)]
    whole = []
    for value in values:
        if len(value) < 8:
            value = next((match for match in matches if match != value and match.startswith(value)), value)
        whole.append(value)
    return whole


def detect(path: str, lines: Iterable[Line]) -> list[Suspect]:
    """The suspected secrets of the lines, one per value and line; a specific kind wins over a generic one.

    A long line comes as several pieces with one number (prefilter.PIECE): one line, read piece by piece."""
    found: list[Suspect] = []
    for number, pieces in itertools.groupby(lines, key=lambda line: line[0]):
        kinds: dict[str, str] = {}  # value -> kind
        for _, text in pieces:
            METER.bounded(len(text), len(plugins()))
            for plugin in plugins():
                secrets = list(plugin.analyze_line(filename=path, line=text, line_number=number))
                values = _whole(plugin, text, [secret.secret_value or "" for secret in secrets])
                for secret, value in zip(secrets, values, strict=True):
                    if not value or filtered(value):
                        continue
                    if value not in kinds or (kinds[value] in GENERIC and secret.type not in GENERIC):
                        kinds[value] = secret.type
        specific = [value for value, kind in kinds.items() if kind not in GENERIC]
        for value, kind in kinds.items():
            if kind not in GENERIC or not any(value in other or other in value for other in specific):
                found.append(Suspect(number, kind, PotentialSecret.hash_secret(value)))
    return found
