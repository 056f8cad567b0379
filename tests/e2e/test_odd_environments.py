"""Odd environments: read-only trees, an unusable lock, LANG=C, a file where a folder must be,
symlinks that leave the memory dir or cross between groups.  Real processes, one line, exit 3,
nothing changed.

The OS is made to refuse for real: as root (chmod means nothing to root) the immutable
attribute (`chattr +i`) does it, otherwise `chmod a-w`; a lock path that is a folder needs neither.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from apm_git.store.repo import MemoryRepo
from tests.conftest import git


def apm(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        (sys.executable, "-m", "apm_git", *args), cwd=root, capture_output=True, text=True, timeout=60,
        env={**os.environ, **(env or {})}, check=False,
    )


def refused(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def tree_digest(root: Path) -> str:
    """Every path, file content and HEAD of the repository (not .git's own bookkeeping)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts:
            continue
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file() and not path.is_symlink():
            digest.update(path.read_bytes())
    digest.update(git(root, "rev-parse", "HEAD").encode())
    digest.update(git(root, "status", "--porcelain").encode())
    return digest.hexdigest()


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make the OS refuse writes to `path` for this user, for real."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None:
            pytest.skip("running as root without chattr: no way to make a folder read-only for root")
        made = subprocess.run(("chattr", "+i", str(path)), capture_output=True, check=False)
        if made.returncode != 0:
            pytest.skip(f"chattr +i is not supported here: {made.stderr.decode().strip()}")
        try:
            yield
        finally:
            subprocess.run(("chattr", "-i", str(path)), check=True)
    else:
        mode = path.stat().st_mode
        path.chmod(mode & ~0o222)
        try:
            yield
        finally:
            path.chmod(mode)


def _with_entry(repo: MemoryRepo) -> None:
    assert apm(repo.root, "journal", "add", "first entry", "--kind", "lesson").returncode == 0
    assert apm(repo.root, "flush").returncode == 0


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ("journal", "add", "x", "--kind", "lesson"),
    ("hit", "ENTRY"),
    ("flush",),
    ("index",),
    ("remember", "--scope", "main", "--decision", "use x"),
    ("rem",),
    ("deep-sleep",),
])
def test_read_only_memory_dir(repo: MemoryRepo, args: tuple[str, ...]) -> None:
    _with_entry(repo)
    today = next(path.stem for path in repo.memory.glob("20*.md"))
    args = tuple(f"{today}-first-entry" if arg == "ENTRY" else arg for arg in args)
    (repo.memory / "lessons.md").write_text("# Lessons\n\nan edit to flush\n", encoding="utf-8")
    before = tree_digest(repo.root)
    with read_only(repo.memory):
        line = refused(apm(repo.root, *args), f"{repo.memory} is not writable", "nothing was changed")
    assert "make it writable" in line
    assert tree_digest(repo.root) == before


@pytest.mark.slow
@pytest.mark.parametrize("folder", [".git", ".git/objects"])
def test_read_only_repository(repo: MemoryRepo, folder: str) -> None:
    (repo.memory / "lessons.md").write_text("# Lessons\n\nan edit to flush\n", encoding="utf-8")
    apm(repo.root, "status")  # .git/apm-git exists from here on
    before = tree_digest(repo.root)
    with read_only(repo.root / folder):
        refused(apm(repo.root, "flush"), f"{repo.root / folder} is not writable")
        refused(apm(repo.root, "journal", "add", "x", "--kind", "lesson"), "is not writable")
    assert tree_digest(repo.root) == before


def test_lock_path_that_is_a_folder(repo: MemoryRepo) -> None:
    lock = repo.git_dir / "apm-git" / "lock"
    lock.parent.mkdir(exist_ok=True)
    if lock.exists():
        lock.unlink()
    lock.mkdir()
    before = tree_digest(repo.root)
    line = refused(apm(repo.root, "journal", "add", "x", "--kind", "lesson"), f"cannot take the lock {lock}")
    assert "a folder stands where a file must be" in line
    assert tree_digest(repo.root) == before


def test_lock_file_that_cannot_be_opened(repo: MemoryRepo) -> None:
    lock = repo.git_dir / "apm-git" / "lock"
    lock.parent.mkdir(exist_ok=True)
    lock.touch()
    before = tree_digest(repo.root)
    with read_only(lock):
        refused(apm(repo.root, "flush"), f"cannot take the lock {lock}")
    assert tree_digest(repo.root) == before


