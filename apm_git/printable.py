"""Text as apm-git prints it: what memory holds can never drive the terminal or the CI runner reading it.

Memory is written by agents, by other clones (sync) and by pull requests, so a title, a journal line,
a commit subject or a file name may hold an escape sequence (ESC ]52 writes the clipboard, others
retitle the window or hide text), a bidi override that shows text in another order than it is
stored, or a line that a CI runner obeys: GitHub Actions runs a line that starts with `::`
(after blanks: `::error file=…::`, `::add-mask::`, `::stop-commands::`) and one that holds `##[`
anywhere (`##[error]…`), Azure Pipelines one that holds `##vso[`.  Two functions, one per need:

- `one_line(value)`: a value (a file name, a title, a message) as one line of plain text: every
  control character, line breaks and tabs included, as a backslash escape, and `##[` defused;
- `neutral(text)` (and `Neutralizer`, for a stream written piece by piece): a whole output, its line
  breaks and tabs kept, every other control character escaped, and each line's workflow command
  defused.  apm_git/streams.py puts it under stdout and stderr of every command.

The escapes (`\\n`, `\\r`, `\\t`, `\\uXXXX`) are JSON's as well, and only characters that JSON keeps
inside strings are escaped, so a `--json` object passed through `neutral` stays valid JSON with the
same values.  No other import than `re`: the light hook entries use it.
"""
from __future__ import annotations

import re

# C0 less the line break and the tab, DEL, C1, the bidi controls (the "Trojan Source" set), and the
# Unicode line and paragraph separators, which some terminals and viewers break lines at.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_IN_TEXT = re.compile(f"[{_CONTROLS}]")
_IN_VALUE = re.compile(f"[\t\n{_CONTROLS}]")
# What a CI runner obeys: `::` first on a line after blanks (group 1: the second colon), `##[` or
# `##vso[` anywhere (group 2: the bracket).  Escaping that one character defuses the command.
_COMMAND = re.compile(r"^[^\S\n]*:(:)|##(?:vso)?(\[)", re.MULTILINE)
_LEGACY = re.compile(r"##(?:vso)?\[")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNDECIDED = re.compile(r"[^\S\n]*:?")  # a line so far that a `::` may still turn into a command
_TAIL = 5  # `##vso`: what a command split across two writes may have left on the line


def escape(char: str) -> str:
    return _NAMED.get(char) or f"\\u{ord(char):04x}"


def _escaped(match: re.Match[str]) -> str:
    return escape(match[0])


def one_line(value: object) -> str:
    """`value` as text that stays on its line and means nothing to a terminal or a CI runner."""
    text = _IN_VALUE.sub(_escaped, str(value))
    return _LEGACY.sub(_defused, text) if "##" in text else text


def _defused(match: re.Match[str]) -> str:
    return match[0][:-1] + escape(match[0][-1])


def neutral(text: str) -> str:
    """A whole output made safe for a terminal and a CI log (see the module's docstring)."""
    return Neutralizer().feed(text)


class Neutralizer:
    """`neutral` over text that arrives in pieces (a stream's writes): a command split across two
    writes is defused as one written at once."""

    def __init__(self) -> None:
        self._lead: str | None = ""  # the line so far while `::` may still start it, else None
        self._tail = ""  # the line's last characters, for a `##[` split across writes

    def feed(self, text: str) -> str:
        if not text:
            return text
        prefix = self._lead if self._lead is not None else "." + self._tail  # "." : not at a line's start
        probe = prefix + text
        at = [(match.start(1) if match.start(1) >= 0 else match.start(2)) - len(prefix)
              for match in _COMMAND.finditer(probe)] if _COMMAND.search(probe) else []
        last = probe.rsplit("\n", 1)[-1]
        self._lead = last if _UNDECIDED.fullmatch(last) else None
        self._tail = last[-_TAIL:]
        return _render(text, [place for place in at if place >= 0])


def _render(text: str, defused: list[int]) -> str:
    """`text` with its control characters escaped, and the characters at `defused` too."""
    if not defused:
        return _IN_TEXT.sub(_escaped, text) if _IN_TEXT.search(text) else text
    parts, start = [], 0
    for place in defused:
        parts += [_IN_TEXT.sub(_escaped, text[start:place]), escape(text[place])]
        start = place + 1
    parts.append(_IN_TEXT.sub(_escaped, text[start:]))
    return "".join(parts)
