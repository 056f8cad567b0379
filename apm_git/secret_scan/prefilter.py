"""Which lines of a text might hold a credential: a cheap test that keeps detect-secrets away.

Importing detect-secrets costs more than a whole commit's checks (about 80 ms, most of it
`requests`), so the scanner runs only on the lines this module picks.  It knows no
detector's prefix: it looks for the *shapes* every detector needs, so a detector that
detect-secrets adds later is covered without a change here:

- a token: a run of 16 or more characters of `[A-Za-z0-9_+/-]` that is not plainly a word,
  a path, a number, or one hash (all hex digits of one case, as a commit sha or a uuid);
- an assignment to a key that names a secret (`KEY_WORDS` below) whose value could be a secret:
  `assigned_values` and `token_shaped` are the keyword plugin's own reading of the line, so the
  two cannot disagree (the plugin then also asks detect-secrets' entropy measure);
- credentials in a URL (`scheme://user:password@host`);
- the first line of a private key block.

tests/secret_scan/ hold the corpus that proves the superset promise on every kind the scanner knows.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
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
    if part.isalpha() and part.islower():
        return len(part) <= 20  # 24 lowercase letters can be a Cloudant key
    if part.isdigit() or (part.islower() and len(part) <= 8):
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


# The password-like words: any value counts, not only a random-looking one.
_PASSWORD = re.compile(
    r"pass(?:word|wd|phrase|code)?(?![a-z])|(?<![a-z])pwd|(?<![a-z])pw(?![a-z])"
    r"|contrase[ñn]a|passwort|senha|пароль|密码|密碼|口令|パスワード|비밀번호",
)
_ASSIGNMENT = re.compile(
    rf"(?P<key>[\w.-]*(?:{KEY_WORDS})[\w.-]*)(?P<sep>{SEPARATOR})[ \t]*"
    r"""(?P<value>"[^"\n]*"|'[^'\n]*'|`[^`\n]*`|[^\s"'`,;]+)(?P<rest>.*)""",
    re.IGNORECASE,
)
_NOT_A_KEY = re.compile(r".*(?:monkey|keyboard|hotkey|keyword|author|tokeni[sz]|passenger|passport|bypass|compass).*")
_PUNCTUATION = re.compile(r"[^A-Za-z0-9]+")
_INNER_ASSIGNMENT = re.compile(r"([A-Za-z_][\w.-]*)=(?!=|$)")
_WORDS = re.compile(r"[A-Z]?[a-z]+(?:[-_ .][A-Za-z][a-z]*)*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*|[A-Za-z]+(?:[A-Z][a-z]+)+")


def wordy(value: str) -> bool:
    """Words, an identifier or an env var name (`OPENAI_API_KEY`), not a token."""
    return bool(_WORDS.fullmatch(value))


def token_shaped(value: str) -> bool:
    """A value shaped like a generated token (its entropy aside): not words, not an id.

    It is 12 characters or more; it holds no `:` (`agent:main:main`, times, URLs); it is not
    itself an assignment (`API_TOKEN=<redacted>` is judged on its own); and some part of it
    between punctuation is not a word, a number or a short lowercase code
    (`secrets/github_ed25519` is all such parts).
    """
    if len(value) < 12 or ":" in value or wordy(value):
        return False
    inner = _INNER_ASSIGNMENT.match(value)
    if inner and all(plain_part(part) for part in _PUNCTUATION.split(inner[1]) if part):
        return False
    return not all(plain_part(part) for part in _PUNCTUATION.split(value) if part)


def assigned_values(line: str) -> Iterator[tuple[str, bool]]:
    """(value, counts as it is) for each value given to a key that names a secret on the line.

    A value counts as it is under a password-like key, when assigned (`=`, or quoted) or, in
    prose (`Password: …`, `the password is …`), when it is the last word and not plain lowercase.
    Any other value is a secret only if it looks generated (`token_shaped`, and the plugin's
    entropy test).  A value shown truncated (`sk-or-v1-76fd…`) is not the secret and is skipped.
    """
    position = 0
    while match := _ASSIGNMENT.search(line, position):
        position = match.start("value")
        key, sep, value, rest = match["key"], match["sep"], match["value"], match["rest"]
        quoted = value[:1] in "\"'`"
        value = value[1:-1].strip() if quoted else value.rstrip(".,:)]>!?*")
        truncated = match["value"].strip("`'\"").endswith(("...", "…"))
        if not value or " " in value or truncated or _NOT_A_KEY.fullmatch(key.lower()):
            continue
        password = bool(_PASSWORD.search(key.lower()))
        last_word = not rest.strip(" \t.,;)*_`'\"")
        counts = password and (quoted or "=" in sep or (last_word and not (value.isalpha() and value.islower())))
        yield value, counts


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
    keyed = _numbers(lowered, [match.start() for match in _KEY.finditer(lowered)
                               if _AFTER_KEY.match(lowered, match.end())])
    if not numbers and not keyed:
        return []
    lines = text.split("\n")
    for number in keyed - numbers:  # few lines: read their assignments as the keyword plugin will
        if any(counts or token_shaped(value) for value, counts in assigned_values(lines[number - 1])):
            numbers.add(number)
    found = [Line(number, lines[number - 1].rstrip("\r")) for number in sorted(numbers)]
    return [line for line in found if ALLOW not in line.text]