@pytest.mark.slow
def test_temp_file_refused_in_a_read_only_group_folder(repo: MemoryRepo) -> None:
    (repo.memory / "group_names.json").write_text('{"room-1": "team"}', encoding="utf-8")
    assert apm(repo.root, "flush").returncode == 0
    before = tree_digest(repo.root)
    with read_only(repo.memory / "groups" / "team"):
        line = refused(apm(repo.root, "remember", "--scope", "group:team", "--decision", "use x"),
                       "memory/groups/team/experience.md")
    assert "make it writable" in line
    assert tree_digest(repo.root) == before
    assert not list((repo.memory / "groups" / "team").glob(".*.tmp"))


def c_locale() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("LC_") and key != "LANG"}
    return {**env, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}


@pytest.mark.slow
def test_lang_c_writes_and_prints_non_ascii_entries(repo: MemoryRepo) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run((sys.executable, "-m", "apm_git", *args), cwd=repo.root, capture_output=True,
                              env=c_locale(), timeout=60, check=False)
        return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode("utf-8"),
                                           proc.stderr.decode("utf-8"))

    probe = subprocess.run((sys.executable, "-c", "import sys; print(sys.stdout.encoding, sys.flags.utf8_mode)"),
                           env=c_locale(), capture_output=True, text=True, check=True)
    assert probe.stdout.split() == ["ascii", "0"]  # the environment really is LANG=C without UTF-8 mode
    added = run("journal", "add", "Ça marche: café über 缓存", "--kind", "lesson", "--title", "Café über 缓存")
    assert added.returncode == 0, added.stderr
    assert "-cafe-uber-" in added.stdout  # the same id a UTF-8 locale gives
    journal = next(repo.memory.glob("20*.md"))
    assert "Ça marche: café über 缓存" in journal.read_text(encoding="utf-8")
    found = run("search", "缓存")
    assert found.returncode == 0 and "Café über 缓存" in found.stdout
    as_json = run("--json", "search", "café")
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["hits"][0]["heading"].endswith("] Café über 缓存")
    assert run("flush", "-m", "über").returncode == 0
    assert "über" in git(repo.root, "log", "-1", "--format=%B")
    unknown = run("flush", "--room", "räum-1")
    assert unknown.returncode == 3 and "'räum-1' is not mapped" in unknown.stderr
    loaded = run("load", "--intent", "debug the café")
    assert loaded.returncode == 0 and "Intent: debug the café" in loaded.stdout


def test_lang_c_refuses_an_argument_that_is_not_utf8(repo: MemoryRepo) -> None:
    proc = subprocess.run((sys.executable, "-m", "apm_git", "journal", "add", b"caf\xe9", "--kind", "lesson"),
                          cwd=repo.root, capture_output=True, env=c_locale(), timeout=60, check=False)
    assert proc.returncode == 2 and b"is not valid UTF-8" in proc.stderr and b"Traceback" not in proc.stderr
    assert not list(repo.memory.glob("20*.md"))


@pytest.mark.slow
def test_archive_that_is_a_file(repo: MemoryRepo) -> None:
    old = ("\n## [2020-01-01] Old thing\n- Tags: lesson\n"
           "- Fitness: last_referenced=2020-01-01, hit_count=0, decision_value=LOW\n- Body: old.\n")
    new = "".join(f"\n## [2026-01-0{n}] New thing {n}\n- Tags: lesson\n"
                  f"- Fitness: last_referenced=2026-01-0{n}, hit_count=0, decision_value=HIGH\n- Body: new.\n"
                  for n in range(1, 6))
    lessons = repo.memory / "lessons.md"
    lessons.write_text(lessons.read_text(encoding="utf-8") + old + new, encoding="utf-8")
    (repo.memory / "archive").write_text("not a folder\n", encoding="utf-8")
    env = {"APM_GIT_NOW": "2026-01-10"}
    assert apm(repo.root, "flush", env=env).returncode == 0
    before = tree_digest(repo.root)
    refused(apm(repo.root, "rem", env=env), "memory/archive is a file where a folder must be", "move it away")
    assert tree_digest(repo.root) == before
    # dream: the due deep sleep runs (it archives nothing), then REM stops the same way.
    refused(apm(repo.root, "dream", env=env), "memory/archive is a file where a folder must be")
    assert git(repo.root, "status", "--porcelain") == ""
    assert "Old thing" in git(repo.root, "show", "HEAD:memory/lessons.md")


@pytest.fixture
def linked_memory(repo: MemoryRepo, tmp_path: Path) -> tuple[MemoryRepo, Path]:
    """memory/ replaced by a symlink to a folder outside the repository."""
    outside = tmp_path / "outside-memory"
    shutil.move(str(repo.memory), outside)
    repo.memory.symlink_to(outside, target_is_directory=True)
    return repo, outside


