"""apm-git's own detect-secrets plugins: the credentials detect-secrets 1.5 does not know.

Each is an ordinary detect-secrets plugin (`RegexBasedDetector` or `BasePlugin`), run beside
detect-secrets' own and filtered by the same filters.  `AssignedSecretDetector` replaces
detect-secrets' `KeywordDetector` for Markdown: that one reads only quoted values in a `.md`
file (so `password=hunter2` passes) and, told the file is YAML, takes whole sentences as values.
"""
from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Generator

from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString, HexHighEntropyString

from apm_git.secret_scan.prefilter import assigned_values, token_shaped, wordy

# Token formats with a fixed prefix, by kind.  Lookarounds keep a match from starting or
# ending inside a longer word.
_B, _E = r"(?<![\w-])", r"(?![\w-])"
TOKENS: dict[str, str] = {
    "Anthropic API Key": r"sk-ant-(?:api|admin|oat)\d\d-[A-Za-z0-9_-]{80,}",
    "OpenAI Project Key": r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}",
    "OpenRouter API Key": r"sk-or-v1-[0-9a-f]{64}",
    "API Key (sk-)": _B + r"sk-[A-Za-z0-9]{32,}" + _E,  # DeepSeek, Moonshot, OpenAI's older keys
    "GitHub Fine-grained Token": r"github_pat_[A-Za-z0-9_]{80,}",
    "Google API Key": _B + r"AIza[0-9A-Za-z_-]{35}" + _E,
    "Google OAuth Client Secret": r"GOCSPX-[A-Za-z0-9_-]{28}",
    "Google OAuth Access Token": r"ya29\.[0-9A-Za-z_-]{30,}",
    "Hugging Face Token": _B + r"hf_[A-Za-z]{34,}" + _E,
    "NPM Token": _B + r"npm_[A-Za-z0-9]{36}" + _E,
    "Slack App Token": r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{32,}",
    "Stripe Key": _B + r"(?:(?:sk|rk)_test_[0-9a-zA-Z]{24,}|whsec_[A-Za-z0-9]{32,})" + _E,
    "Discord Webhook": r"discord(?:app)?\.com/api/webhooks/\d+/[\w-]{60,}",
    "Azure AD Client Secret": r"(?<![\w~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![\w~.-])",
    "Mailgun API Key": _B + r"key-[0-9a-f]{32}" + _E,
    "DigitalOcean Token": r"do[opr]_v1_[a-f0-9]{64}",
    "Shopify Token": r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
    "Linear API Key": r"lin_api_[A-Za-z0-9]{40}",
    "Groq API Key": r"gsk_[A-Za-z0-9]{48,}",
    "Replicate API Token": _B + r"r8_[A-Za-z0-9]{37}" + _E,
    "Perplexity API Key": r"pplx-[A-Za-z0-9]{48}",
    "xAI API Key": r"xai-[A-Za-z0-9]{70,}",
    "HashiCorp Vault Token": _B + r"hv[sb]\.[A-Za-z0-9_-]{24,}",
    "Age Secret Key": r"AGE-SECRET-KEY-1[0-9A-Z]{58}",
    "Postman API Key": r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
    "Supabase Token": r"sbp_[a-f0-9]{40}",
    "Notion Token": _B + r"ntn_[A-Za-z0-9]{40,}" + _E,
    "Private Key": r"BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY",  # also ENCRYPTED, which detect-secrets misses
}


def _token_plugin(kind: str, pattern: str) -> type[RegexBasedDetector]:
    name = re.sub(r"\W", "", kind.title()) + "Detector"
    return type(name, (RegexBasedDetector,), {"secret_type": kind, "denylist": (re.compile(pattern),)})


class BearerTokenDetector(BasePlugin):
    """`Authorization: Bearer <token>`, in a header, a curl line or prose."""

    secret_type = "Bearer Token"
    _bearer = re.compile(r"(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)")

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        for token in self._bearer.findall(string):
            if not wordy(token):
                yield token


class BasicAuthHeaderDetector(BasePlugin):
    """`Authorization: Basic <base64 of user:password>`."""

    secret_type = "Basic Auth Header"
    _basic = re.compile(r"(?i:basic)[ \t]+([A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])")

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        for value in self._basic.findall(string):
            try:
                decoded = base64.b64decode(value, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                continue
            _user, colon, password = decoded.partition(":")
            if colon and password and decoded.isprintable():
                yield value


# Values that stand for a secret without being one.  Applied to every plugin's finding (scanner.py).
PLACEHOLDER = re.compile(
    r"(?i)(?:none|null|nil|true|false|yes|no|n/?a|tbd|todo|unset|empty|required|optional|hidden|redacted"
    r"|secret|password|pass|pwd|token|changeme|example|placeholder|dummy|sample|test|xxx+|\*+|\.+|…|-+)"
    r"|.*(?:redacted|your[-_ ]|placeholder|example)"  # REDACTED_API_KEY, your-api-key-here, AKIA…EXAMPLE
    r"|(?:pk_live_|pk_test_|ssh-(?:rsa|ed25519|dss) |ecdsa-sha2-|npub1|0x[0-9a-fA-F]{40}$).*"  # public by design
    r"|[<{$%\[(].*|.*[(\[].*|(?:env|vault|op|file|secret|secrets|ref|process\.env|os\.environ)[:.(\[].*",  # references
)
_BASE64 = Base64HighEntropyString(limit=3.0)
_HEX = HexHighEntropyString(limit=2.5)


def high_entropy(value: str) -> bool:
    """detect-secrets' entropy measure (hex or base64), at lower limits than a string standing alone needs."""
    if all(char in "0123456789abcdefABCDEF" for char in value):
        return bool(_HEX.calculate_shannon_entropy(value) > _HEX.entropy_limit)
    return bool(_BASE64.calculate_shannon_entropy(value) > _BASE64.entropy_limit)


class UrlPasswordDetector(BasePlugin):
    """`scheme://user:password@host` as people write it: detect-secrets' BasicAuthDetector wants
    the RFC's percent-encoding, so `p@ss#word!` or an empty user (`redis://:pw@host`) escape it."""

    secret_type = "URL Password"
    _url = re.compile(r"://[^\s:/@]*:([^\s/@]+)@")

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        yield from self._url.findall(string)


class AssignedSecretDetector(BasePlugin):
    """A value given to a key that names a secret: `DB_PASSWORD=…`, `api_key: …`, `"token": "…"`.

    Under a password-like key any value counts (`password=hunter2`; placeholders and references
    are filtered for every plugin in scanner.py); in prose (`Password: …`, `the password is …`)
    only a last word that is not plain lowercase.  Under any other key (`token`, `api_key`,
    `secret`, `auth`…) the value must look generated: detect-secrets' entropy measures, with lower
    limits than for a string that stands alone, since the key already says what it is.
    """

    secret_type = "Secret Keyword"

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        for value, counts in assigned_values(string):
            if counts or (token_shaped(value) and high_entropy(value)):
                yield value


PLUGINS: tuple[type[BasePlugin], ...] = (
    *(_token_plugin(kind, pattern) for kind, pattern in TOKENS.items()),
    BearerTokenDetector,
    BasicAuthHeaderDetector,
    UrlPasswordDetector,
    AssignedSecretDetector,
)
