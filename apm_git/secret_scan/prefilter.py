"""Which lines of a text might hold a credential: a cheap test that keeps detect-secrets away.

Importing detect-secrets costs more than a whole commit's checks (about 80 ms, most of it
`requests`), so the scanner runs only on the lines this module picks.  It knows no
detector's prefix: it looks for the *shapes* every detector needs, so a detector that
detect-secrets adds later is covered without a change here:

- a token: a run of 16 or more characters of `[A-Za-z0-9_+/-]` that is not plainly a word,
  a path, a number, or one hash (all hex digits of one case, as a commit sha or a uuid);
- an assignment to a key that names a secret (`KEY_WORDS` below, shared with the scanner's
  keyword plugin, so the two cannot disagree);
- credentials in a URL (`scheme://user:password@host`);
- the first line of a private key block.

tests/secrets/ hold the corpus that proves the superset promise on every kind the scanner knows.
"""
from __future__ import annotations

import re
from typing import NamedTuple

ALLOW = "pragma: allowlist secret"

# Words that make an identifier name a secret.  The scanner's keyword plugin reads the same
# pattern; the password-like ones (any value counts) are told apart there.
KEY_WORDS = (
    r"pass(?:word|wd|phrase|code)?|pwd|pw|secret|token|key|auth|cred(?:ential)?s?|bearer|dsn|"
    r"contrase[ñn]a|passwort|senha|пароль|密码|密碼|口令|密钥|密鑰|令牌|パスワード|비밀번호"
)
# `key = value`, `key: value`, `"key": "value"`, `key := value`, `key => value`, `key is value`.
SEPARATOR = r"""[\]"'`*]{0,3}[ \t]*(?::=|=>|[=:]|[ \t](?:is|was)[ \t])"""

_TOKEN = re.compile(r"[A-Za-z0-9_+/-]{16,}")  # `=` ends a run: `commit=<sha>` is a key and a sha
# Searched in the lowercased text: a case-insensitive alternation is several times slower.
_KEY = re.compile(KEY_WORDS)
_AFTER_KEY = re.compile(rf"[\w.-]*{SEPARATOR}")
_SIGNS = re.compile(r"://[^\s/@]*@|BEGIN[A-Z ]* PRIVATE KEY|PuTTY-User-Key-File")
_PARTS = re.compile(r"[-_+/=.~]+")
_CAPITALS = re.compile(r"[A-Z]+[0-9]{0,4}")  # `DEEPSEEK`, `TRACK17`, `HTTP2`
_ONE_CASE_HEX = re.compile(r"[0-9a-f_-]+|[0-9A-F_-]+")
# camelCase and PascalCase words, with an optional version number: `getLanNetworkListV2`, `XMLHttpRequest`
_WORDY = re.compile(r"[A-Z]*[a-z]+(?:[A-Z]{1,4}[a-z]{2,})*[A-Z]{0,4}[0-9]{0,4}")


class Line(NamedTuple):
    number: int  # 1-based
    text: str


def plain_part(part: str) -> bool:
    """A word (`lowercase`, `camelCase`, `CAPITALS`), a number, or a short lowercase code (`ed25519`)."""
    if part.isdigit() or (part.islower() and (part.isalpha() or len(part) <= 8)):
        return True
    if _CAPITALS.fullmatch(part):
        return len(part) <= 16  # AWS key ids are 20 capitals and digits, and may hold no digit
    return bool(_WORDY.fullmatch(part))


def plain_parts(run: str) -> bool:
    """True when every part of a run (split at `-_+/=.~`) is a word, a number or a short lowercase code."""
    return all(plain_part(part) for part in _PARTS.split(run) if part)


def plain(run: str) -> bool:
    """True for a run that is plainly not a secret: words, a path, a number, a sha or a uuid."""
    return bool(_ONE_CASE_HEX.fullmatch(run)) or plain_parts(run)


def _numbers(text: str, positions: list[int]) -> set[int]:
    """1-based line numbers of the positions."""
    numbers, number, counted = set(), 1, 0
    for position in sorted(positions):
        number += text.count("\n", counted, position)
        counted = position
        numbers.add(number)
    return numbers


def candidates(text: str) -> list[Line]:
    """The lines that might hold a credential (never fewer than the scanner flags), in order."""
    positions = [match.start() for match in _TOKEN.finditer(text) if not plain(match[0])]
    positions += [match.start() for match in _SIGNS.finditer(text)]
    numbers = _numbers(text, positions)
    lowered = text.lower()  # may differ in length from text (a few letters lowercase to two), not in lines
    numbers |= _numbers(lowered, [match.start() for match in _KEY.finditer(lowered)
                                  if _AFTER_KEY.match(lowered, match.end())])
    if not numbers:
        return []
    lines = text.split("\n")
    found = [Line(number, lines[number - 1].rstrip("\r")) for number in sorted(numbers)]
    return [line for line in found if ALLOW not in line.text]
