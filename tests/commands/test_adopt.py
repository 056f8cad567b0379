"""Adopting a workspace: `init` in a folder that already holds memory, with or without git (docs/adopting.md)."""
from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from apm_git.model import index_md
from tests.conftest import Invoke, git, run_apm

OWN_INDEX = "# memory/INDEX.md\n\n- 2026-02-12 | memory/2026-02-12.md | NEVER run clawdbot daemon stop\n"
OWN_ARCHIVE = "# March\n\nOld notes the user archived by hand.\n"
JOURNAL = "# 2026-02-12\n\n## Morning\n\nTalked about the deploy.\n"
PEOPLE = "# People\n\n## Alice\n\nPrefers short answers.\n"
RNG = random.Random(11)


def token() -> str:
    """A GitHub-shaped token made of random characters: no real credential is ever written down."""
    return "ghp_" + "".join(RNG.choice(string.ascii_letters + string.digits) for _ in range(36))


def workspace(root: Path, *, secret: bool = False) -> dict[str, bytes]:
    """An agent workspace as a person left it: memory files, MEMORY.md, and other work apm-git must not touch."""
    files = {
        "MEMORY.md": "# Memory\n\n- I am the agent.\n",
        "memory/INDEX.md": OWN_INDEX,
        "memory/2026-02-12.md": JOURNAL,
        "memory/people.md": PEOPLE,
        "memory/archive/2026-03.md": OWN_ARCHIVE,
        "AGENTS.md": "# Agents\n",
        "src/app.py": "print('hi')\n",
    }
    if secret:
        files["memory/tools.md"] = f"# Tools\n\nCI pushes with {token()}\n"
    written = {}
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
        written[rel] = text.encode()
    return written


def init(run_cli: Invoke, root: Path) -> str:
    ran = run_cli("init", "--no-install", str(root))
    assert ran.exit_code == 0, ran.stderr
    return ran.stdout + ran.stderr


def lint_all(run_cli: Invoke, root: Path) -> int:
    return run_cli("--repo", str(root), "lint", "--all").exit_code


def assert_kept(root: Path, commit: str = "HEAD") -> None:
    """The person's INDEX.md is in kept/ as it was, moved by a rename git sees, and listed in the new index."""
    assert (root / "memory/kept/INDEX.md").read_text() == OWN_INDEX
    moves = git(root, "show", "--format=", "--name-status", "-M", commit)
    assert "R100\tmemory/INDEX.md\tmemory/kept/INDEX.md" in moves or (
        "A\tmemory/kept/INDEX.md" in moves and git(root, "log", "--follow", "--format=%h", "--", "memory/kept/INDEX.md")
    )
    generated = (root / "memory/INDEX.md").read_text()
    assert index_md.generated(generated) and "| kept/INDEX.md |" in generated


