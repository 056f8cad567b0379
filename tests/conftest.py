"""Fixtures: real git repositories in tmp_path, a pinned identity, no user or system git config."""
from __future__ import annotations

import dataclasses
import datetime as dt
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable, Generator
from pathlib import Path

import pytest
from click.testing import CliRunner

from apm_git.cli.app import cli
from apm_git.commands.init import init
from apm_git.store.repo import MemoryRepo, open_repo

BIN = str(Path(sys.executable).parent)


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.getbasetemp() / "home"
    if not home.exists():
        home.mkdir()
        (home / ".gitconfig").write_text(
            "[user]\n\tname = Test Agent\n\temail = agent@example.invalid\n"
            "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n",
        )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PATH", BIN + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path_factory.getbasetemp() / "pre-commit-home"))
    if not _BASE:
        _BASE.append(tmp_path_factory.getbasetemp())
    for name in ("APM_GIT_NOW", "APM_GIT_REPO", "APM_GIT_LOCK_TIMEOUT", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
                 "VIRTUAL_ENV", "CLAUDE_ENV_FILE"):
        monkeypatch.delenv(name, raising=False)


def git(root: Path, *args: str, check: bool = True, input: bytes | None = None) -> str:
    proc = subprocess.run(("git", *args), cwd=root, capture_output=True, check=False, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
    return proc.stdout.decode("utf-8", "replace")


# What many tests start from is made once per worker and day and copied for each test: an init costs a
# commit, the templates and the index (about 0.1 s), the loading tests' memory two flushes more; a copy
# a tenth of that.  Per day: init writes today's journal.
_MADE: dict[str, Path] = {}
_BASE: list[Path] = []  # this worker's base folder (set by git_env, before any test body runs)


def made_once(name: str, make: Callable[[Path], object], target: Path) -> Path:
    """A copy at `target` of the repository `make(folder)` made at its first call this worker and day.

    The copy has fresh file times (shutil.copy, not copy2), and git's index learns its new inodes and
    times (`update-index --refresh`), as after the commands that made it; anything that keeps a path
    (the clone id) notices the move as it does after a `cp -r`."""
    key = f"{name}-{dt.date.today().isoformat()}"
    if key not in _MADE:
        made = _BASE[0] / "made" / key
        made.parent.mkdir(exist_ok=True)
        try:
            make(made)
        except BaseException:  # the next test makes it anew, not on top of half of it
            shutil.rmtree(made, ignore_errors=True)
            raise
        _MADE[key] = made
    shutil.copytree(_MADE[key], target, symlinks=True, copy_function=shutil.copy)
    git(target, "update-index", "-q", "--refresh")
    return target


def initialized(target: Path) -> Path:
    """What `apm-git init --no-install` makes at `target`: a copy of one made earlier by this worker today,
    or under APM_GIT_NOW (a fixture that moved the clock) a real init."""
    if os.environ.get("APM_GIT_NOW"):
        init(target, install=False)
        return target
    return made_once("initialized", lambda folder: init(folder, install=False), target)


@pytest.fixture
def repo(tmp_path: Path) -> MemoryRepo:
    """A fresh memory repository made by `apm-git init --no-install` (`initialized`)."""
    return open_repo(initialized(tmp_path / "mem"))


@dataclasses.dataclass
class Ran:
    exit_code: int
    stdout: str
    stderr: str


Invoke = Callable[..., Ran]


@pytest.fixture
def run_cli() -> Invoke:
    """Run apm-git in-process through click's CliRunner."""

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Ran:
        runner = CliRunner()
        result = runner.invoke(cli, list(args), input=input, env=env, catch_exceptions=False)
        return Ran(result.exit_code, result.stdout, result.stderr)

    return invoke


def run_apm(*args: str, cwd: Path, input: str | None = None, env: dict[str, str] | None = None) -> Ran:
    """Run apm-git as a separate process, the way an agent hook does."""
    proc = subprocess.run(
        (sys.executable, "-m", "apm_git", *args), cwd=cwd, capture_output=True, text=True, input=input,
        env={**os.environ, **(env or {})}, check=False,
    )
    return Ran(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def repo_root(repo: MemoryRepo) -> Path:
    return repo.root


# The fast loop's rule (docs/development.md, "The fast loop"): a test that costs more than SLOW_CPU seconds
# of CPU (its own and that of the processes it started and waited for: git, apm-git, pre-commit) is marked
# `slow`.  CPU time, not wall time: it holds on a shared machine.  `pytest --slow-report` lists the tests
# over it that are not marked, and the marked ones under it.
SLOW_CPU = 0.2
_CPU_KEY = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow-report", action="store_true",
                     help=f"list the tests whose CPU time is over {SLOW_CPU} s and not marked slow (and the reverse)")


def _cpu() -> float:
    own, waited = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_CPU_KEY] = _cpu()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport,
                                                                                            pytest.TestReport]:
    report = yield
    if report.when == "teardown" and _CPU_KEY in item.stash:
        report.user_properties.append(("cpu", _cpu() - item.stash[_CPU_KEY]))
    return report


_CPU_SEEN: list[tuple[float, str, bool]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":
        cpu = dict(report.user_properties).get("cpu")
        if isinstance(cpu, float):
            _CPU_SEEN.append((cpu, report.nodeid, "slow" in report.keywords))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if not config.getoption("--slow-report") or not _CPU_SEEN:
        return
    write = terminalreporter.write_line
    total = sum(cpu for cpu, _, _ in _CPU_SEEN)
    write(f"CPU time of the {len(_CPU_SEEN)} tests run: {total:.1f} s (the workers' start and collection apart)")
    over = sorted((item for item in _CPU_SEEN if item[0] > SLOW_CPU and not item[2]), reverse=True)
    write(f"over {SLOW_CPU} s of CPU and not marked slow: {len(over)}")
    for cpu, nodeid, _ in over:
        write(f"  {cpu:6.2f} s  {nodeid}")
    under = sorted(item for item in _CPU_SEEN if item[0] <= SLOW_CPU / 2 and item[2])
    write(f"marked slow but under {SLOW_CPU / 2} s of CPU: {len(under)}")
    for cpu, nodeid, _ in under:
        write(f"  {cpu:6.2f} s  {nodeid}")
