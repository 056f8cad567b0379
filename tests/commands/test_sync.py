"""`apm-git sync` against real remotes: a bare repository by path and a real `git daemon` on loopback."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Invoke
from tests.sync_helpers import bare_remote, clone, first_clone, git, git_daemon

NOW = "2026-05-04T10:00:00"


@pytest.fixture(params=["path", pytest.param("daemon", marks=pytest.mark.slow)])  # a real git daemon: slow
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty bare remote, by path or through `git daemon`."""
    remote = bare_remote(tmp_path)
    if request.param == "path":
        yield str(remote)
    else:
        with git_daemon(tmp_path) as prefix:
            yield prefix + remote.name


@pytest.fixture
def url_by_path(tmp_path: Path) -> str:
    return str(bare_remote(tmp_path))


def sync(run_cli: Invoke, root: Path, *args: str, now: str = NOW) -> tuple[int, str, str]:
    ran = run_cli("--repo", str(root), "sync", *args, env={"APM_GIT_NOW": now})
    return ran.exit_code, ran.stdout, ran.stderr


def add(run_cli: Invoke, root: Path, title: str, now: str = NOW) -> None:
    ran = run_cli("--repo", str(root), "journal", "add", f"{title}: what was learned", "--kind", "lesson",
                  "--title", title, env={"APM_GIT_NOW": now})
    assert ran.exit_code == 0, ran.stderr


def state(root: Path) -> tuple[str, str, str, str]:
    """HEAD, the index, the work tree's status and the remote-tracking refs: what sync may change."""
    return (git(root, "rev-parse", "HEAD"), git(root, "ls-files", "-s"), git(root, "status", "--porcelain"),
            git(root, "for-each-ref", "refs/remotes"))


def test_first_sync_pushes_sets_upstream_and_a_second_has_nothing_to_do(
    run_cli: Invoke, tmp_path: Path, url: str,
) -> None:
    laptop = first_clone(tmp_path / "laptop", url)
    add(run_cli, laptop, "first lesson")
    code, out, err = sync(run_cli, laptop)
    assert code == 0, err
    assert "flushed the memory" in out and "pushed" in out and "(created it)" in out
    assert "main now tracks origin/main" in out
    assert git(laptop, "config", "branch.main.remote").strip() == "origin"
    assert git(laptop, "config", "branch.main.merge").strip() == "refs/heads/main"
    head = git(laptop, "rev-parse", "HEAD").strip()
    assert git(laptop, "ls-remote", "origin", "refs/heads/main").split()[0] == head
    assert git(laptop, "status", "--porcelain") == ""
    code, out, err = sync(run_cli, laptop)
    assert (code, out.strip()) == (0, "apm-git: up to date with origin main"), err
    assert git(laptop, "rev-parse", "HEAD").strip() == head


@pytest.mark.slow
def test_the_other_clone_fast_forwards_and_keeps_staged_work(run_cli: Invoke, tmp_path: Path, url: str) -> None:
    laptop = first_clone(tmp_path / "laptop", url)
    assert sync(run_cli, laptop)[0] == 0
    server = clone(tmp_path / "server", url)
    (server / "notes.txt").write_text("the user's own file\n")
    git(server, "add", "notes.txt")
    (server / "README.md").write_text("edited, not staged\n")
    staged = git(server, "diff", "--cached")
    add(run_cli, laptop, "learned on the laptop")
    assert sync(run_cli, laptop)[0] == 0
    code, out, err = sync(run_cli, server)
    assert code == 0, err
    assert "fast-forwarded main to origin/main" in out
    assert git(server, "rev-parse", "HEAD") == git(laptop, "rev-parse", "HEAD")
    assert "learned on the laptop" in (server / "memory" / "2026-05-04.md").read_text()
    assert git(server, "diff", "--cached") == staged
    assert (server / "README.md").read_text() == "edited, not staged\n"
    assert git(server, "status", "--porcelain", "--", "memory", "apm.yaml") == ""
    assert not list(git(server, "for-each-ref", "refs/apm-git/backup").splitlines())  # a fast-forward needs none


