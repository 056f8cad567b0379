"""Every machine: two machines whose project paths differ (so Claude Code's slug folders differ) share one
tracked memory through a bare remote, matched by the project's identity, and no section is lost."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.tracking.outline import outline
from tests.conftest import Invoke
from tests.tracked_homes import Machine, files_of, history, machine, run_git, write_files

LAPTOP_MEMORY = "# Memory\n\n- Use pnpm, not npm\n\n## Deploy\n- make deploy from main only\n"
SERVER_MEMORY = "# Memory\n\n- Logs go to /var/log/shop\n\n## Backups\n- nightly at 02:00\n"


def _headings(folder: Path) -> set[tuple[str, str]]:
    return {(path, part.heading) for path, data in files_of(folder).items() if path.endswith(".md")
            for part in outline(data.decode())}


def _track(who: Machine, project: Path, files: dict[str, str], remote: Path, run_cli: Invoke,
           monkeypatch: pytest.MonkeyPatch) -> Path:
    who.use()
    folder = who.claude_memory(project, files)
    monkeypatch.chdir(project)
    ran = run_cli("track", "claude-code", "--remote", str(remote), "--no-hooks")
    assert ran.exit_code == 0, ran.stderr
    return folder


@pytest.mark.slow
def test_two_machines_share_one_memory_by_the_project_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               run_cli: Invoke) -> None:
    remote = tmp_path / "memory-history.git"
    run_git(tmp_path, "init", "--bare", "--quiet", str(remote))
    laptop = machine(tmp_path, monkeypatch, "laptop")
    server = machine(tmp_path, monkeypatch, "server")
    laptop_project = laptop.project(tmp_path / "laptop" / "code" / "shop", "git@github.com:me/shop.git")
    server_project = server.project(tmp_path / "server" / "srv" / "work" / "shop", "https://github.com/me/shop")
    laptop_folder = _track(laptop, laptop_project, {"MEMORY.md": LAPTOP_MEMORY, "deploy.md": "# Deploy\n- main\n"},
                           remote, run_cli, monkeypatch)
    first = run_cli("sync", "--json")
    assert first.exit_code == 0, first.stderr
    assert json.loads(first.stdout)["created_branch"] is True
    assert json.loads(first.stdout)["branch"] == "apm-git/claude-code/github.com/me/shop"

    server_folder = _track(server, server_project, {"MEMORY.md": SERVER_MEMORY}, remote, run_cli, monkeypatch)
    assert server_folder.parent.name != laptop_folder.parent.name  # the slugs differ: the identity matches them
    wanted = _headings(laptop_folder) | _headings(server_folder)
    merged = run_cli("sync", "--json")
    assert merged.exit_code == 1, merged.stderr  # both machines began MEMORY.md's top: both versions are kept
    out = json.loads(merged.stdout)
    assert out["kind"] == "merge" and out["pushed"] and "deploy.md" in out["written"]
    assert out["conflicts"] and "CONFLICT" in merged.stderr
    assert _headings(server_folder) == wanted
    server_text = (server_folder / "MEMORY.md").read_text()
    for fact in ("- Use pnpm, not npm", "- Logs go to /var/log/shop", "- make deploy from main only",
                 "- nightly at 02:00"):
        assert fact in server_text

    laptop.use()
    monkeypatch.chdir(laptop_project)
    back = run_cli("sync", "--json")
    assert back.exit_code == 0, back.stderr
    assert json.loads(back.stdout)["kind"] == "fast-forward"
    assert files_of(laptop_folder) == files_of(server_folder)

    # Then each machine writes to a different section: both writes arrive, with no note to settle.
    write_files(laptop_folder, {"deploy.md": "# Deploy\n- main\n- tag every release\n"})
    assert run_cli("sync").exit_code == 0
    server.use()
    monkeypatch.chdir(server_project)
    settled = (server_folder / "MEMORY.md").read_text().replace("- Logs go to /var/log/shop\n",
                                                                "- Logs go to /var/log/shop (rotated daily)\n")
    write_files(server_folder, {"MEMORY.md": settled})
    again = run_cli("sync", "--json")
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["kind"] == "merge" and json.loads(again.stdout)["conflicts"] == []
    assert "- tag every release" in (server_folder / "deploy.md").read_text()
    assert "(rotated daily)" in (server_folder / "MEMORY.md").read_text()
    git_dir = server.data / json.loads(again.stdout)["tracked"]["id"]
    parents = history(git_dir.with_suffix(".git"), "log", "-1", "--format=%P").split()
    assert len(parents) == 2


def test_sync_needs_a_remote_and_an_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             run_cli: Invoke) -> None:
    laptop = machine(tmp_path, monkeypatch)
    project = laptop.project(tmp_path / "shop")  # no git remote: no identity
    laptop.claude_memory(project, {"MEMORY.md": LAPTOP_MEMORY})
    monkeypatch.chdir(project)
    assert run_cli("track", "claude-code", "--no-hooks").exit_code == 0
    no_remote = run_cli("sync")
    assert no_remote.exit_code == 3 and "--remote URL" in no_remote.stderr
    no_name = run_cli("sync", "--remote", str(tmp_path / "r.git"))
    assert no_name.exit_code == 3 and "--name NAME" in no_name.stderr
    assert run_cli("track", "claude-code", "--name", "shop", "--no-hooks").exit_code == 0
    unreachable = run_cli("sync", "--remote", str(tmp_path / "missing.git"))
    assert unreachable.exit_code == 3 and "nothing was changed" in unreachable.stderr
    branch = run_cli("sync", "--branch", "x", "--remote", str(tmp_path / "r.git"))
    assert branch.exit_code == 2 and "--branch and --gather" in branch.stderr


@pytest.mark.slow
def test_a_file_the_agent_changes_during_sync_is_never_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   run_cli: Invoke) -> None:
    """The folder differs from its snapshot where a file is withheld: sync stops before writing anything."""
    remote = tmp_path / "r.git"
    run_git(tmp_path, "init", "--bare", "--quiet", str(remote))
    laptop = machine(tmp_path, monkeypatch, "laptop")
    server = machine(tmp_path, monkeypatch, "server")
    a = _track(laptop, laptop.project(tmp_path / "a" / "shop", "git@github.com:me/shop.git"),
               {"MEMORY.md": LAPTOP_MEMORY, "keys.md": "# Keys\n- none yet\n"}, remote, run_cli, monkeypatch)
    assert run_cli("sync").exit_code == 0
    write_files(a, {"keys.md": "# Keys\n- none yet\n- rotated\n"})
    assert run_cli("sync").exit_code == 0
    b_project = server.project(tmp_path / "b" / "shop", "git@github.com:me/shop.git")
    b = _track(server, b_project, {"keys.md": "# Keys\n- deploy key AKIAQ7XK2M9PLD4RT6WZ\n"}, remote, run_cli,
               monkeypatch)
    before = files_of(b)
    ran = run_cli("sync")
    assert ran.exit_code == 3 and "keys.md changed in" in ran.stderr
    assert files_of(b) == before
