"""The standard streams as apm-git writes to them; no click here, the recall hook's entry uses it too."""
from __future__ import annotations

import sys
from typing import Any, TextIO

from apm_git.printable import Neutralizer


def safe_streams() -> None:
    """stdout and stderr that never raise on a character: UTF-8 where the locale says ASCII (LANG=C
    without Python's UTF-8 mode, as PEP 540 would choose), and a backslash escape for what still
    cannot be written (a lone surrogate, a character the user's chosen encoding lacks).  Then each is
    put behind a `NeutralStream`: what memory holds never drives the terminal or a CI runner."""
    import codecs

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        encoding = codecs.lookup(getattr(stream, "encoding", None) or "ascii").name
        reconfigure(encoding="utf-8" if encoding == "ascii" else encoding, errors="backslashreplace")
    if not isinstance(sys.stdout, NeutralStream) and sys.stdout is not None:
        sys.stdout = NeutralStream(sys.stdout)
    if not isinstance(sys.stderr, NeutralStream) and sys.stderr is not None:
        sys.stderr = NeutralStream(sys.stderr)


class NeutralStream:
    """A text stream whose writes pass through apm_git.printable.Neutralizer: control characters
    escaped (line breaks and tabs kept), workflow commands defused.  Everything else is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._neutral = Neutralizer()

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click probes `write(b"")` to tell a binary stream from a text one
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._stream.write(self._neutral.feed(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
