"""apm-state-json: `flush-state.json` and `group_names.json` parse, have the expected shape, and name safe groups."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from apm_git.checks.check import Check
from apm_git.model.names import STATE_FILES
from apm_git.model.snapshot import Finding, Snapshot

ID: Final = "apm-state-json"


def validate(snap: Snapshot) -> Iterator[Finding]:
    for path in snap.targets:
        rel = snap.rel(path)
        if rel not in STATE_FILES or path not in snap.new:
            continue
        import json  # only when a state file changed: most commits never need these

        from apm_git import jsontext
        from apm_git.model.state_files import PROBLEMS

        text = snap.new[path]
        try:
            data = jsontext.loads(text)
        except json.JSONDecodeError as error:
            yield Finding(path, error.lineno, ID, f"not valid JSON ({error.msg}, column {error.colno}); fix the file")
            continue
        problem = PROBLEMS[rel](data)
        if problem is not None:
            yield Finding(path, _line_of(text, problem), ID, f"{problem}; fix the file")


def _line_of(text: str, problem: str) -> int:
    """The line of the first quoted name the problem mentions, else 1."""
    import json

    for word in problem.split("'")[1::2]:
        at = text.find(json.dumps(word))
        if at != -1:
            return text.count("\n", 0, at) + 1
    return 1


CHECK = Check(
    ID, "flush-state.json or group_names.json is invalid or names an unsafe group",
    applies_to="file", severity=40, validate=validate, files=r"(flush-state|group_names)\.json$",
)
