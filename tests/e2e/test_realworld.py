"""The whole life of apm-git on real agent workspaces (issue 8), in the three ways a person adopts one.

The workspaces are in `../shared/realworld/cases/` beside the repository (or $APM_GIT_REALWORLD_CASES); the
test skips, naming the reason, when they are absent.  Each run works on its own copy in tmp_path, so
runs are independent and parallel-safe.  Commands run in-process: an exception would fail the test
with its traceback, so "no traceback" is asserted by every call.
"""
from __future__ import annotations

import datetime as dt
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import Invoke, Ran, git
from tests.realworld import ENV_CASES, cases_dir

CASES = cases_dir() or Path("../shared/realworld/cases")
NAMES = sorted(path.name for path in CASES.iterdir() if path.is_dir()) if CASES.is_dir() else []
WAYS = ("plain-folder", "git-repository", "init-then-copy")
TODAY = dt.date(2026, 12, 1)
RECORD_ID = re.compile(r"^## \[(\d{4}-\d{2}-\d{2})\] (?:\[PROVEN\] )?(.+)$", re.MULTILINE)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not NAMES, reason=f"the real workspaces are not here ({CASES}); set {ENV_CASES}"),
]


def memory_files(root: Path) -> dict[str, bytes]:
    """MEMORY.md and every file under memory/, by repo-relative path."""
    found = {"MEMORY.md": (root / "MEMORY.md").read_bytes()} if (root / "MEMORY.md").is_file() else {}
    for path in sorted((root / "memory").rglob("*")) if (root / "memory").is_dir() else []:
        if path.is_file() and not path.is_symlink():
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def copy_case(case: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    for item in case.iterdir():
        if item.name == "SOURCE.txt":
            continue
        if item.is_dir():
            shutil.copytree(item, into / item.name, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(item, into / item.name)


def lines_of(data: bytes) -> set[str]:
    return {line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip()}


CASE_PARAMS = NAMES


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", CASE_PARAMS)
def test_the_whole_life_of_a_real_workspace(name: str, way: str, tmp_path: Path, run_cli: Invoke) -> None:
    root = tmp_path / "ws"
    day = {"APM_GIT_NOW": f"{TODAY.isoformat()}T09:00:00+00:00"}

    def apm(*args: str, now: dt.date = TODAY) -> Ran:
        return run_cli("--repo", str(root), *args, env={"APM_GIT_NOW": f"{now.isoformat()}T09:00:00+00:00"})

    if way == "init-then-copy":
        assert run_cli("init", "--no-install", str(root), env=day).exit_code == 0
        copy_case(CASES / name, root)
    else:
        copy_case(CASES / name, root)
        if way == "git-repository":
            git(root, "init", "--quiet")
            git(root, "add", "-A")
            git(root, "commit", "--quiet", "-m", "the workspace as its owner kept it")
    held = memory_files(CASES / name)  # what the person had (in way 3, not the templates they copied over)
    start = git(root, "rev-parse", "HEAD", check=False).strip() or None

    adopted = run_cli("init", "--no-install", str(root), env=day)
    assert adopted.exit_code == 0, adopted.stderr
    if way == "init-then-copy":
        # init again commits nothing of the person's (issue 23.5): what was copied in is a write, which a
        # flush commits with its findings reported; `baseline` then makes them known, as adoption does.
        assert git(root, "rev-parse", "HEAD").strip() == start
        for args in (("flush",), ("baseline",), ("flush",)):
            ran = apm(*args)
            assert ran.exit_code == 0, (args, ran.stderr)
        start = git(root, "rev-parse", "HEAD").strip()  # every commit from here on is checked below
    assert apm("status").exit_code == 0
    lint = apm("lint", "--all")
    assert lint.exit_code == 0, f"lint --all right after adoption:\n{lint.stdout}"

    assert apm("flush").exit_code == 0
    (root / "memory/group_names.json").write_text('{"room-1": "team"}\n')
    assert apm("flush").exit_code == 0
    for args in (("load",), ("load", "--main"), ("load", "--room", "room-1"),
                 ("load", "--intent", "why did the deploy fail")):
        loaded = apm(*args)
        assert loaded.exit_code == 0, (args, loaded.stderr)
    assert apm("search", "memory").exit_code in (0, 1)
    for args in (("deep-sleep",), ("rem",)):
        ran = apm(*args)
        assert ran.exit_code == 0, (args, ran.stderr)
    for later in (30, 60):
        dreamt = apm("dream", now=TODAY + dt.timedelta(days=later))
        assert dreamt.exit_code == 0, f"dream {later} days later:\n{dreamt.stderr}"
    ids = [f"{d}-{re.sub(r'[^a-z0-9]+', '-', t.lower()).strip('-')}" for d, t in
           RECORD_ID.findall("\n".join(p.read_text("utf-8", "replace") for p in (root / "memory").glob("*.md")))]
    history = apm("history", (ids or ["2026-01-01-none"])[0])
    assert history.exit_code == 0 if ids else "no commit created or changed" in history.stderr, history.stderr

    # Every commit apm-git made passes lint (a root commit has no parent to compare with).
    made = git(root, "log", "--format=%H %P", f"{start}..HEAD" if start else "HEAD").splitlines()
    for commit, *parents in (line.split() for line in made):
        if parents:
            ran = apm("lint", "--from-ref", f"{commit}~1", "--to-ref", commit)
            assert ran.exit_code == 0, git(root, "log", "-1", "--format=%s", commit) + ran.stdout
    if start:  # and the documented CI gate, on the whole range: adoption, flushes and every dream
        ran = apm("lint", "--from-ref", start, "--to-ref", "HEAD")
        assert ran.exit_code == 0, f"lint --from-ref {start} --to-ref HEAD:\n{ran.stdout}"

    # Every line the workspace held is still in the live tree, or in the archive with a commit that moved it.
    now = memory_files(root)
    live = set().union(*(lines_of(data) for path, data in now.items() if not path.startswith("memory/archive/")))
    messages = git(root, "log", "--format=%B")
    live_text = "\n".join(sorted(live))
    archive = {p: (lines_of(d), d.decode("utf-8", "replace"))  # read once, not once per line looked for
               for p, d in now.items() if p.startswith("memory/archive/")}
    lost = []
    for path, data in held.items():
        for line in lines_of(data) - live:
            if line.startswith("#") and f'heading "{line}"' in live_text:
                continue  # a promoted dated section: its heading is kept verbatim in the record's `Source:`
            homes = [p for p, (lines, text) in archive.items() if line in lines or f'heading "{line}"' in text]
            if not any(home == path or home in messages for home in homes):
                lost.append(f"{path}: {line[:80]}")
    assert not lost, f"{len(lost)} line(s) lost, e.g.\n" + "\n".join(lost[:10])

    # Review and share the same history (issues 11 and 12): the entry-level diff of the whole range flags
    # no loss (exit 1 would), the log reads every commit, and a first sync pushes exactly what HEAD holds.
    if start:
        diff = apm("diff", f"{start}..HEAD", "--format", "json")
        assert diff.exit_code == 0, f"diff {start}..HEAD:\n{diff.stderr}"
        assert apm("log").exit_code == 0
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    git(root, "remote", "add", "origin", str(remote))
    synced = apm("sync")
    assert synced.exit_code == 0, f"sync:\n{synced.stderr}"
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", str(remote), str(clone))
    assert git(clone, "rev-parse", "HEAD") == git(root, "rev-parse", "HEAD")
    assert git(clone, "status", "--porcelain") == ""
