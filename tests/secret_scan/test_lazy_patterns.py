"""The prefilter's regular expressions are compiled on first use, once per process (issue 28): importing the
scanner (every flush, every commit's checks) compiles none of them."""
from __future__ import annotations

import subprocess
import sys


def test_importing_compiles_nothing_and_a_scan_compiles_each_pattern_once() -> None:
    code = (
        "from apm_git.secret_scan import prefilter, scan\n"
        "lazy = [v for v in vars(prefilter).values() if isinstance(v, prefilter._Lazy)]\n"
        "print(len(lazy), sum(v.compiled is not None for v in lazy))\n"
        "scan('# Notes\\n\\n- Body: the deploy uses api_key = \"Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4\".\\n')\n"
        "first = {id(v): v.compiled for v in lazy if v.compiled is not None}\n"
        "scan('# Notes\\n\\n- Body: password: hunter2hunter2hunter2 and AKIAABCDEFGHIJKLMNOP.\\n')\n"
        "print(len(first), all(v.compiled is first[id(v)] for v in lazy if id(v) in first))\n"
    )
    proc = subprocess.run((sys.executable, "-c", code), capture_output=True, text=True, check=True)
    (count, compiled), (used, same) = (line.split() for line in proc.stdout.splitlines())
    assert int(count) == 20 and compiled == "0"
    assert 0 < int(used) <= 20 and same == "True"
