"""Issue 23: the scan is linear in its text.  Nothing is timed; the scanner's meter counts the characters its
regular expressions were given, and the longest stretch any call that is not a single pass was given."""
from __future__ import annotations

import itertools
import random
import string
from collections.abc import Callable

import pytest

from apm_git.secret_scan import scan
from apm_git.secret_scan.prefilter import LONG_RUN_KIND, MAX_TOKEN, METER, PIECE, candidates

SIZES = (1_000, 10_000, 100_000, 1_000_000)


def _random(alphabet: str) -> Callable[[int], str]:
    def make(size: int) -> str:
        rnd = random.Random(size)
        return "".join(rnd.choices(alphabet, k=size))
    return make


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda size: (unit * (size // len(unit) + 1))[:size]


# The lines the issue measured (URL-safe base64, random alphanumerics, one character repeated), and the shapes
# that made the old scan's regular expressions go over a line again and again from each of many starts.
SHAPES: dict[str, Callable[[int], str]] = {
    "url-safe base64": _random(string.ascii_letters + string.digits + "-_"),
    "alphanumerics": _random(string.ascii_letters + string.digits),
    "one character": _repeat("x"),
    "secret words run together": _repeat("keytokenpasswordauth"),
    "assignments": _repeat("pw=Xy7 api_key=Zq8Wv3Lm9Rt2Ks5N token: 'Ab3dEf6hIj9kLm2n' "),
    "tokens in prose": _random(string.ascii_letters + string.digits + "      "),
    "url credentials": _repeat("://a:b@"),
    "an unclosed quote": lambda size: 'password="' + "a" * (size - 10),
    "spaces after a key": lambda size: "password" + " " * (size - 9) + "x",
    "key blocks": _repeat("BEGIN RSA "),
    "camel case": _repeat("AbAbAbAbAb"),
}


@pytest.mark.slow  # lines up to 1 MB of the worst shapes: a few seconds each
@pytest.mark.parametrize("shape", SHAPES)
def test_the_work_of_a_scan_grows_linearly_with_the_line(shape: str) -> None:
    read, widest = [], []
    for size in SIZES:
        line = SHAPES[shape](size)
        assert len(line) == size
        METER.reset()
        scan(line + "\n")
        read.append(METER.read)
        widest.append(METER.widest)
    per_character = [count / size for count, size in zip(read, SIZES, strict=True)]
    say = f"{shape}: {read} characters read for lines of {SIZES}"
    # Ten times the line, ten times the work (a quadratic scan: a hundred times).  A line of one piece
    # (1k) is read whole by each plugin, a longer one around its candidates in pieces, so the step from
    # 1k to 10k changes the way of reading; from 10k on the work per character stays flat.
    assert all(larger <= 25 * smaller for smaller, larger in itertools.pairwise(read)), say
    assert max(per_character[1:]) <= 1.1 * min(per_character[1:]), say
    assert max(widest) <= PIECE, f"{shape}: a call was given {max(widest)} characters"


def test_an_over_long_run_is_judged_by_its_variety_and_never_reaches_a_plugin() -> None:
    rnd = random.Random(23)
    key = "".join(rnd.choices(string.ascii_letters + string.digits + "+/", k=3000))
    (suspect,) = scan(f"- Body: client-key-data: {key}\n")
    assert suspect.kind == LONG_RUN_KIND and suspect.line == 1
    assert scan("x" * 3000 + "\n") == []  # a repeated character
    assert scan("-".join(["deploy", "cache", "worker"] * 200) + "\n") == []  # words joined by dashes
    assert scan("".join(rnd.choices("0123456789abcdef", k=3000)) + "\n") == []  # a hex dump
    assert scan(f"ssh-rsa {key} me@laptop\n") == []  # a public key
    assert scan(f"![logo](data:image/png;base64,{key})\n") == []  # a picture
    assert scan(f"- Body: client-key-data: {key}  <!-- pragma: allowlist secret -->\n") == []
    METER.reset()
    candidates(f"note {key} end\n")
    assert METER.widest <= MAX_TOKEN


def test_a_secret_far_into_a_long_line_is_found_in_its_piece() -> None:
    token = "ghp_" + "r8Vw2KpZ0mQx7LsT4bN9cYe1HfJ6uA3dGi5o"
    prose = " ".join(["the deploy went fine"] * 5_000)
    for where in (10, PIECE - 20, len(prose) // 2, len(prose) - 10):
        found = scan(f"{prose[:where]} {token} {prose[where:]}\n")
        assert [(suspect.line, suspect.kind) for suspect in found] == [(1, "GitHub Token")], where