@pytest.mark.parametrize("args", [
    ("journal", "add", "x", "--kind", "lesson"),
    ("hit", "2026-01-01-x"),
    ("remember", "--scope", "main", "--decision", "use x"),
    ("index",),
    ("flush",),
    ("status",),
    ("search", "x"),
    ("load",),
])
def test_memory_dir_that_is_a_symlink_out_of_the_repository(
    linked_memory: tuple[MemoryRepo, Path], args: tuple[str, ...],
) -> None:
    repo, outside = linked_memory
    before = sorted((path.relative_to(outside), path.stat().st_mtime_ns) for path in outside.rglob("*"))
    refused(apm(repo.root, *args), "memory is a symlink", "replace the link")
    assert sorted((path.relative_to(outside), path.stat().st_mtime_ns) for path in outside.rglob("*")) == before


@pytest.fixture
def two_groups(repo: MemoryRepo) -> MemoryRepo:
    (repo.memory / "group_names.json").write_text('{"room-a": "a", "room-b": "b"}', encoding="utf-8")
    assert apm(repo.root, "flush").returncode == 0
    secret = ("\n## [2026-01-01] Plan of group B\n- Tags: decision\n"
              "- Fitness: last_referenced=2026-01-01, hit_count=0, decision_value=HIGH\n- Body: zebra crossing.\n")
    experience = repo.memory / "groups" / "b" / "experience.md"
    experience.write_text(experience.read_text(encoding="utf-8") + secret, encoding="utf-8")
    return repo


@pytest.mark.slow
def test_search_of_a_group_does_not_follow_a_link_into_another_group(two_groups: MemoryRepo) -> None:
    repo = two_groups
    (repo.memory / "groups" / "a" / "leak.md").symlink_to(Path("..") / "b" / "experience.md")
    (repo.memory / "groups" / "a" / "conventions").symlink_to(Path("..") / "b", target_is_directory=True)
    ran = apm(repo.root, "--json", "search", "zebra", "--group", "a")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["hits"] == []
    assert "crossing" not in ran.stdout
    theirs = json.loads(apm(repo.root, "--json", "search", "zebra", "--group", "b").stdout)
    assert [hit["file"] for hit in theirs["hits"]] == ["memory/groups/b/experience.md"]


@pytest.mark.slow
def test_search_of_the_dreaming_memory_does_not_follow_a_link_into_a_group(two_groups: MemoryRepo) -> None:
    repo = two_groups
    (repo.memory / "notes.md").symlink_to(Path("groups") / "b" / "experience.md")
    ran = apm(repo.root, "--json", "search", "zebra")
    assert ran.returncode == 0 and json.loads(ran.stdout)["hits"] == []


@pytest.mark.slow
def test_load_of_a_group_does_not_follow_a_link_into_another_group(two_groups: MemoryRepo) -> None:
    repo = two_groups
    project = repo.memory / "groups" / "a" / "project.md"
    project.unlink()
    project.symlink_to(Path("..") / "b" / "experience.md")
    ran = apm(repo.root, "--json", "load", "--group", "a", "--intent", "stack architecture")
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert "zebra crossing" not in ran.stdout
    assert [item["path"] for item in result["files"]] == ["memory/groups/a.md"]
    skipped = {item["path"]: item["reason"] for item in result["skipped"]}
    assert "leads through a symlink to memory/groups/b/experience.md" in skipped["memory/groups/a/project.md"]


@pytest.mark.slow
def test_remember_does_not_write_through_a_link_into_another_group(two_groups: MemoryRepo) -> None:
    repo = two_groups
    experience = repo.memory / "groups" / "a" / "experience.md"
    experience.unlink()
    experience.symlink_to(Path("..") / "b" / "experience.md")
    target = repo.memory / "groups" / "b" / "experience.md"
    before = target.read_bytes()
    refused(apm(repo.root, "remember", "--scope", "group:a", "--decision", "use y"),
            "memory/groups/a/experience.md leads through a symlink to memory/groups/b/experience.md")
    assert target.read_bytes() == before


@pytest.mark.slow
def test_search_of_a_group_whose_folder_is_a_link_to_another(two_groups: MemoryRepo) -> None:
    repo = two_groups
    shutil.rmtree(repo.memory / "groups" / "a")
    (repo.memory / "groups" / "a").symlink_to("b", target_is_directory=True)
    for scan in ((), ("--scan",)):
        ran = apm(repo.root, "--json", "search", "zebra", "--group", "a", *scan)
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout)["hits"] == []
