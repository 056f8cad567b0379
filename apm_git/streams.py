"""The standard streams as apm-git writes to them; no click here, the recall hook's entry uses it too."""
from __future__ import annotations

import sys


def safe_streams() -> None:
    """stdout and stderr that never raise on a character: UTF-8 where the locale says ASCII (LANG=C
    without Python's UTF-8 mode, as PEP 540 would choose), and a backslash escape for what still
    cannot be written (a lone surrogate, a character the user's chosen encoding lacks)."""
    import codecs

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        encoding = codecs.lookup(getattr(stream, "encoding", None) or "ascii").name
        reconfigure(encoding="utf-8" if encoding == "ascii" else encoding, errors="backslashreplace")
