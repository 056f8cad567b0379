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

Every scan is linear in its text (docs/secrets.md, "Linear in the text"): the whole text is
read only by single passes of one character class; every other regular expression reads at most
a bounded stretch (`KEY_REACH`, `MAX_TOKEN`, `PIECE`).  A token run longer than `MAX_TOKEN`
is judged here by one linear rule (`suspicious_run`) and never reaches a plugin; a candidate
line longer than `PIECE` reaches the plugins in overlapping pieces.  `METER` counts what the
regular expressions were given, so a test can prove the shape without timing anything.

tests/secret_scan/ hold the corpus that proves the superset promise on every kind the scanner knows.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any, NamedTuple, cast

ALLOW = "pragma: allowlist secret"
ALLOW_COMMENT = f"<!-- {ALLOW} -->"  # what `--allow-secret` ends a line with: invisible in rendered Markdown

MAX_TOKEN = 1024  # a longer run of token characters is an over-long run (`suspicious_run`), never a plugin's input
PIECE = 4096  # the most text a plugin reads at once: a longer candidate line is read in pieces
OVERLAP = 1536  # consecutive pieces share this much, so any stretch this long is whole in some piece
MERGE_GAP = 384  # candidates in a long line closer than this are read in one piece
CONTEXT = 64  # what a plugin may need around a candidate in a long line: the key before a token, `Bearer `
KEY_REACH = 64  # an identifier may run on this far around its secret word and still be a key
LONG_RUN_KIND = "Over-long Token"
SAMPLE = 4096  # the characters of an over-long run whose entropy is measured
LONG_RUN_ENTROPY = 4.5  # bits a character: random base64 has about 6, hex at most 4, a word run about 4

class _Lazy:
    """A regular expression compiled on its first use, once per process: importing this module (every flush,
    every commit's checks) compiles none of the twenty, and a text with no candidate needs few of them.
    The pattern's method is kept on the object once asked for, so a later call costs what `re`'s does."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags
        self.compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:  # search, match, finditer, …: only the first time each
        if name.startswith("__") or name in ("pattern", "flags", "compiled"):
            raise AttributeError(name)
        if self.compiled is None:
            self.compiled = re.compile(self.pattern, self.flags)
        method = getattr(self.compiled, name)
        setattr(self, name, method)
        return method


def _lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A `_Lazy`, typed as the pattern it stands for (it answers the pattern's methods), so the type checker
    reads every call site as a call on a compiled pattern."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))


# Words that make an identifier name a secret.  The scanner's keyword plugin reads the same
# pattern; the password-like ones (any value counts) are told apart there.
KEY_WORDS = (
    r"pass(?:word|wd|phrase|code)?|pwd|pw|secret|token|key|auth|cred(?:ential)?s?|bearer|dsn|"
    r"contrase[ñn]a|passwort|senha|пароль|密码|密碼|口令|密钥|密鑰|令牌|パスワード|비밀번호"
)
# `key = value`, `key: value`, `"key": "value"`, `key := value`, `key => value`, `key is value`.
SEPARATOR = r"""[\]"'`*]{0,3}[ \t]{0,16}(?::=|=>|[=:]|[ \t](?:is|was)[ \t])"""

_TOKEN_CHARS = r"[A-Za-z0-9_+/-]"
_TOKEN = _lazy(_TOKEN_CHARS + "{16,}")  # `=` ends a run: `commit=<sha>` is a key and a sha
# Searched in the lowercased text: a case-insensitive alternation is several times slower.
_KEY = _lazy(KEY_WORDS)
_KEY_ANY_CASE = _lazy(KEY_WORDS, re.IGNORECASE)
_AFTER_KEY = _lazy(rf"[\w.-]{{0,{KEY_REACH}}}{SEPARATOR}")
_IDENTIFIER = _lazy(rf"[\w.-]{{0,{KEY_REACH + 1}}}")  # one more than KEY_REACH: tells an over-long one
_IDENTIFIER_REST = _lazy(r"[\w.-]*")  # the rest of an over-long identifier, passed over once
_SIGNS = _lazy(r"://[^\s/@]*@|BEGIN[A-Z ]{0,40} PRIVATE KEY|PuTTY-User-Key-File")
_PARTS = _lazy(r"[-_+/=.~]+")
_CAPITALS = _lazy(r"[A-Z]+[0-9]{0,4}")  # `DEEPSEEK`, `TRACK17`, `HTTP2`
_ONE_CASE_HEX = _lazy(r"[0-9a-f_-]+|[0-9A-F_-]+")
# camelCase and PascalCase words, with an optional version number: `getLanNetworkListV2`, `XMLHttpRequest`
_WORDY = _lazy(r"[A-Z]*[a-z]+(?:[A-Z]{1,4}[a-z]{2,})*[A-Z]{0,4}[0-9]{0,4}")
# What stands before an over-long run that is public by design: an ssh public key, a data: URI.
_PUBLIC_BEFORE = _lazy(
    r"(?:(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d{3}|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)[ \t]"
    r"|data:[\w.+/-]{0,60};base64,)\Z",
)


