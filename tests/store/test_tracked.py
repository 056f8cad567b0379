"""The tracked folders' settings under apm-git's data home, and finding the one a command means
(apm_git/store/tracked.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from apm_git.errors import CorruptStateFile, StateError, UsageError
from apm_git.store import tracked as store
from apm_git.tracking.cap import Limits
from tests.tracked_homes import machine

GOOD = {"version": 1, "id": "codex-x-00000000", "agent": "codex", "folder": "/h/.codex/memories"}


@pytest.mark.parametrize(("data", "words"), [
    ({**GOOD, "version": 2}, "not apm-git's tracked-folder settings"),
    ([], "not apm-git's tracked-folder settings"),
    ({**GOOD, "agent": "cursor"}, '"agent" or "folder"'),
    ({**GOOD, "folder": "relative/path"}, '"agent" or "folder"'),
    ({**GOOD, "cap": {"lines": 0, "bytes": 10}}, "positive whole numbers"),
    ({**GOOD, "cap": {"lines": True, "bytes": 10}}, "positive whole numbers"),
])
def test_settings_that_do_not_read_name_the_problem(data: object, words: str) -> None:
    with pytest.raises(CorruptStateFile, match=words):
        store.parse(data, "codex-x-00000000.json")


def test_settings_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    machine(tmp_path, monkeypatch)
    tracked = store.Tracked("codex-m-12345678", "codex", str(tmp_path), None, "default", "/r.git", True,
                            Limits(10, 20), ("abc",), "2026-05-01T10:00:00+00:00")
    store.save(tracked)
    assert store.by_id(tracked.id) == tracked and store.readable() == [tracked]
    assert store.by_id("../etc") is None


def test_find_names_the_ids_when_it_cannot_choose(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    machine(tmp_path, monkeypatch)
    for name in ("a", "b"):
        store.save(store.Tracked(f"claude-code-{name}-0000000{name}", "claude-code", str(tmp_path / name / "memory"),
                                 str(tmp_path / name), None, None))
    assert store.find("claude-code", tmp_path / "a" / "src").id == "claude-code-a-0000000a"
    assert store.find(None, tmp_path / "b" / "memory" / "x.md").id == "claude-code-b-0000000b"
    with pytest.raises(UsageError, match="claude-code-a-0000000a, claude-code-b-0000000b"):
        store.find("claude-code", tmp_path)
    with pytest.raises(StateError, match="no codex memory is tracked"):
        store.find("codex", tmp_path)
    with pytest.raises(StateError, match="is in no tracked folder"):
        store.find(None, tmp_path)


def test_paths_in_a_folder(tmp_path: Path) -> None:
    tracked = store.Tracked("codex-x-1", "codex", str(tmp_path), None, None, None)
    assert store.in_folder(tracked, "memory/a.md") == "memory/a.md"
    assert store.in_folder(tracked, str(tmp_path / "b.md")) == "b.md"
    for bad in ("../a.md", "/etc/passwd", ""):
        with pytest.raises(UsageError):
            store.in_folder(tracked, bad)
