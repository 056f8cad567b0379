"""A flush never commits the deletion of a memory file by hand (issue 13): most agent memory is
free-form Markdown, so a whole file gone from the work tree stays committed unless `git rm` staged it."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import git, run_apm
from tests.realworld import real_case

NOW = {"APM_GIT_NOW": "2026-04-06T10:00:00+00:00"}
MACHINE = ("memory/INDEX.md", "memory/flush-state.json")  # rebuilt and rewritten by every flush
NOTES = {
    "memory/people/alice.md": "# Alice\n\nPrefers async reviews.\n\n## Projects\n- payments\n",
    "memory/projects/payments.md": "# Payments\n\nStripe webhooks retry for 3 days.\n",
    "memory/runbook.md": "# Runbook\n\n1. Restart the worker.\n2. Check the queue.\n",
}


def tracked(root: Path) -> dict[str, str]:
    """Blob id of every memory file at HEAD but the machine-made ones."""
    listing = git(root, "ls-tree", "-r", "HEAD", "--", "memory").splitlines()
    blobs = {line.split("\t", 1)[1]: line.split()[2] for line in listing}
    return {path: blob for path, blob in blobs.items() if path not in MACHINE}


def commits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD"))


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "WARNING" in line]


def flush(root: Path) -> tuple[int, str, str]:
    ran = run_apm("flush", cwd=root, env=NOW)
    assert "Traceback" not in ran.stderr, ran.stderr
    return ran.exit_code, ran.stdout, ran.stderr


@pytest.fixture
def notes(repo: MemoryRepo) -> Path:
    """A memory repository holding free-form notes (no record in them), all committed."""
    for path, text in NOTES.items():
        (repo.root / path).parent.mkdir(parents=True, exist_ok=True)
        (repo.root / path).write_text(text)
    assert flush(repo.root)[0] == 0
    return repo.root


@pytest.mark.slow
def test_rm_rf_memory_keeps_every_free_form_file(notes: Path) -> None:
    before = tracked(notes)
    assert set(NOTES) <= set(before)
    shutil.rmtree(notes / "memory")
    code, _, stderr = flush(notes)
    assert code == 1, stderr
    assert tracked(notes) == before  # nothing deleted, nothing replaced by a template
    files = [line for line in warnings(stderr) if "memory files are gone from the work tree" in line]
    assert len(files) == 1, stderr
    assert len(NOTES) <= _named(files[0]) <= len(before)
    assert "git rm PATH" in files[0] and "git checkout HEAD -- PATH" in files[0]
    assert "more (`git status` lists them)" in files[0]
    for path in NOTES:
        assert not (notes / path).exists()  # the work tree is as the user left it
    assert not (notes / "memory/main/attention.md").exists()  # auto-initialization did not replace it
    # Again: the same line, and no commit piles up.
    count = commits(notes)
    code, stdout, stderr = flush(notes)
    assert code == 1 and commits(notes) == count and "nothing to flush" in stdout
    assert files[0] in warnings(stderr)
    # The way out: restore it all.
    git(notes, "checkout", "HEAD", "--", "memory")
    assert flush(notes)[0] == 0 and tracked(notes) == before


def _named(line: str) -> int:
    """The count at the head of the files line."""
    return int(line.split("WARNING: ", 1)[1].split()[0])


@pytest.mark.slow
def test_a_file_deleted_by_hand_is_kept_and_named_the_rest_commits(notes: Path) -> None:
    (notes / "memory/runbook.md").unlink()
    (notes / "memory/projects/payments.md").write_text(NOTES["memory/projects/payments.md"] + "Use idempotency keys.\n")
    count = commits(notes)
    code, _, stderr = flush(notes)
    assert code == 1, stderr
    assert warnings(stderr) == [
        "apm-git: WARNING: 1 memory file is gone from the work tree (deleted or emptied, and not staged), so the "
        "commit keeps it as HEAD has it: memory/runbook.md; restore it (`git checkout HEAD -- PATH`), or delete "
        "deliberately: `git rm PATH` (`git add PATH` to commit an emptied file), then flush",
    ]
    assert commits(notes) == count + 1
    assert git(notes, "show", "HEAD:memory/runbook.md") == NOTES["memory/runbook.md"]
    assert "idempotency" in git(notes, "show", "HEAD:memory/projects/payments.md")
    assert "Apm-Finding: 1 memory file is gone" in git(notes, "log", "-1", "--format=%B")
    assert not (notes / "memory/runbook.md").exists()
    # The commit's INDEX.md names the kept file; the work tree's (rebuilt from the work tree) does not.
    assert " D memory/runbook.md" in git(notes, "status", "--porcelain", "--", "memory").splitlines()
    assert "runbook.md" in git(notes, "show", "HEAD:memory/INDEX.md")
    # Again: named again, nothing committed.
    code, stdout, stderr = flush(notes)
    assert code == 1 and commits(notes) == count + 1 and "nothing to flush" in stdout
    assert "memory/runbook.md" in stderr
    # `git rm` makes it deliberate: the deletion commits.
    git(notes, "rm", "-q", "memory/runbook.md")
    code, _, stderr = flush(notes)
    assert code == 0, stderr
    assert "memory/runbook.md" not in git(notes, "ls-tree", "-r", "--name-only", "HEAD")
    assert git(notes, "status", "--porcelain", "--", "memory") == ""


@pytest.mark.slow
def test_a_git_rm_is_committed_as_a_deletion(notes: Path) -> None:
    git(notes, "rm", "-q", "memory/people/alice.md")
    code, _, stderr = flush(notes)
    assert code == 0, stderr
    assert warnings(stderr) == []
    assert "memory/people/alice.md" not in git(notes, "ls-tree", "-r", "--name-only", "HEAD")
    assert "D\tmemory/people/alice.md" in git(notes, "show", "--name-status", "--format=", "HEAD")


@pytest.mark.slow
def test_an_emptied_file_counts_as_deleted(notes: Path) -> None:
    (notes / "memory/runbook.md").write_text("")
    (notes / "memory/people/alice.md").write_text("# Alice\n\n")  # only a heading left: holds nothing
    (notes / "memory/projects/payments.md").write_text("# Payments\n\nMoved to Adyen.\n")  # a rewrite: an edit
    code, _, stderr = flush(notes)
    assert code == 1, stderr
    line = next(line for line in warnings(stderr) if "memory files are gone" in line)
    assert "memory/people/alice.md, memory/runbook.md;" in line
    assert git(notes, "show", "HEAD:memory/runbook.md") == NOTES["memory/runbook.md"]
    assert git(notes, "show", "HEAD:memory/people/alice.md") == NOTES["memory/people/alice.md"]
    assert git(notes, "show", "HEAD:memory/projects/payments.md") == "# Payments\n\nMoved to Adyen.\n"
    assert (notes / "memory/runbook.md").read_text() == ""  # the work tree is not touched
    # Staging the emptied files is the deliberate way.
    git(notes, "add", "memory/runbook.md", "memory/people/alice.md")
    code, _, stderr = flush(notes)
    assert code == 0, stderr
    assert git(notes, "show", "HEAD:memory/runbook.md") == ""


@pytest.mark.slow
def test_a_move_by_hand_is_not_a_loss(notes: Path) -> None:
    (notes / "memory/archive").mkdir(exist_ok=True)
    (notes / "memory/runbook.md").rename(notes / "memory/archive/runbook.md")
    code, _, stderr = flush(notes)
    assert code == 0, stderr
    names = git(notes, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert "memory/runbook.md" not in names and "memory/archive/runbook.md" in names


def test_machine_files_are_made_anew_not_kept(notes: Path) -> None:
    for name in MACHINE:
        (notes / name).unlink()
    code, _, stderr = flush(notes)
    assert code == 0, stderr
    assert all((notes / name).is_file() for name in MACHINE)
    assert "memory/INDEX.md" in git(notes, "ls-tree", "-r", "--name-only", "HEAD")


@pytest.mark.slow
def test_rm_rf_memory_on_a_real_workspace_commits_no_deletion(tmp_path: Path) -> None:
    repo = real_case("QQSHI13__nova-workspace", tmp_path / "ws")
    assert flush(repo.root)[0] in (0, 1)
    before = tracked(repo.root)
    assert len(before) > 100  # the workspace's free-form memory
    count = commits(repo.root)
    shutil.rmtree(repo.memory)
    code, _, stderr = flush(repo.root)
    assert code == 1, stderr
    assert tracked(repo.root) == before
    line = next(line for line in warnings(stderr) if "memory files are gone" in line)
    assert "more (`git status` lists them)" in line
    assert commits(repo.root) <= count + 1
    count = commits(repo.root)
    code, stdout, _ = flush(repo.root)
    assert code == 1 and commits(repo.root) == count and "nothing to flush" in stdout