class Meter:
    """What the scanner's regular expressions were given, in characters: `read` in all, `widest` in one
    call that is not a single pass of one character class (a plugin, an assignment, a run's parts)."""

    __slots__ = ("calls", "read", "widest")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.read = self.calls = self.widest = 0

    def single_pass(self, size: int) -> None:
        self.read += size
        self.calls += 1

    def bounded(self, size: int, calls: int = 1) -> None:
        self.read += size * calls
        self.calls += calls
        self.widest = max(self.widest, size)


METER = Meter()


class Line(NamedTuple):
    number: int  # 1-based
    text: str  # the line, or a piece of it (`PIECE`), or an over-long run of it


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
    METER.bounded(len(run), 3)
    return bool(_ONE_CASE_HEX.fullmatch(run)) or plain_parts(run)


def entropy(run: str) -> float:
    """Shannon entropy of the run's characters, in bits a character (detect-secrets' measure)."""
    size = len(run)
    return -sum(count / size * math.log2(count / size) for count in (run.count(char) for char in set(run)))


def suspicious_run(line: str, start: int, end: int) -> bool:
    """Whether an over-long token run (`line[start:end]`, longer than MAX_TOKEN) counts as a suspect.

    No detector reads it: a key, an encoded key file (`client-key-data: LS0tLS1CRUdJTi…`) and an
    encoded picture look alike.  It is a suspect when the characters of its first SAMPLE are as
    varied as an encoded key's (entropy above LONG_RUN_ENTROPY), unless an ssh public key or a
    `data:` URI introduces it.  A repeated character, words joined by `-` or `_`, or a hex dump is not.
    """
    METER.bounded(80)
    if _PUBLIC_BEFORE.search(line, max(0, start - 80), start) is not None:
        return False
    METER.single_pass(min(end - start, SAMPLE))
    return entropy(line[start:min(end, start + SAMPLE)]) > LONG_RUN_ENTROPY