def test_a_remote_that_vanished_exits_3_with_nothing_changed(run_cli: Invoke, tmp_path: Path, url_by_path: str) -> None:
    laptop = first_clone(tmp_path / "laptop", url_by_path)
    assert sync(run_cli, laptop)[0] == 0
    add(run_cli, laptop, "not yet flushed")
    before = state(laptop)
    Path(url_by_path).rename(tmp_path / "gone.git")
    code, out, err = sync(run_cli, laptop)
    assert code == 3 and out == ""
    assert "nothing was changed locally" in err and "Traceback" not in err
    assert state(laptop) == before
    assert "not yet flushed" in (laptop / "memory" / "2026-05-04.md").read_text()


def test_a_daemon_that_stopped_exits_3_with_nothing_changed(run_cli: Invoke, tmp_path: Path) -> None:
    remote = bare_remote(tmp_path)
    with git_daemon(tmp_path) as prefix:
        laptop = first_clone(tmp_path / "laptop", prefix + remote.name)
        assert sync(run_cli, laptop)[0] == 0
    add(run_cli, laptop, "not yet flushed")
    before = state(laptop)
    code, _, err = sync(run_cli, laptop)
    assert code == 3 and "nothing was changed locally" in err
    assert state(laptop) == before


def test_no_remote_at_all_exits_3_naming_the_fix(run_cli: Invoke, tmp_path: Path, url_by_path: str) -> None:
    laptop = first_clone(tmp_path / "laptop", url_by_path)
    git(laptop, "remote", "remove", "origin")
    head = git(laptop, "rev-parse", "HEAD")
    code, _, err = sync(run_cli, laptop)
    assert code == 3 and "no upstream and there is no remote named origin" in err and "git remote add" in err
    code, _, err = sync(run_cli, laptop, "--remote", "backup")
    assert code == 3 and "no remote named 'backup'" in err
    assert git(laptop, "rev-parse", "HEAD") == head


