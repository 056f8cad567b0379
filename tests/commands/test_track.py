"""`apm-git track`, `track --list` and `untrack` on the folders the agents lay out themselves (a fake HOME
each): the history lives apart, and the agent's files are byte-identical after `track`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.store import tracked as store
from tests.conftest import Invoke
from tests.realworld import copy_case
from tests.tracked_homes import Machine, files_of, history, machine, run_git, stamps_of

MEMORY = "# Memory\n\n- [Redis](redis.md) — the session cache\n- Use pnpm, not npm\n\n## Deploy\n- make deploy\n"
TOPIC = "---\nname: redis\ndescription: how the session cache works\ntype: project\n---\n# Redis\n- TTL 300 s\n"


def test_track_claude_code_leaves_the_folder_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "code" / "shop", "git@github.com:me/shop.git")
    folder = laptop.claude_memory(project, {"MEMORY.md": MEMORY, "redis.md": TOPIC})
    settings = laptop.home / ".claude" / "settings.json"
    settings.write_text(json.dumps({"model": "opus", "hooks": {"SessionEnd": [
        {"matcher": "", "hooks": [{"type": "command", "command": "say bye"}]}]}}, indent=2))
    before, stamps = files_of(folder), stamps_of(folder)
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")  # a folder inside the project: Claude Code names the memory by the git root

    ran = run_cli("track", "claude-code", "--json")

    assert ran.exit_code == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["tracked"]["folder"] == str(folder) and out["tracked"]["identity"] == "github.com/me/shop"
    assert out["created"] and out["snapshot"]["files"] == ["MEMORY.md", "redis.md"]
    assert files_of(folder) == before and stamps_of(folder) == stamps  # not a byte, not a time stamp changed
    assert not (folder / ".git").exists()
    git_dir = Path(out["tracked"]["history"])
    assert git_dir.parent == laptop.data and (laptop.data / f"{out['tracked']['id']}.json").is_file()
    assert history(git_dir, "log", "--format=%(trailers:key=Apm-Trigger,valueonly)").strip() == "track"
    assert history(git_dir, "show", "HEAD:redis.md") == TOPIC
    hooks = json.loads(settings.read_text())
    assert hooks["model"] == "opus"
    assert next(hook["command"] for group in hooks["hooks"]["SessionEnd"] for hook in group["hooks"]) == "say bye"
    for event in ("SessionStart", "PreCompact", "PostCompact", "SessionEnd"):
        assert any("apm-git-snapshot --agent claude-code --hook-input -" in hook["command"]
                   for group in hooks["hooks"][event] for hook in group["hooks"]), event
    wired = settings.read_bytes()

    again = run_cli("track", "claude-code")
    assert again.exit_code == 0 and "resumed" in again.stdout and "already" in again.stdout
    assert settings.read_bytes() == wired
    listed = json.loads(run_cli("track", "--list", "--json").stdout)
    assert [(item["agent"], item["folder"], item["snapshots"], item["last_trigger"]) for item in listed["tracked"]] \
        == [("claude-code", str(folder), 1, "track")]


def test_a_linked_worktree_shares_the_project_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop")
    run_git(project, "commit", "--quiet", "--allow-empty", "-m", "start")
    run_git(project, "worktree", "add", "--quiet", str(tmp_path / "shop-feature"))
    folder = laptop.claude_memory(project, {"MEMORY.md": MEMORY})
    ran = run_cli("track", "claude-code", "--project", str(tmp_path / "shop-feature"), "--no-hooks", "--json")
    assert ran.exit_code == 0, ran.stderr
    assert json.loads(ran.stdout)["tracked"]["folder"] == str(folder)
    assert not (laptop.home / ".claude" / "settings.json").exists()  # --no-hooks


def test_the_auto_memory_directory_setting_moves_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop")
    moved = tmp_path / "notes" / "claude-memory"
    moved.mkdir(parents=True)
    (moved / "MEMORY.md").write_text(MEMORY)
    (laptop.home / ".claude").mkdir()
    (laptop.home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(moved)}))
    monkeypatch.chdir(project)
    ran = run_cli("track", "claude-code", "--no-hooks", "--json")
    assert ran.exit_code == 0, ran.stderr
    assert json.loads(ran.stdout)["tracked"]["folder"] == str(moved)
    assert "no project identity" in " ".join(json.loads(ran.stdout)["notes"])


def test_codex_keeps_its_own_baseline_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    folder = laptop.codex_memories({"MEMORY.md": "# Memories\n- prefers uv\n", "memory_summary.md": "uv, ruff\n",
                                    "raw_memories.md": "- 2026-05-01: asked for uv\n",
                                    "rollout_summaries/2026-05-01.md": "# Rollout\n- used uv\n"})
    baseline = run_git(folder, "rev-parse", "HEAD")
    before, stamps = files_of(folder), stamps_of(folder)
    monkeypatch.chdir(tmp_path)

    ran = run_cli("track", "codex", "--json")

    assert ran.exit_code == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert sorted(out["snapshot"]["files"]) == ["MEMORY.md", "memory_summary.md", "raw_memories.md",
                                                "rollout_summaries/2026-05-01.md"]
    assert files_of(folder) == before and stamps_of(folder) == stamps  # .git of Codex included
    assert run_git(folder, "rev-parse", "HEAD") == baseline
    assert run_git(folder, "status", "--porcelain") == ""
    run_git(folder, "fsck", "--no-progress")
    tree = history(Path(out["tracked"]["history"]), "ls-tree", "-r", "--name-only", "HEAD").split()
    assert not any(path.startswith(".git") for path in tree)
    codex_hooks = json.loads((laptop.home / ".codex" / "hooks.json").read_text())
    assert sorted(codex_hooks["hooks"]) == ["PostCompact", "PreCompact", "SessionStart"]

    (folder / "MEMORY.md").write_text("# Memories\n- prefers uv\n- and pytest -n 2\n")
    run_git(folder, "commit", "--quiet", "-am", "codex's own consolidation")  # Codex moves its baseline itself
    assert run_cli("snapshot", "codex").exit_code == 0
    assert run_git(folder, "log", "--format=%s").split("\n")[:2] == ["codex's own consolidation", "baseline"]
    assert run_git(folder, "status", "--porcelain") == ""


def test_an_openclaw_workspace_tracks_its_memory_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      run_cli: Invoke) -> None:
    machine(tmp_path, monkeypatch)
    workspace = copy_case("Hou4007268__openclaw-backup", tmp_path / "clawd")
    (workspace / "SOUL.md").write_text("# Soul\nBe kind.\n")
    (workspace / "AGENTS.md").write_text("# Agents\n")
    before = files_of(workspace)
    monkeypatch.chdir(tmp_path)

    ran = run_cli("track", "openclaw", str(workspace), "--no-hooks", "--json")

    assert ran.exit_code == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert files_of(workspace) == before
    committed = set(out["snapshot"]["files"])
    assert "MEMORY.md" in committed and "SOUL.md" not in committed and "AGENTS.md" not in committed
    assert "SOURCE.txt" not in committed
    assert {path for path in before if path.startswith("memory/")} - committed == {"memory/2026-02-13.md"}
    assert {item["path"] for item in out["snapshot"]["withheld"]} == {"memory/2026-02-13.md"}
    assert "memory/2026-02-13.md" in ran.stderr and "NOT in the snapshot" in ran.stderr


def test_untrack_keeps_the_history_and_track_resumes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop")
    folder = laptop.claude_memory(project, {"MEMORY.md": MEMORY})
    monkeypatch.chdir(project)
    first = json.loads(run_cli("track", "claude-code", "--name", "shop", "--json").stdout)
    git_dir = Path(first["tracked"]["history"])

    gone = run_cli("untrack", "--json")
    assert gone.exit_code == 0, gone.stderr
    out = json.loads(gone.stdout)
    assert out["tracked"]["active"] is False and git_dir.is_dir()
    assert [item["events"] for item in out["hooks"]] == [["SessionStart", "PreCompact", "PostCompact", "SessionEnd"]]
    assert not (laptop.home / ".claude" / "settings.json").exists()  # install made it: uninstall takes it out
    (folder / "MEMORY.md").write_text(MEMORY + "- a fact while untracked\n")
    refused = run_cli("snapshot")
    assert refused.exit_code == 2 and "not tracked any more" in refused.stderr

    back = json.loads(run_cli("track", "claude-code", "--json").stdout)
    assert back["created"] is False and back["tracked"]["identity"] == "shop"
    assert history(git_dir, "rev-list", "--count", "HEAD").strip() == "2"


@pytest.mark.parametrize(("args", "code", "words"), [
    (("track",), 2, "name the agent"),
    (("track", "cursor"), 2, "'cursor' is not one of"),
    (("track", "--list", "codex"), 2, "--list takes no other argument"),
    (("track", "codex"), 3, "does not exist"),
    (("track", "claude-code", "--name", "my shop"), 2, "cannot name a project"),
    (("untrack", "codex"), 3, "no codex memory is tracked"),
    (("snapshot", "/nowhere"), 3, "is no tracked folder"),
])
def test_bad_input_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Invoke,
                               args: tuple[str, ...], code: int, words: str) -> None:
    machine(tmp_path, monkeypatch)
    monkeypatch.chdir(tmp_path)
    ran = run_cli(*args)
    assert ran.exit_code == code, (ran.stdout, ran.stderr)
    assert words in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == (4 if "is not one of" in words else 1)  # click's usage block


def test_nested_folders_and_the_data_home_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    outer = tmp_path / "notes"
    (outer / "memory").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert run_cli("track", "openclaw", str(outer), "--no-hooks").exit_code == 0
    inner = run_cli("track", "codex", str(outer / "memory"), "--no-hooks")
    assert inner.exit_code == 2 and "one inside the other" in inner.stderr
    home = run_cli("track", "codex", str(laptop.home), "--no-hooks")
    assert home.exit_code == 2 and "data home" in home.stderr


def test_a_settings_file_that_does_not_read_is_named_in_the_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    laptop.data.mkdir(parents=True)
    (laptop.data / "codex-x-00000000.json").write_text("{not json")
    ran = run_cli("track", "--list")
    assert ran.exit_code == 0 and "codex-x-00000000.json: cannot read it" in ran.stdout
    assert [item for item in store.every() if not isinstance(item, store.Tracked)]


def test_untrack_gives_the_settings_file_its_bytes_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop")
    laptop.claude_memory(project, {"MEMORY.md": MEMORY})
    settings = laptop.home / ".claude" / "settings.json"
    original = ('{\n\t"model": "opus",\n\t"hooks": {\n\t\t"SessionStart": [\n\t\t\t{"matcher": "", "hooks": [{"type": '
                '"command", "command": "apm-git load --format claude-hook --hook-input -  # apm-git hooks install"}]}'
                '\n\t\t]\n\t}\n}\n')
    settings.write_text(original)
    monkeypatch.chdir(project)
    assert run_cli("track", "claude-code").exit_code == 0
    text = settings.read_text()
    assert "apm-git load --format claude-hook --hook-input -  # apm-git hooks install" in text
    assert text.count("# apm-git track") == 4 and "\t\t\"PreCompact\"" in text  # the file's own indent
    assert run_cli("untrack").exit_code == 0
    assert settings.read_text() == original


def test_snapshots_made_without_a_git_identity_say_so_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           run_cli: Invoke) -> None:
    """No user.name or user.email anywhere (HOME an empty folder): `track` and `snapshot` commit as apm-git and
    say it once per command, as a memory repository's commits do; a run that commits nothing says nothing."""
    home = tmp_path / "empty-home"
    home.mkdir()
    laptop = Machine(home, monkeypatch).use()
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    # git would otherwise guess an identity from the host's name where the host has a domain
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.useConfigOnly")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    folders = []
    for name, files in (("shop", {"MEMORY.md": MEMORY}), ("blog", {})):  # the empty one: `track`'s first commit
        project = laptop.project(tmp_path / name)
        folders.append(laptop.claude_memory(project, files))
        tracked = run_cli("track", "claude-code", "--project", str(project), "--no-hooks", "--name", name)
        assert tracked.exit_code == 0, tracked.stderr
        assert tracked.stderr.count("git has no user identity here") == 1, tracked.stderr
        assert "apm-git@localhost" in tracked.stderr and "git config --global user.email" in tracked.stderr
    git_dirs = sorted(laptop.data.glob("*.git"))
    assert len(git_dirs) == 2
    assert {history(git_dir, "log", "-1", "--format=%an <%ae>").strip() for git_dir in git_dirs} \
        == {"apm-git <apm-git@localhost>"}

    for folder in folders:
        (folder / "MEMORY.md").write_text(MEMORY + "- Deploys on Fridays are frozen\n")
    both = run_cli("snapshot", "--all", "--json")
    assert both.exit_code == 0, both.stderr
    assert [bool(item["commit"]) for item in json.loads(both.stdout)["snapshots"]] == [True, True]
    assert both.stderr.count("git has no user identity here") == 1  # two commits, one note
    quiet = run_cli("snapshot", "--all")
    assert quiet.exit_code == 0 and "nothing changed" in quiet.stdout
    assert "no user identity" not in quiet.stderr  # said by the run that committed, not kept for later runs

    run_git(tmp_path, "config", "--global", "user.name", "Ana")  # what the note says to do
    run_git(tmp_path, "config", "--global", "user.email", "ana@example.invalid")
    (folders[0] / "MEMORY.md").write_text(MEMORY + "- Deploys on Fridays are allowed again\n")
    mine = run_cli("snapshot", str(folders[0]))
    assert mine.exit_code == 0 and "no user identity" not in mine.stderr
    assert "Ana <ana@example.invalid>" in {history(git_dir, "log", "-1", "--format=%an <%ae>").strip()
                                            for git_dir in git_dirs}