def test_adopting_a_plain_folder_commits_the_files_as_found_then_the_layout(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "ws"
    found = workspace(root)
    said = init(run_cli, root)
    assert "memory: adopt 5 file(s) as found" in said and "kept your memory/INDEX.md as memory/kept/INDEX.md" in said
    subjects = git(root, "log", "--format=%s").splitlines()
    assert subjects == ["memory: init", "memory: adopt 5 files as found"]
    first = set(git(root, "show", "--format=", "--name-only", "HEAD~1").split())
    assert first == {"MEMORY.md", "memory/INDEX.md", "memory/2026-02-12.md", "memory/people.md",
                     "memory/archive/2026-03.md", "memory/apm-baseline.json"}
    for rel in first - {"memory/apm-baseline.json"}:
        assert git(root, "show", f"HEAD~1:{rel}").encode() == found[rel], rel
    assert git(root, "status", "--porcelain", "--", "AGENTS.md", "src").startswith("??"), "other work is untouched"
    assert_kept(root)
    assert (root / "memory/archive/2026-03.md").read_bytes() == found["memory/archive/2026-03.md"]
    assert (root / "memory/people.md").read_bytes() == found["memory/people.md"], "a template never replaces it"
    assert lint_all(run_cli, root) == 0
    for commit in ("HEAD",):  # the root commit has no parent to compare with
        assert run_cli("--repo", str(root), "lint", "--from-ref", f"{commit}~1", "--to-ref", commit).exit_code == 0


def test_adopting_a_git_repository_with_the_files_committed(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "ws"
    found = workspace(root)
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "the agent's own history")
    init(run_cli, root)
    assert git(root, "log", "--format=%s").splitlines() == ["memory: init", "the agent's own history"]
    assert_kept(root)
    assert git(root, "show", "HEAD~1:memory/INDEX.md").encode() == found["memory/INDEX.md"]
    assert lint_all(run_cli, root) == 0
    assert run_cli("--repo", str(root), "lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD").exit_code == 0


@pytest.mark.slow
def test_init_then_copying_the_files_in_never_loses_the_persons_index(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "ws"
    init(run_cli, root)
    found = workspace(root)
    ran = run_cli("--repo", str(root), "flush")
    assert ran.exit_code == 0, ran.stderr
    assert "kept your own INDEX.md as memory/kept/INDEX.md" in ran.stdout
    assert_kept(root)
    assert git(root, "status", "--porcelain", "--", "memory").strip() == ""
    assert (root / "memory/people.md").read_bytes() == found["memory/people.md"]

    # `init` again in the initialized memory commits nothing of the person's (issue 23.5): what was copied
    # in since is the next flush's, checked as any write is (its findings are not baselined).
    (root / "memory/2026-02-13.md").write_text("# 2026-02-13\n\n## [2026-02-13] Half a record\n- Tags: decision\n")
    head = git(root, "rev-parse", "HEAD")
    assert "already initialized: nothing changed" in init(run_cli, root)
    assert git(root, "rev-parse", "HEAD") == head
    assert git(root, "status", "--porcelain", "--", "memory/2026-02-13.md").startswith("??")
    assert run_cli("--repo", str(root), "flush").exit_code == 0
    assert "| 2026-02-13 |" in git(root, "show", "HEAD:memory/INDEX.md")
    assert lint_all(run_cli, root) == 1  # the half record, a finding of a write after adoption


def test_index_never_overwrites_an_index_the_person_wrote(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "ws"
    init(run_cli, root)
    (root / "memory/INDEX.md").write_text(OWN_INDEX)
    (root / "memory/kept").mkdir()
    (root / "memory/kept/INDEX.md").write_text("taken\n")
    assert run_cli("--repo", str(root), "index").exit_code == 0
    assert (root / "memory/kept/INDEX-2.md").read_text() == OWN_INDEX
    assert (root / "memory/kept/INDEX.md").read_text() == "taken\n"
    assert "| kept/INDEX-2.md |" in (root / "memory/INDEX.md").read_text()


def test_a_state_file_apm_git_cannot_read_is_kept_and_a_fresh_one_made(tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "memory/flush-state.json").write_text('["the agent\'s own list"]\n')
    init(run_cli, root)
    assert (root / "memory/kept/flush-state.json").read_text() == '["the agent\'s own list"]\n'
    assert json.loads((root / "memory/flush-state.json").read_text())["pending_items"] == []
    assert run_cli("--repo", str(root), "flush").exit_code == 0
    assert lint_all(run_cli, root) == 0


@pytest.mark.slow
def test_a_suspected_secret_is_withheld_at_adoption_and_a_marked_false_positive_is_committed(
    tmp_path: Path, run_cli: Invoke,
) -> None:
    root = tmp_path / "ws"
    workspace(root, secret=True)
    said = init(run_cli, root)
    assert "memory/tools.md looks like it holds a secret, so it was NOT committed" in said
    assert "memory/tools.md" not in git(root, "ls-files")
    assert "Apm-Withheld: memory/tools.md" in git(root, "log", "--format=%B", "HEAD~1", "-1")
    assert token()[:4] not in git(root, "show", "HEAD:memory/INDEX.md")
    assert lint_all(run_cli, root) == 0, "known from the baseline"
    status = run_cli("--repo", str(root), "status").stdout
    assert "Withheld from every commit (suspected secrets): 1 line(s)\n  memory/tools.md:3" in status

    ran = run_cli("--repo", str(root), "dream")
    assert ran.exit_code == 0, ran.stderr
    assert "left out memory/tools.md: it holds a section with a suspected secret" in ran.stdout
    assert "apm-git allow-secret PATH:LINE" in ran.stdout
    assert "memory/tools.md" not in git(root, "ls-files")

    ran = run_cli("--repo", str(root), "allow-secret", "memory/tools.md:3")
    assert ran.exit_code == 0, ran.stderr
    assert "marked 1 suspected secret(s) as false positives" in ran.stdout
    ran = run_cli("--repo", str(root), "flush")
    assert ran.exit_code == 0 and "NOT committed" not in ran.stderr
    assert {"memory/tools.md", "memory/apm-baseline.json"} <= set(git(root, "ls-files").split())
    assert '"false_positive": true' in (root / "memory/apm-baseline.json").read_text()
    assert "Withheld" not in run_cli("--repo", str(root), "status").stdout


@pytest.mark.parametrize(("spot", "says"), [
    ("memory/people.md:3", "memory/people.md:3: no suspected secret on that line"),
    ("memory/people.md", "expected PATH:LINE"),
    ("memory/people.md:0", "expected PATH:LINE"),
    ("memory/nothing.md:1", "no such memory file"),
])
def test_allow_secret_refuses_a_spot_without_a_suspected_secret(
    tmp_path: Path, run_cli: Invoke, spot: str, says: str,
) -> None:
    root = tmp_path / "ws"
    workspace(root)
    init(run_cli, root)
    before = (root / "memory/apm-baseline.json").read_bytes() if (root / "memory/apm-baseline.json").exists() else None
    ran = run_cli("--repo", str(root), "allow-secret", spot)
    assert ran.exit_code == 2 and says in ran.stderr and ran.stderr.count("\n") == 1
    after = (root / "memory/apm-baseline.json").read_bytes() if (root / "memory/apm-baseline.json").exists() else None
    assert after == before


@pytest.mark.slow
def test_a_baseline_that_cannot_be_read_stops_lint_with_one_line_and_flush_still_saves(
    tmp_path: Path, run_cli: Invoke,
) -> None:
    root = tmp_path / "ws"
    workspace(root)
    init(run_cli, root)
    (root / "memory/apm-baseline.json").write_text("{ not json")
    ran = run_cli("--repo", str(root), "lint", "--all")
    assert ran.exit_code == 3 and "memory/apm-baseline.json: not valid JSON" in ran.stderr
    (root / "memory/2026-02-12.md").write_text(JOURNAL + "More.\n")
    ran = run_cli("--repo", str(root), "flush")
    assert ran.exit_code in (0, 1) and "not valid JSON" in ran.stderr and "flushed" in ran.stdout
    assert git(root, "status", "--porcelain", "--", "memory/2026-02-12.md") == ""


@pytest.mark.slow
def test_the_hooks_report_only_what_is_new_after_adoption(tmp_path: Path) -> None:
    from apm_git.commands.init import init as init_repo
    from tests.checks.test_hooks import commit

    root = tmp_path / "ws"
    workspace(root)
    broken = "## [2026-02-12] Half a record\n- Tags: decision\n"
    (root / "memory/2026-02-12.md").write_text(JOURNAL + "\n" + broken)
    result = init_repo(root)
    assert result.hooks_installed, result.warning
    journal = root / "memory/2026-02-12.md"
    journal.write_text("A line on top.\n" + journal.read_text())
    ran = commit(root, "an edit next to a finding the workspace already held")
    assert ran.exit_code == 0, ran.stdout
    journal.write_text(journal.read_text() + "\n## [2026-02-13] Another half\n- Tags: decision\n")
    ran = commit(root, "a new malformed record")
    assert ran.exit_code == 1 and "memory/2026-02-12.md:" in ran.stdout and "apm-record-format" in ran.stdout


@pytest.mark.slow
@pytest.mark.parametrize("bad", [
    "# Lessons\n\nsaved by a Windows editor\n".encode("utf-16"),  # UTF-16 with its BOM
    b"# Lessons\n\nLatin-1 caf\xe9\n",  # invalid UTF-8
])
def test_adoption_is_all_or_nothing_and_a_second_init_finishes_it(tmp_path: Path, bad: bytes) -> None:
    """Issue 22.11: a file adoption cannot read is reported before anything is written or committed; once it
    is re-saved, the next init adopts and lays out everything, as a first init would."""
    root = tmp_path / "ws"
    found = workspace(root)
    (root / "memory/lessons.md").write_bytes(bad)
    before = sorted(path.relative_to(root).as_posix() for path in root.rglob("*"))
    proc = run_apm("init", "--no-install", str(root), cwd=tmp_path)
    assert proc.exit_code == 3 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("apm-git: memory/lessons.md:") and "not valid UTF-8" in proc.stderr
    assert "nothing was adopted or committed" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(path.relative_to(root).as_posix() for path in root.rglob("*")) == before, "nothing written"
    (root / "memory/lessons.md").write_text("# Lessons\n\nre-saved as UTF-8\n", encoding="utf-8")
    ran = run_apm("init", "--no-install", str(root), cwd=tmp_path)
    assert ran.exit_code == 0, ran.stderr
    assert git(root, "log", "--format=%s").splitlines() == ["memory: init", "memory: adopt 6 files as found"]
    assert git(root, "show", "HEAD~1:memory/people.md").encode() == found["memory/people.md"]
    assert git(root, "config", "merge.apm-memory.driver")
    assert git(root, "status", "--porcelain", "--", "memory", "apm.yaml").strip() == ""


@pytest.mark.slow
def test_init_after_an_adoption_that_stopped_half_way_finishes_the_layout(tmp_path: Path) -> None:
    """A first init that committed the files as found and stopped there (a kill, an older apm-git): the next
    init lays out the rest, and registers the merge driver."""
    root = tmp_path / "ws"
    workspace(root)
    git(root, "init", "--quiet")
    git(root, "add", "memory", "MEMORY.md")
    git(root, "commit", "--quiet", "-m", "memory: adopt 5 files as found")
    ran = run_apm("init", "--no-install", str(root), cwd=tmp_path)
    assert ran.exit_code == 0, ran.stderr
    assert git(root, "log", "--format=%s").splitlines() == ["memory: init", "memory: adopt 5 files as found"]
    assert git(root, "cat-file", "-e", "HEAD:apm.yaml") == "" and git(root, "config", "merge.apm-memory.driver")
    assert run_apm("lint", "--all", cwd=root).exit_code == 0


@pytest.mark.slow
def test_init_in_an_initialized_memory_commits_nothing_but_its_own_files(tmp_path: Path) -> None:
    """Issue 23.5: the person's pending edits (an edit, a deletion, a new file) stay theirs, uncommitted;
    what init itself lays out again (a file whose deletion was committed) is all its commit holds."""
    root = tmp_path / "ws"
    assert run_apm("init", "--no-install", str(root), cwd=tmp_path).exit_code == 0
    with (root / "memory/lessons.md").open("a", encoding="utf-8") as handle:
        handle.write("\nan edit in progress\n")
    (root / "memory/people.md").unlink()
    (root / "memory/2026-02-13.md").write_text(JOURNAL.replace("02-12", "02-13"), encoding="utf-8")
    pending = git(root, "status", "--porcelain")
    head = git(root, "rev-parse", "HEAD")
    again = run_apm("init", "--no-install", str(root), cwd=tmp_path)
    assert again.exit_code == 0 and "already initialized: nothing changed" in again.stdout, again.stdout
    assert git(root, "rev-parse", "HEAD") == head and git(root, "status", "--porcelain") == pending
    git(root, "rm", "--quiet", "memory/tools-config.md", "memory/INDEX.md")
    git(root, "commit", "--quiet", "--no-verify", "-m", "drop tools-config and the index")
    pending = git(root, "status", "--porcelain")
    layout = run_apm("init", "--no-install", str(root), cwd=tmp_path)
    assert layout.exit_code == 0 and "created memory/tools-config.md" in layout.stdout, layout.stdout
    assert git(root, "show", "--name-only", "--format=%s", "HEAD").strip().split("\n") == [
        "memory: init", "", "memory/INDEX.md", "memory/tools-config.md"]
    assert "2026-02-13" not in git(root, "show", "HEAD:memory/INDEX.md"), "the index describes the commit"
    assert git(root, "status", "--porcelain") == pending
    assert run_apm("lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD", cwd=root).exit_code == 0
