"""`apm-git lint` on a tracked folder: the checks of a snapshot (a suspected secret, the loading cap) over every
memory file as it is now, with nothing written and no snapshot made."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Invoke
from tests.tracked_homes import files_of, history, machine, stamps_of, write_files

AWS = "AKIA" + "Q7XK2M9PLD4RT6WZ"  # a made-up key of AWS's shape
MEMORY = "# Memory\n- [Redis](redis.md)\n- [Deploy](deploy.md)\n## People\n- Ana reviews the cache code\n"


def test_lint_names_what_a_snapshot_would_find_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop", "git@github.com:me/shop.git")
    folder = laptop.claude_memory(project, {"MEMORY.md": MEMORY, "redis.md": "# Redis\n- TTL 300 s\n"})
    monkeypatch.chdir(project)
    ran = run_cli("track", "claude-code", "--no-hooks", "--json")
    assert ran.exit_code == 0, ran.stderr
    git_dir = Path(json.loads(ran.stdout)["tracked"]["history"])
    clean = run_cli("lint")
    assert clean.exit_code == 0 and clean.stdout == "", clean.stderr
    assert "0 finding(s) in 2 memory file(s) of the tracked folder" in clean.stderr

    write_files(folder, {"deploy.md": f"# Deploy\n- the key is {AWS}\n"})
    assert run_cli("track", "claude-code", "--no-hooks", "--cap-lines", "3").exit_code == 0
    before, stamps = files_of(folder), stamps_of(folder)
    snapshots = history(git_dir, "rev-list", "--count", "HEAD")

    found = run_cli("lint")

    assert found.exit_code == 1
    lines = found.stdout.splitlines()
    assert [line.split(": ")[:2] for line in lines] == [["deploy.md:2", "apm-no-secrets"],
                                                        ["MEMORY.md:4", "apm-load-cap"]]
    assert "'## People' (line 4)" in lines[1] and AWS not in found.stdout + found.stderr
    assert files_of(folder) == before and stamps_of(folder) == stamps
    assert history(git_dir, "rev-list", "--count", "HEAD") == snapshots  # lint makes no snapshot
    monkeypatch.chdir(tmp_path)
    out = json.loads(run_cli("lint", "--tracked", str(folder), "--json").stdout)
    assert out["checked"] == ["MEMORY.md", "deploy.md", "redis.md"]
    assert [(item["path"], item["hook"]) for item in out["findings"]] == [("deploy.md", "apm-no-secrets"),
                                                                          ("MEMORY.md", "apm-load-cap")]


def test_lint_on_a_tracked_folder_takes_no_revision_or_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    folder = laptop.codex_memories({"MEMORY.md": "# Memories\n- prefers uv\n"})
    monkeypatch.chdir(tmp_path)
    assert run_cli("track", "codex", "--no-hooks").exit_code == 0
    for args in (("MEMORY.md",), ("--from-ref", "HEAD~1"), ("--baseline-too",)):
        ran = run_cli("lint", "--tracked", "codex", *args)
        assert ran.exit_code == 2 and "takes no PATH, --from-ref" in ran.stderr, args
    unknown = run_cli("lint", "--tracked", "nothing-tracked-here")
    assert unknown.exit_code == 3 and "is no tracked folder, id or agent" in unknown.stderr
    monkeypatch.chdir(folder)
    assert run_cli("lint", "--all").exit_code == 0  # --all is what lint on a tracked folder does anyway