# The password-like words: any value counts, not only a random-looking one.
_PASSWORD = _lazy(
    r"pass(?:word|wd|phrase|code)?(?![a-z])|(?<![a-z])pwd|(?<![a-z])pw(?![a-z])"
    r"|contrase[ñn]a|passwort|senha|пароль|密码|密碼|口令|パスワード|비밀번호",
)
_VALUE = _lazy(
    rf"(?P<sep>{SEPARATOR})[ \t]{{0,16}}"
    rf"""(?P<value>"[^"\n]{{0,{MAX_TOKEN}}}"|'[^'\n]{{0,{MAX_TOKEN}}}'|`[^`\n]{{0,{MAX_TOKEN}}}`"""
    rf"""|[^\s"'`,;]{{1,{MAX_TOKEN}}}(?![^\s"'`,;]))""",
    re.IGNORECASE,
)
_VALUE_REACH = 3 + 16 + 4 + 16 + MAX_TOKEN + 2  # the most `_VALUE` reads
_TRAILING = _lazy(r"""[ \t.,;)*_`'"]*""")  # what may follow a prose value that is the line's last word
_NOT_A_KEY = _lazy(r".*(?:monkey|keyboard|hotkey|keyword|author|tokeni[sz]|passenger|passport|bypass|compass).*")
_PUNCTUATION = _lazy(r"[^A-Za-z0-9]+")
_INNER_ASSIGNMENT = _lazy(r"([A-Za-z_][\w.-]*)=(?!=|$)")
# Words, an identifier, an env var name.  `[A-Za-z]+(?:[A-Z][a-z]+)+` (camelCase) is `_camel`, in linear form.
_WORDS = _lazy(r"[A-Z]?[a-z]+(?:[-_ .][A-Za-z][a-z]*)*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
_CAMEL_END = _lazy(r"[A-Z][a-z]+\Z")


def wordy(value: str) -> bool:
    """Words, an identifier or an env var name (`OPENAI_API_KEY`), not a token."""
    METER.bounded(len(value), 2)
    return bool(_WORDS.fullmatch(value)) or _camel(value)


def _camel(value: str) -> bool:
    """Letters only, ending in a capitalised word after at least one letter: `fooBar`, `HTTPServer`."""
    return value.isascii() and value.isalpha() and _CAMEL_END.search(value, 1) is not None


def token_shaped(value: str) -> bool:
    """A value shaped like a generated token (its entropy aside): not words, not an id.

    It is 12 characters or more; it holds no `:` (`agent:main:main`, times, URLs); it is not
    itself an assignment (`API_TOKEN=<redacted>` is judged on its own); and some part of it
    between punctuation is not a word, a number or a short lowercase code
    (`secrets/github_ed25519` is all such parts).
    """
    if len(value) < 12 or ":" in value or wordy(value):
        return False
    METER.bounded(len(value), 2)
    inner = _INNER_ASSIGNMENT.match(value)
    if inner and all(plain_part(part) for part in _PUNCTUATION.split(inner[1]) if part):
        return False
    return not all(plain_part(part) for part in _PUNCTUATION.split(value) if part)


def _keys(line: str, lowered: str, low: int = 0, high: int | None = None) -> Iterator[tuple[int, int]]:
    """(start, end) of each identifier in `line[low:high]` that holds a secret word: the whole run of
    `[\\w.-]` around the word, at most KEY_REACH characters on either side of it (a longer one names no key).
    `lowered` is `line.lower()`, searched when it lines up with the line (a case-insensitive alternation is slow)."""
    high = len(line) if high is None else high
    METER.single_pass(high - low)
    words = (_KEY.finditer(lowered, low, high) if len(lowered) == len(line)
             else _KEY_ANY_CASE.finditer(line, low, high))
    passed = 0  # the end of the last identifier looked at: a second secret word in it is the same key
    for word in words:
        if word.start() < passed:
            continue
        METER.bounded(2 * KEY_REACH + 2, 2)
        before = _IDENTIFIER.match(line[max(0, word.start() - KEY_REACH - 1):word.start()][::-1])
        after = _IDENTIFIER.match(line, word.end())
        assert before is not None and after is not None  # both may match nothing
        passed = after.end()
        if after.end() - word.end() > KEY_REACH:  # an over-long identifier: pass over the rest of it once
            rest = _IDENTIFIER_REST.match(line, passed)
            assert rest is not None
            METER.single_pass(rest.end() - passed)
            passed = rest.end()
            continue
        if before.end() <= KEY_REACH:
            yield word.start() - before.end(), passed


def assigned_values(line: str) -> Iterator[tuple[str, bool]]:
    """(value, counts as it is) for each value given to a key that names a secret on the line.

    A value counts as it is under a password-like key, when assigned (`=`, or quoted) or, in
    prose (`Password: …`, `the password is …`), when it is the last word and not plain lowercase.
    Any other value is a secret only if it looks generated (`token_shaped`, and the plugin's
    entropy test).  A value shown truncated (`sk-or-v1-76fd…`) is not the secret and is skipped.
    A value longer than MAX_TOKEN is not read as one (an over-long token run is judged on its own).
    """
    METER.single_pass(len(line))
    for start, end in _keys(line, line.lower()):
        METER.bounded(_VALUE_REACH)
        match = _VALUE.match(line, end)
        if match is None:
            continue
        key, sep, raw = line[start:end], match["sep"], match["value"]
        quoted = raw[:1] in "\"'`"
        value = raw[1:-1].strip() if quoted else raw.rstrip(".,:)]>!?*")
        truncated = raw.strip("`'\"").endswith(("...", "…"))
        if not value or " " in value or truncated or _NOT_A_KEY.fullmatch(key.lower()):
            continue
        password = bool(_PASSWORD.search(key.lower()))
        trailing = _TRAILING.match(line, match.end())
        assert trailing is not None
        METER.single_pass(trailing.end() - match.end())
        last_word = trailing.end() == len(line)
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


class Candidates(NamedTuple):
    pieces: list[Line]  # what the plugins read: candidate lines, in pieces of at most PIECE characters
    runs: list[Line]  # over-long token runs that `suspicious_run` holds to be suspects


def find(text: str) -> Candidates:
    """The candidate lines of `text` (never fewer than the scanner flags) and its suspicious over-long runs."""
    spans, long_spans = _token_spans(text)
    numbers = _numbers(text, [start for start, _ in spans])
    lowered = text.lower()  # may differ in length from text (a few letters lowercase to two), not in lines
    METER.single_pass(len(lowered))
    keyed_at = []
    for match in _KEY.finditer(lowered):
        METER.bounded(KEY_REACH + 24)
        if _AFTER_KEY.match(lowered, match.end()):
            keyed_at.append(match.start())
    keyed = _numbers(lowered, keyed_at)
    long_numbers = _numbers(text, [start for start, _ in long_spans])
    if not numbers and not keyed and not long_numbers:
        return Candidates([], [])
    lines = text.split("\n")
    for number in keyed - numbers:  # few lines: read their assignments as the keyword plugin will
        if any(counts or token_shaped(value) for value, counts in assigned_values(lines[number - 1])):
            numbers.add(number)
    pieces: list[Line] = []
    runs: list[Line] = []
    for number in sorted(numbers | long_numbers):
        line = lines[number - 1].rstrip("\r")
        METER.single_pass(len(line))
        if ALLOW in line:
            continue
        if len(line) <= PIECE and number not in long_numbers:
            pieces.append(Line(number, line))
            continue
        spans, long_spans = _spans(line)
        runs += [Line(number, line[start:end]) for start, end in long_spans if suspicious_run(line, start, end)]
        pieces += [Line(number, line[start:end]) for start, end in _pieces(line, spans, long_spans)]
    return Candidates(pieces, runs)


def candidates(text: str) -> list[Line]:
    """The lines that might hold a credential, in order: pieces of them, and over-long runs held suspect."""
    found = find(text)
    return sorted([*found.pieces, *found.runs])


def _token_spans(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(start, end) of the tokens that are not plainly words and of the signs (URL credentials, a private
    key's first line), and of the over-long token runs: two single passes over the text."""
    METER.single_pass(len(text))
    spans, long_spans = [], []
    for match in _TOKEN.finditer(text):
        if match.end() - match.start() > MAX_TOKEN:
            long_spans.append(match.span())
        elif not plain(match[0]):
            spans.append(match.span())
    METER.single_pass(len(text))
    spans += [match.span() for match in _SIGNS.finditer(text)]
    return spans, long_spans


def _spans(line: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Of one long line: the (start, end) of what might hold a credential (tokens, signs, keys with the
    value given to them), and of its over-long token runs."""
    spans, long_spans = _token_spans(line)
    METER.single_pass(len(line))
    lowered = line.lower()
    for low, high in _stretches(line, long_spans):  # no key is inside an over-long run
        for start, end in _keys(line, lowered, low, high):
            METER.bounded(_VALUE_REACH)
            value = _VALUE.match(line, end, high)
            if value is not None:
                spans.append((start, value.end()))
    return sorted(spans), long_spans


def _stretches(line: str, long_spans: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The stretches of the line between its over-long runs."""
    edges = [0, *(edge for span in long_spans for edge in span), len(line)]
    yield from zip(edges[::2], edges[1::2], strict=True)


def _pieces(line: str, spans: list[tuple[int, int]], long_spans: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """What the plugins read of a long line: each span with CONTEXT characters on either side (widened to
    the nearest space or tab), those less than MERGE_GAP apart merged (a plugin's call costs as much as
    reading a few hundred characters), and a merge longer than PIECE cut in overlapping windows; never
    any of an over-long run."""
    wanted = iter(spans)
    span = next(wanted, None)
    for low, high in _stretches(line, long_spans):
        merged: list[list[int]] = []
        while span is not None and span[0] < high:
            start = _widen_left(line, max(low, span[0] - CONTEXT), low)
            end = _widen_right(line, min(high, span[1] + CONTEXT), high)
            if merged and start <= merged[-1][1] + MERGE_GAP:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
            span = next(wanted, None)
        for start, end in merged:
            yield from _windows(line, start, end)


def _widen_left(line: str, start: int, low: int) -> int:
    """`start` moved back to just after a space or tab within CONTEXT // 2 characters (not before `low`)."""
    reach = max(low, start - CONTEXT // 2)
    space = max(line.rfind(" ", reach, start), line.rfind("\t", reach, start))
    return space + 1 if space >= 0 else start


def _widen_right(line: str, end: int, high: int) -> int:
    """`end` moved on to a space or tab within CONTEXT // 2 characters (not past `high`)."""
    found = [at for at in (line.find(" ", end, min(high, end + CONTEXT // 2)),
                           line.find("\t", end, min(high, end + CONTEXT // 2))) if at >= 0]
    return min(found) if found else end


def _windows(line: str, low: int, high: int) -> Iterator[tuple[int, int]]:
    """Overlapping windows over `line[low:high]`; each ends at a space or tab when one is in its last
    OVERLAP // 2 characters, and the next starts OVERLAP earlier (after a space when one is near)."""
    start = low
    while True:
        end = start + PIECE
        if end >= high:
            yield start, high
            return
        cut = max(line.rfind(" ", end - OVERLAP // 2, end), line.rfind("\t", end - OVERLAP // 2, end))
        end = cut if cut > start else end
        yield start, end
        back = end - OVERLAP
        space = max(line.rfind(" ", back - OVERLAP // 2, back), line.rfind("\t", back - OVERLAP // 2, back))
        start = max(space + 1 if space >= 0 else back, low)
