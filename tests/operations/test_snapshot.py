"""A snapshot of a tracked folder (apm_git/operations/snapshot.py): byte-exact blobs whatever git's global
settings say, deletions recorded, one commit only when something changed, and the count of git processes
that keeps it within the agents' hook budgets."""
from __future__ import annotations

from pathlib import Path

import pytest

from apm_git.commands.track import track
from apm_git.operations import snapshot as snapshots
from apm_git.store import tracked as store
from tests.tracked_homes import files_of, history, machine, stamps_of, write_files


def _tracked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> store.Tracked:
    machine(tmp_path, monkeypatch)
    folder = write_files(tmp_path / "notes" / "memories", files)
    return track("codex", path=folder).tracked


def test_blobs_are_the_bytes_whatever_the_global_git_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    laptop = machine(tmp_path, monkeypatch)
    with (laptop.home / ".gitconfig").open("a") as config:
        config.write("[core]\n\tautocrlf = true\n\tattributesFile = ~/.attributes\n[commit]\n\tgpgsign = true\n")
    (laptop.home / ".attributes").write_text("*.md text eol=lf\n")
    folder = write_files(tmp_path / "memories", {})
    (folder / "MEMORY.md").write_bytes(b"# Memory\r\n- crlf line\r\n")
    (folder / ".gitattributes").write_text("* text=auto\n")
    tracked = track("codex", path=folder).tracked
    assert history(tracked.git_dir, "cat-file", "-p", "HEAD:MEMORY.md").encode() == b"# Memory\r\n- crlf line\r\n"


def test_nothing_changed_is_no_commit_and_one_git_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tracked = _tracked(tmp_path, monkeypatch, {"MEMORY.md": "# M\n- a\n"})
    head = history(tracked.git_dir, "rev-parse", "HEAD")
    trace = tmp_path / "trace"
    _count_git(monkeypatch, trace)
    shot = snapshots.take(tracked, "session-end", session="s")
    assert shot.commit is None and shot.skipped == "nothing changed"
    assert _verbs(trace) == ["status"]
    assert history(tracked.git_dir, "rev-parse", "HEAD") == head


def test_a_change_is_one_commit_in_six_git_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tracked = _tracked(tmp_path, monkeypatch, {"MEMORY.md": "# M\n- a\n", "old.md": "# Old\n- x\n"})
    write_files(tracked.path, {"MEMORY.md": "# M\n- a\n- b\n", "new.md": "# New\n- y\n"})
    (tracked.path / "old.md").unlink()
    before, stamps = files_of(tracked.path), stamps_of(tracked.path)
    trace = tmp_path / "trace"
    _count_git(monkeypatch, trace)
    shot = snapshots.take(tracked, "session-end", session="s")
    monkeypatch.delenv("GIT_TRACE")
    assert shot.files == ("MEMORY.md", "new.md", "old.md")
    assert _verbs(trace) == ["status", "add", "rev-parse", "write-tree", "commit-tree", "update-ref"]
    assert files_of(tracked.path) == before and stamps_of(tracked.path) == stamps
    tree = history(tracked.git_dir, "ls-tree", "--name-only", "HEAD").split()
    assert tree == ["MEMORY.md", "new.md"]
    assert history(tracked.git_dir, "rev-list", "--count", "HEAD").strip() == "2"


def test_the_data_home_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    machine(tmp_path, monkeypatch)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    folder = write_files(tmp_path / "memories", {"MEMORY.md": "# M\n"})
    tracked = track("codex", path=folder).tracked
    assert tracked.git_dir.parent == tmp_path / "xdg" / "apm-git" / "tracked"
    assert store.containing(folder / "MEMORY.md") == tracked


def test_editor_and_apm_temporary_files_are_no_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tracked = _tracked(tmp_path, monkeypatch, {"MEMORY.md": "# M\n"})
    write_files(tracked.path, {".MEMORY.md.swp": "x", "MEMORY.md~": "x", ".x.md.123.apm-tmp": "x", "a.md": "# A\n"})
    assert snapshots.take(tracked, "manual").files == ("a.md",)


def test_sessions_decide_what_counts_as_background(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tracked = _tracked(tmp_path, monkeypatch, {"MEMORY.md": "# M\n"})
    snapshots.note_session(tracked, "session-start", "s-1")
    assert snapshots.sessions_running(tracked) == ["s-1"] and not snapshots.between_sessions_now(tracked)
    write_files(tracked.path, {"a.md": "# A\n"})
    assert snapshots.take(tracked, "timer").background is False  # a session runs: its agent wrote it
    snapshots.note_session(tracked, "session-end", "s-1")
    write_files(tracked.path, {"b.md": "# B\n"})
    assert snapshots.take(tracked, "timer").background is True
    monkeypatch.setenv("APM_GIT_NOW", "2099-01-01T00:00:00")
    snapshots.note_session(tracked, "pre-compact", "s-2")
    monkeypatch.setenv("APM_GIT_NOW", "2099-01-01T02:00:00")  # Codex: an hour of quiet ends a session
    assert snapshots.sessions_running(tracked) == []


def _count_git(monkeypatch: pytest.MonkeyPatch, trace: Path) -> list[str]:
    """The verbs of the git processes started from now on, as git's own trace (GIT_TRACE) records them."""
    monkeypatch.setenv("GIT_TRACE", str(trace))
    return _verbs(trace)


def _verbs(trace: Path) -> list[str]:
    if not trace.exists():
        return []
    lines = trace.read_text().splitlines()
    return [line.split("trace: built-in: git ", 1)[1].split()[0] for line in lines if "trace: built-in: git " in line]
