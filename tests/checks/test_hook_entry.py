"""`apm-git-hook`: one hook per process; the first computes, the others answer from its findings without Python."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git import __version__
from apm_git.operations.hook_run import FORMAT, STAMP
from apm_git.store.repo import MemoryRepo
from hatch_build import stamped
from tests.conftest import Ran, git

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
HOOK = str(BIN / "apm-git-hook")


def hook(root: Path, *args: str, runner: Path | None = None, env: dict[str, str] | None = None) -> Ran:
    extra = {"APM_GIT_HOOK_RUN": str(runner)} if runner else {}
    proc = subprocess.run((HOOK, *args), cwd=root, capture_output=True, text=True, check=False,
                          env={**os.environ, **extra, **(env or {})})
    return Ran(proc.returncode, proc.stdout, proc.stderr)


def no_python(tmp_path: Path) -> Path:
    """A stand-in for apm-git-hook-run that says it was started: the fast path must not start it."""
    stub = tmp_path / "stub-run"
    stub.write_text("#!/bin/sh\necho 'python was started'\nexit 99\n")
    stub.chmod(0o755)
    return stub


def stage_broken_record(repo: MemoryRepo) -> None:
    path = repo.memory / "lessons.md"
    path.write_text(path.read_text() + "\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: b\n")
    git(repo.root, "add", "-A")


BROKEN = "memory/lessons.md:7: apm-record-format: missing field '- Fitness:' (fields are Tags, Fitness, Body)\n"


def test_usage_errors(repo: MemoryRepo, tmp_path: Path) -> None:
    stage_broken_record(repo)
    assert hook(repo.root, "apm-budget", "memory/lessons.md").exit_code == 0  # leaves findings behind
    for args in ((), ("apm-nothing",)):
        ran = hook(repo.root, *args)
        assert ran.exit_code == 2 and ran.stderr.startswith("usage: apm-git-hook HOOK-ID"), args
    outside = tmp_path / "plain"
    outside.mkdir()
    git(outside, "init", "-q")
    ran = hook(outside, "apm-budget")
    assert ran.exit_code == 3 and "not a memory repository" in ran.stderr and len(ran.stderr.splitlines()) == 1


def test_the_first_hook_computes_and_the_others_answer_without_python(repo: MemoryRepo, tmp_path: Path) -> None:
    stage_broken_record(repo)
    first = hook(repo.root, "apm-budget", "memory/lessons.md")
    assert (first.exit_code, first.stdout) == (0, "")
    assert (repo.git_dir / "apm-git" / "hook-findings").is_file()
    stub = no_python(tmp_path)
    ran = hook(repo.root, "apm-record-format", "memory/lessons.md", runner=stub)
    assert (ran.exit_code, ran.stdout) == (1, BROKEN)
    for hook_id in ("apm-no-loss", "apm-append-only", "apm-index-fresh"):
        assert hook(repo.root, hook_id, runner=stub) == Ran(0, "", ""), hook_id
    assert hook(repo.root, "apm-no-secrets", "memory/lessons.md", "src/app.py", runner=stub).exit_code == 0


def test_apm_checks_prints_every_check_and_stores_nothing(repo: MemoryRepo, tmp_path: Path) -> None:
    (repo.memory / "people.md").write_text("# People\n" + "- x\n" * 150)
    git(repo.root, "commit", "-qam", "over budget, committed without checks")
    stage_broken_record(repo)
    ran = hook(repo.root, "apm-checks", "memory/lessons.md")  # the per-file checks look at the files given
    assert (ran.exit_code, ran.stdout) == (1, BROKEN)
    assert not (repo.git_dir / "apm-git" / "hook-findings").exists()
    ran = hook(repo.root, "apm-checks", "memory/lessons.md", "memory/people.md")  # as with --all-files
    lines = ran.stdout.splitlines()
    assert ran.exit_code == 1 and len(lines) == 2 and BROKEN.strip() in lines
    assert [line for line in lines if line.startswith("memory/people.md:101: apm-budget: 151/100 lines")]
    ran = hook(repo.root, "apm-checks", "memory/lessons.md", "memory/people.md", env={"SKIP": "apm-budget"})
    assert (ran.exit_code, ran.stdout) == (1, BROKEN)
    git(repo.root, "rm", "-q", "--cached", "memory/lessons.md")  # a deletion: no file to hand, still checked
    ran = hook(repo.root, "apm-checks")
    assert ran.exit_code == 1 and "apm-index-fresh: names lessons.md" in ran.stdout and "apm-budget" not in ran.stdout


def test_apm_checks_before_the_first_commit(repo: MemoryRepo) -> None:
    git(repo.root, "update-ref", "-d", "HEAD")  # HEAD unborn again, the memory staged: everything is new
    stage_broken_record(repo)
    ran = hook(repo.root, "apm-checks", "memory/lessons.md")
    assert (ran.exit_code, ran.stdout, ran.stderr) == (1, BROKEN, "")


def test_a_new_staged_state_is_checked_afresh(repo: MemoryRepo, tmp_path: Path) -> None:
    stage_broken_record(repo)
    assert hook(repo.root, "apm-record-format", "memory/lessons.md").stdout == BROKEN
    path = repo.memory / "lessons.md"
    path.write_text(path.read_text().replace("- Body: b", "- Fitness: last_referenced=2026-04-06, hit_count=0, "
                                              "decision_value=LOW\n- Body: b"))
    ran = hook(repo.root, "apm-record-format", "memory/lessons.md")
    assert ran.exit_code == 1 and ran.stdout == BROKEN  # the fix is not staged: the commit would hold the break
    git(repo.root, "add", "-A")
    assert hook(repo.root, "apm-record-format", "memory/lessons.md", runner=no_python(tmp_path)).exit_code == 99
    assert hook(repo.root, "apm-record-format", "memory/lessons.md") == Ran(0, "", "")
    (repo.root / "apm.yaml").write_text((repo.root / "apm.yaml").read_text() + "\n# edited\n")
    assert hook(repo.root, "apm-record-format", "memory/lessons.md", runner=no_python(tmp_path)).exit_code == 99


def test_files_beyond_the_checked_ones_are_computed(repo: MemoryRepo, tmp_path: Path) -> None:
    (repo.memory / "people.md").write_text("# People\n" + "- x\n" * 150)
    git(repo.root, "commit", "-qam", "over budget, committed without checks")
    stage_broken_record(repo)
    assert hook(repo.root, "apm-budget", "memory/lessons.md").exit_code == 0
    assert hook(repo.root, "apm-budget", "memory/lessons.md", "memory/people.md",
                runner=no_python(tmp_path)).exit_code == 99
    ran = hook(repo.root, "apm-budget", "memory/lessons.md", "memory/people.md")  # as with --all-files
    assert ran.exit_code == 1 and ran.stdout.startswith("memory/people.md:101: apm-budget: 151/100 lines")
    ran = hook(repo.root, "apm-budget", "memory/people.md", runner=no_python(tmp_path))
    assert ran.exit_code == 1 and "151/100 lines" in ran.stdout


def test_hook_reads_the_index_that_git_commit_hands_it(repo: MemoryRepo) -> None:
    """`git commit -a` and `git commit PATH` run hooks on a temporary index named by GIT_INDEX_FILE."""
    stage_broken_record(repo)
    git(repo.root, "reset", "-q")
    env = {**os.environ, "GIT_INDEX_FILE": str(repo.git_dir / "index.tmp")}
    subprocess.run(("git", "read-tree", "HEAD"), cwd=repo.root, env=env, check=True)
    subprocess.run(("git", "add", "memory/lessons.md"), cwd=repo.root, env=env, check=True)
    ran = hook(repo.root, "apm-record-format", "memory/lessons.md", env={"GIT_INDEX_FILE": env["GIT_INDEX_FILE"]})
    assert (ran.exit_code, ran.stdout) == (1, BROKEN)
    assert hook(repo.root, "apm-record-format", "memory/lessons.md") == Ran(0, "", "")  # the real index is clean


def test_the_runner_imports_no_dataclasses(repo: MemoryRepo) -> None:
    """The runner is one short process per commit: importing dataclasses (with inspect, ast, dis and
    tokenize) and generating each @dataclass cost it about 15 ms, so nothing it imports uses them; nor
    the command line's click (docs/hook-entry.md, "Start-up")."""
    stage_broken_record(repo)
    code = ("import sys\nfrom apm_git.operations.hook_run import main\n"
            "code = main(['apm-checks', 'memory/lessons.md'])\n"
            "print(code, sorted(name for name in ('dataclasses', 'inspect', 'click') if name in sys.modules))\n")
    proc = subprocess.run((sys.executable, "-c", code), cwd=repo.root, capture_output=True, text=True, check=False)
    assert proc.stdout.endswith(BROKEN + "1 []\n"), (proc.stdout, proc.stderr)


