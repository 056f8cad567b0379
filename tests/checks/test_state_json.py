from __future__ import annotations

import pytest

from tests.checks.helpers import findings, snapshot

HOOK = "apm-state-json"


@pytest.mark.parametrize(
    ("name", "text", "line", "words"),
    [
        ("flush-state.json", '{\n  "groups": \n', 3, "not valid JSON"),
        ("flush-state.json", '{"pending_items": {}}', 1, "'pending_items' must be a JSON array"),
        ("group_names.json", '{\n  "room-1": "team-a",\n  "room-2": "../escape"\n}\n', 3, "unsafe group name"),
        ("group_names.json", "[]", 1, "must be an object"),
    ],
)
def test_invalid_state_files(name: str, text: str, line: int, words: str) -> None:
    (finding,) = findings(snapshot({}, {name: text}), HOOK)
    assert (finding.path, finding.line) == (f"memory/{name}", line) and words in finding.message


def test_valid_state_files_and_other_json_pass() -> None:
    snap = snapshot({}, {"group_names.json": '{"r": "team-a"}', "flush-state.json": '{"pending_items": []}',
                         "notes.json": "not json"})
    assert findings(snap, HOOK) == []


def test_the_state_files_are_the_ones_state_py_validates() -> None:
    from apm_git.model.names import STATE_FILES
    from apm_git.model.state_files import PROBLEMS

    assert set(STATE_FILES) == set(PROBLEMS)