def test_the_upstream_remote_is_the_default_and_remote_overrides_it(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop = first_clone(tmp_path / "laptop", url_by_path)
    other = bare_remote(tmp_path, "other.git")
    git(laptop, "remote", "add", "mirror", str(other))
    code, out, _ = sync(run_cli, laptop, "--remote", "mirror")
    assert code == 0 and "pushed" in out and "now tracks mirror/main" in out
    add(run_cli, laptop, "goes to the upstream")
    assert sync(run_cli, laptop)[0] == 0  # the upstream (mirror) now, not origin
    assert git(laptop, "ls-remote", "mirror", "refs/heads/main").split()[0] == git(laptop, "rev-parse", "HEAD").strip()
    assert git(laptop, "ls-remote", "origin") == ""


def test_bad_options_and_a_detached_head(run_cli: Invoke, tmp_path: Path, url_by_path: str) -> None:
    laptop = first_clone(tmp_path / "laptop", url_by_path)
    code, _, err = sync(run_cli, laptop, "--branch", "bad..name")
    assert code == 2 and "--branch 'bad..name' is not a branch name" in err
    code, _, err = sync(run_cli, laptop, "--gather", "agents/**")
    assert code == 2 and "--gather" in err
    git(laptop, "checkout", "-q", "--detach")
    code, _, err = sync(run_cli, laptop)
    assert code == 3 and "HEAD is detached" in err
    assert git(laptop, "ls-remote", "origin") == ""


@pytest.mark.slow
def test_a_remote_change_to_a_file_the_user_edited_is_refused(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop = first_clone(tmp_path / "laptop", url_by_path)
    (laptop / "NOTES.txt").write_text("one\n")
    git(laptop, "add", "NOTES.txt")
    git(laptop, "commit", "-q", "-m", "notes")
    assert sync(run_cli, laptop)[0] == 0
    server = clone(tmp_path / "server", url_by_path)
    (laptop / "NOTES.txt").write_text("two\n")
    git(laptop, "commit", "-q", "-am", "notes: two")
    add(run_cli, laptop, "with the notes")
    assert sync(run_cli, laptop)[0] == 0
    (server / "NOTES.txt").write_text("my own edit\n")
    before = state(server)
    code, _, err = sync(run_cli, server)
    assert code == 3 and "NOTES.txt changed on the remote and here too" in err and "git stash" in err
    assert state(server)[:3] == before[:3]  # the fetch updated origin/main; nothing else moved
    assert (server / "NOTES.txt").read_text() == "my own edit\n"
    git(server, "checkout", "--", "NOTES.txt")  # the user drops the edit: sync takes the remote's
    code, out, err = sync(run_cli, server)
    assert code == 0 and "fast-forwarded" in out, err
    assert (server / "NOTES.txt").read_text() == "two\n"
    assert git(server, "status", "--porcelain") == ""


def test_json_output_has_a_version_and_every_field(run_cli: Invoke, tmp_path: Path, url_by_path: str) -> None:
    laptop = first_clone(tmp_path / "laptop", url_by_path)
    ran = run_cli("--repo", str(laptop), "sync", "--json", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["version"] == 1
    assert data["remote"] == "origin" and data["branch"] == "main" and data["local_branch"] == "main"
    assert data["pushed"] is True and data["created_branch"] is True and data["set_upstream"] is True
    assert data["push_attempts"] == 1 and data["integrated"] == [] and data["conflicts"] == []
    assert data["after"] == git(laptop, "rev-parse", "HEAD").strip()


def two_clones(run_cli: Invoke, tmp_path: Path, url: str) -> tuple[Path, Path]:
    laptop = first_clone(tmp_path / "laptop", url)
    assert sync(run_cli, laptop)[0] == 0
    return laptop, clone(tmp_path / "server", url)


def memory_tree(root: Path) -> str:
    return git(root, "rev-parse", "HEAD:memory").strip()


@pytest.mark.slow
def test_diverged_clones_merge_entry_by_entry_and_end_identical(run_cli: Invoke, tmp_path: Path, url: str) -> None:
    laptop, server = two_clones(run_cli, tmp_path, url)
    add(run_cli, laptop, "learned on the laptop")
    add(run_cli, server, "learned on the server")
    assert sync(run_cli, laptop)[0] == 0
    old_server = git(server, "rev-parse", "HEAD").strip()
    code, out, err = sync(run_cli, server)
    assert code == 0, err
    assert "merged origin/main as" in out and "pushed" in out
    parents = git(server, "rev-list", "--parents", "-n1", "HEAD").split()[1:]
    assert parents == [parents[0], git(laptop, "rev-parse", "HEAD").strip()]
    assert git(server, "merge-base", "--is-ancestor", old_server, parents[0]) == ""  # the flush came first
    backups = git(server, "for-each-ref", "--format=%(objectname)", "refs/apm-git/backup").split()
    assert backups == [parents[0]]
    journal = (server / "memory" / "2026-05-04.md").read_text()
    assert "learned on the laptop" in journal and "learned on the server" in journal
    assert "<<<<<<<" not in journal
    assert git(server, "status", "--porcelain") == ""
    code, out, err = sync(run_cli, laptop)
    assert code == 0 and "fast-forwarded" in out, err
    assert memory_tree(laptop) == memory_tree(server)
    git(server, "fsck", "--strict")
    subject = git(server, "log", "-1", "--format=%s%n%b")
    assert subject.startswith("memory: merge origin/main (sync)") and "Apm-Merge: origin/main" in subject


@pytest.mark.slow
def test_staged_work_and_edited_files_are_untouched_by_a_merge(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop, server = two_clones(run_cli, tmp_path, url_by_path)
    (laptop / "README.md").write_text("the laptop's readme\n")
    git(laptop, "add", "README.md")
    git(laptop, "commit", "-q", "-m", "readme")
    add(run_cli, laptop, "learned on the laptop")
    assert sync(run_cli, laptop)[0] == 0
    (server / "todo.txt").write_text("staged, not committed\n")
    git(server, "add", "todo.txt")
    (server / "scratch.txt").write_text("untracked\n")
    add(run_cli, server, "learned on the server")
    staged = git(server, "diff", "--cached")
    code, out, err = sync(run_cli, server)
    assert code == 0 and "merged" in out, err
    assert git(server, "diff", "--cached") == staged
    assert (server / "README.md").read_text() == "the laptop's readme\n"  # the remote's change, taken clean
    assert (server / "scratch.txt").read_text() == "untracked\n"
    assert git(server, "status", "--porcelain").splitlines() == ["A  todo.txt", "?? scratch.txt"]


@pytest.mark.slow
def test_both_sides_changed_a_file_outside_the_memory_exits_3_with_nothing_changed(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop, server = two_clones(run_cli, tmp_path, url_by_path)
    for root, text in ((laptop, "laptop\n"), (server, "server\n")):
        (root / "README.md").write_text(text)
        git(root, "add", "README.md")
        git(root, "commit", "-q", "-m", f"readme: {text.strip()}")
    assert sync(run_cli, laptop)[0] == 0
    add(run_cli, server, "learned on the server")
    git(server, "add", "-A", "memory")
    git(server, "commit", "-q", "-m", "memory by hand")
    before = state(server)
    code, _, err = sync(run_cli, server)
    assert code == 3 and "README.md" in err and "git merge origin/main" in err
    assert state(server)[:3] == before[:3]
    assert not git(server, "for-each-ref", "refs/apm-git/backup")


def pre_push(clone: Path, script: str) -> None:
    """A real pre-push hook in `clone` that runs `script` (sh) and lets the push go on."""
    hook = clone / ".git" / "hooks" / "pre-push"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\n{script}\nexit 0\n")
    hook.chmod(0o755)


@pytest.mark.slow
def test_a_push_rejected_mid_sync_fetches_merges_and_pushes_again(
    run_cli: Invoke, tmp_path: Path, url: str,
) -> None:
    laptop, server = two_clones(run_cli, tmp_path, url)
    add(run_cli, server, "learned on the server")
    assert run_cli("--repo", str(server), "flush", env={"APM_GIT_NOW": NOW}).exit_code == 0
    # Between the laptop's fetch and its push, the server pushes (once): the laptop's push is rejected.
    pre_push(laptop, f"if [ ! -e {tmp_path}/raced ]; then touch {tmp_path}/raced; "
                     f"cd {server} && git push -q origin HEAD:main; fi")
    add(run_cli, laptop, "learned on the laptop")
    ran = run_cli("--repo", str(laptop), "--json", "sync", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["push_attempts"] == 2 and data["pushed"] is True
    assert [step["kind"] for step in data["integrated"]] == ["merge"]
    assert git(laptop, "ls-remote", "origin", "refs/heads/main").split()[0] == data["after"]
    journal = (laptop / "memory" / "2026-05-04.md").read_text()
    assert "learned on the laptop" in journal and "learned on the server" in journal


def edited_on_both_sides(run_cli: Invoke, tmp_path: Path, url: str) -> tuple[Path, Path, str]:
    """One journal entry whose body the laptop and the server changed differently; the laptop has pushed.
    The clones, and the commit both started from."""
    laptop = first_clone(tmp_path / "laptop", url)
    add(run_cli, laptop, "shared lesson")
    assert sync(run_cli, laptop)[0] == 0
    base = git(laptop, "rev-parse", "HEAD").strip()
    server = clone(tmp_path / "server", url)
    for root, text in ((laptop, "the laptop's version"), (server, "the server's version")):
        path = root / "memory" / "2026-05-04.md"
        path.write_text(path.read_text().replace("shared lesson: what was learned", text))
    assert sync(run_cli, laptop)[0] == 0
    return laptop, server, base


@pytest.mark.slow
def test_a_conflict_is_kept_for_a_person_committed_pushed_and_exits_1(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    _, server, _ = edited_on_both_sides(run_cli, tmp_path, url_by_path)
    journal = "memory/2026-05-04.md"
    code, out, err = sync(run_cli, server)
    assert code == 1, err
    assert "CONFLICT" in err and "2026-05-04-shared-lesson" in err
    assert "pushed" in out
    assert git(server, "ls-remote", "origin", "refs/heads/main").split()[0] == git(server, "rev-parse", "HEAD").strip()
    text = (server / journal).read_text()
    assert "the laptop's version" in text and "the server's version" in text and "Conflicts:" in text
    assert "<<<<<<<" not in text and ">>>>>>>" not in text


@pytest.mark.slow
def test_one_branch_per_agent_and_a_consolidating_agent(run_cli: Invoke, tmp_path: Path, url_by_path: str) -> None:
    hub = first_clone(tmp_path / "hub", url_by_path)
    assert sync(run_cli, hub)[0] == 0
    agents = {name: clone(tmp_path / name, url_by_path) for name in ("ada", "bob")}
    for name, root in agents.items():
        add(run_cli, root, f"learned by {name}")
        code, out, err = sync(run_cli, root, "--branch", f"agents/{name}", "--gather", "main")
        assert code == 0 and "pushed" in out and f"origin agents/{name}" in out, err
        assert git(root, "config", "branch.main.merge").strip() == "refs/heads/main"  # its upstream is kept
    assert git(hub, "ls-remote", "origin", "refs/heads/main").split()[0] == git(hub, "rev-parse", "HEAD").strip()
    code, out, err = sync(run_cli, hub, "--gather", "agents/*")
    assert code == 0, err
    assert "origin/agents/ada" in out and "origin/agents/bob" in out
    journal = (hub / "memory" / "2026-05-04.md").read_text()
    assert "learned by ada" in journal and "learned by bob" in journal
    for name, root in agents.items():
        assert sync(run_cli, root, "--branch", f"agents/{name}", "--gather", "main")[0] == 0
        assert memory_tree(root) == memory_tree(hub)


def test_a_git_merge_in_progress_is_left_alone(run_cli: Invoke, tmp_path: Path, url_by_path: str) -> None:
    laptop = first_clone(tmp_path / "laptop", url_by_path)
    (laptop / ".git" / "MERGE_HEAD").write_text(git(laptop, "rev-parse", "HEAD"))
    code, _, err = sync(run_cli, laptop)
    assert code == 3 and "a git merge is in progress here (MERGE_HEAD)" in err
    assert git(laptop, "ls-remote", "origin") == ""


@pytest.mark.slow
def test_a_sync_killed_while_bringing_the_work_tree_over_is_finished_by_the_next_command(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    import subprocess
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import faults

    if (why := faults.strace_works()) is not None:
        pytest.skip(f"no strace kill points: {why}")
    laptop, server = two_clones(run_cli, tmp_path, url_by_path)
    (laptop / "NOTES.txt").write_text("from the laptop\n")
    git(laptop, "add", "NOTES.txt")
    git(laptop, "commit", "-q", "-m", "notes")
    add(run_cli, laptop, "learned on the laptop")
    assert sync(run_cli, laptop)[0] == 0
    points = faults.kill_points(server, "sync", tmp_path)  # an undisturbed traced run, on a copy
    point = next(point for point in points if point.syscall.startswith("rename") and "NOTES.txt" in point.what)
    proc = subprocess.run(
        ("strace", "-qq", "-o", "/dev/null", "-e", f"trace={point.syscall}", "-e",
         f"inject={point.syscall}:signal=SIGKILL:when={point.ordinal}", "--", *faults.APM, "sync"),
        cwd=server, env=faults.env(), capture_output=True, check=False,
    )
    assert proc.returncode in (-9, 137), proc.stderr
    assert git(server, "rev-parse", "HEAD") == git(laptop, "rev-parse", "HEAD")  # the branch had moved
    assert not (server / "NOTES.txt").exists() and (server / ".git/apm-git/commit-journal.json").exists()
    status = run_cli("--repo", str(server), "status")
    assert "finished `memory: fast-forward to origin/main (sync)`" in status.stderr
    assert (server / "NOTES.txt").read_text() == "from the laptop\n"
    assert "learned on the laptop" in (server / "memory" / "2026-05-04.md").read_text()
    assert git(server, "status", "--porcelain") == ""


def test_a_section_the_flush_withholds_stays_out_and_is_named(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    from tests.checks.test_no_secrets import SECRETS

    laptop = first_clone(tmp_path / "laptop", url_by_path)
    assert sync(run_cli, laptop)[0] == 0
    lessons = laptop / "memory" / "lessons.md"
    fitness = "- Fitness: last_referenced=2026-05-04, hit_count=0, decision_value=MEDIUM\n"
    clean = f"## [2026-05-04] Shared lesson\n- Tags: lesson\n{fitness}- Body: retry the deploy once.\n"
    secret = f"## [2026-05-04] Deploy token\n- Tags: tool\n{fitness}- Body: {SECRETS['GitHub Token']}\n"
    text = lessons.read_text().rstrip("\n") + "\n\n" + clean + "\n" + secret
    lessons.write_text(text)
    line = text.splitlines().index(f"- Body: {SECRETS['GitHub Token']}") + 1
    code, out, err = sync(run_cli, laptop, "--json")
    assert code == 0, err
    # flush's own words: the section is withheld, the rest of the file is committed and shared
    assert err.splitlines() == [
        f"apm-git: WARNING: memory/lessons.md:{line}: the section \"[2026-05-04] Deploy token\" holds what looks "
        "like a credential (GitHub Token), so it was NOT committed (the rest of the file was); it stays on disk as "
        "it is: remove the secret and note where it lives instead, or if it is not one, `apm-git allow-secret "
        f"memory/lessons.md:{line}`; then flush again"]
    assert json.loads(out)["withheld_sections"] == [
        {"path": "memory/lessons.md", "line": line, "heading": "[2026-05-04] Deploy token", "kinds": ["GitHub Token"]}]
    shared = git(laptop, "show", "origin/main:memory/lessons.md")
    assert SECRETS["GitHub Token"] not in shared and "retry the deploy once" in shared
    assert lessons.read_text() == text  # left on disk, as flush leaves it


@pytest.mark.slow
def test_a_push_that_keeps_losing_the_race_gives_up_after_5_rounds_with_exit_3(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop, server = two_clones(run_cli, tmp_path, url_by_path)
    pre_push(laptop, f"echo x >> {tmp_path}/pushes\n"
                     f"cd {server} && git commit -q --allow-empty -m race && git push -q origin HEAD:main")
    add(run_cli, laptop, "learned on the laptop")
    code, out, err = sync(run_cli, laptop)
    assert code == 3 and out == ""
    assert "rejected the push 5 times" in err and "--branch agents/NAME --gather main" in err
    assert (tmp_path / "pushes").read_text().count("x") == 5
    assert git(laptop, "ls-remote", "origin", "refs/heads/main").split()[0] == git(server, "rev-parse", "HEAD").strip()
    merged = git(laptop, "log", "--merges", "--format=%s")
    # round 1 had nothing to merge (only the laptop had moved); rounds 2-5 merged what they fetched, kept locally
    assert merged.count("memory: merge origin/main (sync)") == 4
    assert "learned on the laptop" in git(laptop, "show", "HEAD:memory/2026-05-04.md")


@pytest.mark.slow
def test_the_merge_runs_in_process_not_through_a_registered_merge_driver(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop, server = two_clones(run_cli, tmp_path, url_by_path)
    git(server, "config", "merge.apm-memory.driver", f"echo called >> {tmp_path}/driver; exit 1")
    add(run_cli, laptop, "learned on the laptop")
    add(run_cli, server, "learned on the server")
    assert sync(run_cli, laptop)[0] == 0
    code, out, err = sync(run_cli, server)
    assert code == 0 and "merged" in out, err
    assert not (tmp_path / "driver").exists()
    journal = (server / "memory" / "2026-05-04.md").read_text()
    assert "learned on the laptop" in journal and "learned on the server" in journal


@pytest.mark.slow
def test_a_memory_file_that_is_not_text_changed_on_both_sides_stops_the_merge(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    laptop = first_clone(tmp_path / "laptop", url_by_path)
    (laptop / "memory" / "photo.bin").write_bytes(b"\xff\xfe base")
    assert sync(run_cli, laptop)[0] == 0
    server = clone(tmp_path / "server", url_by_path)
    (laptop / "memory" / "photo.bin").write_bytes(b"\xff\xfe laptop")
    (server / "memory" / "photo.bin").write_bytes(b"\xff\xfe server")
    assert sync(run_cli, laptop)[0] == 0
    code, _, err = sync(run_cli, server)
    assert code == 3 and "memory/photo.bin" in err and "git merge origin/main" in err
    assert (server / "memory" / "photo.bin").read_bytes() == b"\xff\xfe server"
    assert git(server, "rev-list", "--merges", "--count", "HEAD").strip() == "0"



@pytest.mark.slow
def test_lint_passes_after_a_merge_that_kept_both_versions(run_cli: Invoke, tmp_path: Path, url_by_path: str) -> None:
    _, server, base = edited_on_both_sides(run_cli, tmp_path, url_by_path)
    assert sync(run_cli, server)[0] == 1
    ran = run_cli("--repo", str(server), "lint", "--from-ref", base, "--to-ref", "HEAD")
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert "1 merge commit(s) against each parent" in ran.stderr
    status = run_cli("--repo", str(server), "status")
    assert "Entries in conflict: 2" in status.stdout
    assert "2026-05-04-shared-lesson" in status.stdout
    index = (server / "memory" / "INDEX.md").read_text()  # rebuilt from the merged files: the journal's conflict
    assert "| 2026-05-04-shared-lesson | 2026-05-04.md | 2026-05-04-shared-lesson-merge-other-version — " in index


def decision(day: str, title: str, value: str = "MEDIUM") -> str:
    return (f"## [{day}] {title}\n- Tags: decision\n"
            f"- Fitness: last_referenced={day}, hit_count=0, decision_value={value}\n- Body: {title}, and why.\n\n")


def over_budget_by_a_merge(
    run_cli: Invoke, tmp_path: Path, url: str, budget: int = 30, *, laptop_sets: int | None = None,
) -> tuple[Path, Path, str]:
    """decisions.md with a budget of 30 lines: 25 on each side, 35 in their union (with `laptop_sets`, the
    laptop changes that budget in apm.yaml along with its two decisions)."""
    laptop = first_clone(tmp_path / "laptop", url)
    config = laptop / "apm.yaml"
    config.write_text(config.read_text().replace("decisions.md: 200", f"decisions.md: {budget}"))
    decisions = laptop / "memory" / "decisions.md"
    decisions.write_text(decisions.read_text() + decision("2026-01-10", "An old choice", "LOW")
                         + decision("2026-04-20", "Use uv"))
    assert sync(run_cli, laptop)[0] == 0
    base = git(laptop, "rev-parse", "HEAD").strip()
    server = clone(tmp_path / "server", url)
    if laptop_sets is not None:
        config.write_text(config.read_text().replace(f"decisions.md: {budget}", f"decisions.md: {laptop_sets}"))
    for root, side in ((laptop, "laptop"), (server, "server")):
        path = root / "memory" / "decisions.md"
        path.write_text(path.read_text() + decision("2026-05-01", f"Chosen on the {side}")
                        + decision("2026-05-02", f"Also chosen on the {side}", "HIGH"))
        assert len(path.read_text().splitlines()) == 25
    assert sync(run_cli, laptop)[0] == 0
    return laptop, server, base


@pytest.mark.slow
def test_a_merge_that_puts_a_file_over_its_budget_archives_its_lowest_scored_entries_in_the_merge(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    from apm_git.commands.history import history
    from apm_git.store.repo import open_repo

    laptop, server, base = over_budget_by_a_merge(run_cli, tmp_path, url_by_path)
    ran = run_cli("--repo", str(server), "--json", "sync", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    step = json.loads(ran.stdout)["integrated"][0]
    archive = "memory/archive/2026-05.md"
    assert step["kind"] == "merge"
    assert step["archived"] == [f"2026-01-10-an-old-choice memory/decisions.md -> {archive} (score 0)"]
    text = sync(run_cli, server)[1]  # nothing left to do; the text output of the merge is tested below
    assert "up to date" in text
    merge_commit = step["commit"]
    assert git(server, "rev-parse", "HEAD").strip() == merge_commit
    assert len(git(server, "rev-list", "--parents", "-n1", merge_commit).split()) == 3  # in the merge commit itself
    decisions = git(server, "show", f"{merge_commit}:memory/decisions.md")
    assert len(decisions.splitlines()) == 30 and "An old choice" not in decisions
    for title in ("Use uv", "Chosen on the laptop", "Chosen on the server", "Also chosen on the server"):
        assert title in decisions
    archived = git(server, "show", f"{merge_commit}:{archive}")
    assert "## [2026-01-10] An old choice" in archived
    assert ("- Archived: 2026-05-04 (fitness score: 0, last_referenced: 2026-01-10, from memory/decisions.md)"
            in archived)
    message = git(server, "log", "-1", "--format=%B", merge_commit)
    assert f"Apm-Archive: 2026-01-10-an-old-choice memory/decisions.md -> {archive} (score 0)" in message
    assert "Apm-Trigger: sync" in message
    assert "The merge put memory/decisions.md over its line budget: its 1 lowest-scored entry archived" in message
    # Recorded as REM records it: history finds the archival, diff lists it as archived (not lost), lint is clean.
    events = history(open_repo(server), "2026-01-10-an-old-choice")
    assert (events[-1].what, events[-1].commit, events[-1].file) == ("archived", merge_commit[:12], archive)
    diff = run_cli("--repo", str(server), "--json", "diff", f"{base}..HEAD")
    assert diff.exit_code == 0, diff.stdout + diff.stderr
    statuses = {entry["id"]: entry["status"] for entry in json.loads(diff.stdout)["entries"]}
    assert statuses["2026-01-10-an-old-choice"] == "archived"
    for root in (server, laptop):
        if root == laptop:
            assert sync(run_cli, laptop)[0] == 0  # the laptop fast-forwards to the merge
        ran = run_cli("--repo", str(root), "--json", "lint", "--from-ref", base, "--to-ref", "HEAD")
        assert ran.exit_code == 0 and json.loads(ran.stdout)["findings"] == [], ran.stdout
        ran = run_cli("--repo", str(root), "--json", "lint", "--from-ref", f"{merge_commit}^", "--to-ref", merge_commit)
        assert ran.exit_code == 0 and json.loads(ran.stdout)["findings"] == [], ran.stdout


@pytest.mark.slow
def test_the_text_output_of_sync_names_what_the_budget_step_archived(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    _, server, _ = over_budget_by_a_merge(run_cli, tmp_path, url_by_path)
    code, out, err = sync(run_cli, server)
    assert code == 0, err
    assert ("apm-git: archived 2026-01-10-an-old-choice memory/decisions.md -> memory/archive/2026-05.md (score 0): "
            "the merge put memory/decisions.md over its line budget") in out


@pytest.mark.slow
def test_a_file_both_sides_had_over_its_budget_is_left_to_rem(
    run_cli: Invoke, tmp_path: Path, url_by_path: str,
) -> None:
    _, server, _ = over_budget_by_a_merge(run_cli, tmp_path, url_by_path, budget=24)
    ran = run_cli("--repo", str(server), "--json", "sync", env={"APM_GIT_NOW": NOW})
    assert ran.exit_code == 0, ran.stderr
    assert json.loads(ran.stdout)["integrated"][0]["archived"] == []
    assert len((server / "memory" / "decisions.md").read_text().splitlines()) == 35
    assert not (server / "memory" / "archive" / "2026-05.md").exists()
