"""Issue 23: `apm-git lint` of a 2 MB single-line memory file and of a 4 MB file of long lines.

The scan was quadratic on long token-like lines (8,000 URL-safe base64 characters took 14.5 s,
a 2 MB line over 200 s); it is linear now (docs/secrets.md, "Linear in the text").  The 2 MB
line is random URL-safe base64, the shape the issue measured; the 4 MB file is 40 lines of about
100,000 characters of prose with a token-like id, an assignment and a URL every few hundred
words, so every line is a candidate and reaches the plugins in pieces.  Each is linted on its
own (`apm-git lint PATH`) in a copy of the small repository, with the `lint --all` of the large
repository's section (checks) as the floor to compare with.
"""
from __future__ import annotations

import random
import resource
import string
from pathlib import Path

from harness import APM, Context, Row, alternate, median_of, timed

SECTION = "long"
TARGET_SINGLE_LINE = 1.0
WORDS = ["redis", "cache", "token", "refresh", "race", "deploy", "proxy", "timeout", "worker", "queue", "retry",
         "schema", "migration", "lock", "index", "budget", "flush", "journal", "agent", "memory", "session"]


def single_line(size: int, seed: int = 23) -> str:
    """One line of random URL-safe base64: one over-long token run."""
    rnd = random.Random(seed)
    return "".join(rnd.choices(string.ascii_letters + string.digits + "-_", k=size)) + "\n"


def long_lines(size: int, line_size: int = 100_000, seed: int = 23) -> str:
    """Lines of prose of `line_size` characters, each holding ids, assignments and URLs among the words."""
    rnd = random.Random(seed)
    alphabet = string.ascii_letters + string.digits
    lines, total = [], 0
    while total < size:
        words: list[str] = []
        length = 0
        while length < line_size:
            roll = rnd.random()
            if roll < 0.01:
                word = "".join(rnd.choices(alphabet, k=24))  # an id: a candidate, held plain or not by the plugins
            elif roll < 0.015:
                word = f"retry_count={rnd.randint(1, 9)}"
            elif roll < 0.02:
                word = f"https://example.org/{rnd.choice(WORDS)}/{rnd.randint(1, 999)}"
            else:
                word = rnd.choice(WORDS)
            words.append(word)
            length += len(word) + 1
        line = " ".join(words)
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n"


def _lint(ctx: Context, name: str, text: str) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system, git's included) of `apm-git lint PATH`: on a
    machine shared with other work the CPU time holds where the wall time drifts."""
    root = ctx.fresh_copy("small", name)
    path = Path("memory") / f"{name}.md"
    (root / path).write_text(text, encoding="utf-8")
    timed((*APM, "lint", str(path)), root)  # warm-up: the parsed apm.yaml cache
    cpu: list[float] = []

    def lint(_: int) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = timed((*APM, "lint", str(path)), root)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        return wall

    (samples,) = alternate(ctx.repeat, lint)
    return median_of(samples), median_of(cpu)


def run_section(ctx: Context) -> list[Row]:
    one, one_cpu = _lint(ctx, "single-line", single_line(2 * 1024 * 1024))
    many, many_cpu = _lint(ctx, "long-lines", long_lines(4_000_000))
    return [
        Row(SECTION, "lint of a 2 MB single-line file", one, None, f"<= {TARGET_SINGLE_LINE}s",
            one <= TARGET_SINGLE_LINE, f"random URL-safe base64; CPU {one_cpu:.3f}s"),
        Row(SECTION, "lint of a 4 MB file of long lines", many, None,
            note=f"40 lines of 100k characters of prose; CPU {many_cpu:.3f}s"),
    ]