def test_the_installed_script_is_the_source_with_the_runner_stamp() -> None:
    """The build writes STAMP (version and findings format) into the script; nothing else differs."""
    assert f"{__version__}/{FORMAT}" == STAMP
    source = (ROOT / "scripts" / "apm-git-hook").read_text()
    assert "STAMP=unbuilt" in source and STAMP not in source
    installed = Path(HOOK).read_text()
    assert installed == stamped(source, STAMP), "the installed apm-git-hook is stale: pip install -e '.[test]' again"
    assert f"\nSTAMP={STAMP}  #" in installed


def test_the_key_begins_with_the_stamp(repo: MemoryRepo, tmp_path: Path) -> None:
    show = tmp_path / "show-key"
    show.write_text('#!/bin/sh\nprintf %s "$APM_GIT_HOOK_KEY"\n')
    show.chmod(0o755)
    key = hook(repo.root, "apm-no-loss", runner=show).stdout
    assert key.startswith(f"{STAMP} {repo.git_dir.resolve()}"), key


def test_the_build_refuses_a_script_without_one_stamp_line() -> None:
    for text in ("#!/bin/sh\n", "STAMP=unbuilt\nSTAMP=unbuilt\n"):
        with pytest.raises(ValueError, match="expected one line `STAMP=unbuilt`"):
            stamped(text, STAMP)
