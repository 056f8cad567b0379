"""The sh answer of `apm-git-hook` and the Python answer of `apm-git-hook-run`, byte for byte.

For each hook id, file list and state of the stored findings (absent, present, stale, torn, of
another build), `apm-git-hook` (answering from the stored findings, or running Python when it
cannot) must print exactly what `apm-git-hook-run` computes from scratch, with the same exit
code.  Names with spaces, non-ASCII letters, tabs and line breaks are among the files.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from apm_git.checks.manifest import HOOK_IDS
from apm_git.commands.init import init
from apm_git.operations.hook_run import CACHE, STAMP, main
from tests.checks.helpers import record
from tests.checks.test_no_secrets import SECRETS
from tests.conftest import git

BIN = Path(sys.executable).parent
Answer = tuple[int, bytes, bytes]

SPACE = "memory/with space.md"
ACCENTS = "memory/écrits-ünï.md"
TAB = "memory/tab\there.md"
NEWLINE = "memory/new\nline.md"
BROKEN = "\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: b\n"
SECRET = SECRETS["GitHub Token"]


def run(root: Path, args: tuple[str, ...], env: dict[str, str]) -> Answer:
    proc = subprocess.run(args, cwd=root, capture_output=True, check=False, env={**os.environ, **env})
    return proc.returncode, proc.stdout, proc.stderr


class Hooks:
    """One memory repository with staged changes, and the two ways to answer a hook there."""

    def __init__(self, root: Path, folder: Path, capture: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.run: dict[str, str] = {}  # the environment of the script's runs besides APM_GIT_HOOK_RUN
        self.capture = capture
        self.cache = root / ".git" / "apm-git" / CACHE
        self.log = folder / "runner-started"
        self.stub = folder / "stub-runner"  # says the script handed the hook to Python, and with what
        self.stub.write_text(f'#!/bin/sh\nprintf "%s\\0" "$@" > "{self.log}"\nexit 99\n')
        self.stub.chmod(0o755)
        self.expected: dict[tuple[str, tuple[str, ...]], Answer] = {}

    def python(self, hook: str, files: tuple[str, ...]) -> Answer:
        """`apm-git-hook-run`'s answer computed from scratch (no key: nothing stored), in this process."""
        if (hook, files) not in self.expected:
            self.capture.readouterr()
            code = main([hook, *files])
            out, err = self.capture.readouterr()
            self.expected[hook, files] = code, out.encode(), err.encode()
        return self.expected[hook, files]

    def sh(self, hook: str, files: tuple[str, ...], stored: bytes | None, *, stub: bool = True,
           before_index: bool = False) -> Answer:
        """The script's answer with the findings file as `stored` (None: absent; `before_index`: written
        before the index was); with `stub`, Python is never started: the answer is then exit code 99
        and the runner's arguments in `self.log`."""
        self.cache.unlink(missing_ok=True)
        if stored is not None:
            self.cache.write_bytes(stored)
            if before_index:
                index = (self.root / ".git/index").stat().st_mtime
                os.utime(self.cache, (index - 5, index - 5))
        self.log.unlink(missing_ok=True)
        env = {**self.run, "APM_GIT_HOOK_RUN": str(self.stub)} if stub else {**self.run, "PATH": os.environ["PATH"]}
        return run(self.root, (str(BIN / "apm-git-hook"), hook, *files), env)

    def handed_over(self, hook: str, files: tuple[str, ...]) -> bool:
        """Whether the last `sh` started the runner with exactly the hook's own arguments."""
        return self.log.exists() and self.log.read_bytes() == "".join(f"{arg}\0" for arg in (hook, *files)).encode()

    def store(self, hook: str, files: tuple[str, ...]) -> bytes:
        """What the first hook of a commit leaves for the others."""
        assert self.sh(hook, files, None, stub=False)[0] in (0, 1)
        return self.cache.read_bytes()

    def as_a_pre_commit_run(self) -> None:
        """Every later run of the script as a hook of one pre-commit run (this process), with no git on
        PATH: only the run key can answer, and when it cannot, the runner is started (git is kept for it)."""
        self.run = {"PRE_COMMIT": "1", "PATH": str(self.root / "no-such-folder")}


def append(root: Path, name: str, text: str) -> None:
    path = root / name
    path.write_text((path.read_text() if path.exists() else "") + text)


@pytest.fixture
def hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Hooks:
    root = init(tmp_path / "mem", install=False).root
    append(root, "memory/decisions.md", "\n" + record("2026-01-15", "Old server config"))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "an entry to lose", "--no-verify")
    # Findings of every hook, some in files with spaced or accented names.
    decisions = root / "memory/decisions.md"
    decisions.write_text(decisions.read_text().replace(record("2026-01-15", "Old server config"), ""))
    append(root, "memory/lessons.md", BROKEN)
    append(root, "memory/people.md", "- someone\n" * 120)
    append(root, SPACE, f"# Notes\n{SECRET}\n")
    append(root, ACCENTS, f"# Écrits\n\n{SECRET}\n")
    (root / "memory/main/index.md").unlink()
    (root / "memory/group_names.json").write_text('{"r": "../x"}\n')
    index = root / "memory/INDEX.md"
    index.write_text(index.read_text().replace("| people.md |", "| runbooks.md | 1 | — | x |\n| people.md |"))
    (root / "src").mkdir()
    (root / "src/app.py").write_text("print('not memory')\n")
    git(root, "add", "-A")
    monkeypatch.chdir(root)
    return Hooks(root, tmp_path, capsys)


STAGED = ("memory/lessons.md", "memory/people.md", SPACE, ACCENTS, "memory/group_names.json", "memory/INDEX.md",
          "src/app.py")
FILE_LISTS = ((), STAGED, (SPACE,), ("src/app.py",), (ACCENTS, "memory/decisions.md"))


def cases() -> Iterator[tuple[str, tuple[str, ...]]]:
    for hook in HOOK_IDS:
        for files in FILE_LISTS:
            yield hook, files


@pytest.mark.parametrize("key", ["comparison", "pre-commit run"])
def test_stored_findings_answer_without_python_and_as_python_does(hooks: Hooks, key: str) -> None:
    if key == "pre-commit run":
        hooks.as_a_pre_commit_run()
    stored = hooks.store("apm-budget", STAGED)
    assert stored.startswith(f"apm-git-hook\t{STAMP} ".encode()) and stored.endswith(b"\nend\n")
    run_line = stored.split(b"\n")[1]
    assert run_line.startswith(f"run\t{STAMP} {os.getpid()}:".encode()) if hooks.run else run_line == b"run\t-"
    with_findings = set()
    for hook, files in cases():
        answer = hooks.sh(hook, files, stored)
        assert not hooks.log.exists(), (hook, files)  # every file given was checked: the script alone answered
        assert answer == hooks.python(hook, files), (hook, files)
        if answer[0] == 1:
            with_findings.add(hook)
    assert with_findings == set(HOOK_IDS)
    assert hooks.python("apm-no-secrets", (SPACE,))[1].startswith(f"{SPACE}:2: apm-no-secrets: ".encode())
    assert hooks.python("apm-no-secrets", ())[1].count(b"apm-no-secrets") == 2
    # Not staged and not given to the first hook; two checked names joined by a tab or a line break.
    for unchecked in (("memory/tools-config.md",), (f"{SPACE}\t{ACCENTS}",), (f"{SPACE}\n{ACCENTS}",)):
        assert hooks.sh("apm-no-secrets", unchecked, stored)[0] == 99
        assert hooks.handed_over("apm-no-secrets", unchecked), unchecked


def test_the_runner_answers_in_process_as_it_does_as_a_command(hooks: Hooks) -> None:
    for hook, files in (("apm-no-secrets", STAGED), ("apm-index-fresh", ()), ("apm-state-json", ("src/app.py",))):
        assert run(hooks.root, (str(BIN / "apm-git-hook-run"), hook, *files), {}) == hooks.python(hook, files)


@pytest.mark.slow  # 16 stored states each way: 5 s of the fast loop
@pytest.mark.parametrize("key", ["comparison", "pre-commit run"])
def test_absent_stale_torn_or_foreign_findings_are_left_to_python(hooks: Hooks, key: str) -> None:
    if key == "pre-commit run":
        hooks.as_a_pre_commit_run()
    stale = hooks.store("apm-budget", STAGED)
    append(hooks.root, "memory/lessons.md", BROKEN.replace("Broken", "Broken again"))
    git(hooks.root, "add", "-A")  # a new staged state: what was stored is stale
    stored = hooks.store("apm-budget", STAGED)
    assert stored != stale
    lines = stored.split(b"\n")
    states = {
        "absent": None,
        "stale": stale,
        "of another build": stored.replace(STAMP.encode(), b"0.0.1/1"),
        "torn before the end line": stored[: stored.rindex(b"end\n")],
        "torn in a finding": b"\n".join(lines[:5]) + b"\n" + lines[5][:10],
        "torn in the header": stored[:15],
        "empty": b"",
    }
    for name, state in states.items():
        for hook, files in cases():
            assert hooks.sh(hook, files, state, before_index=name == "stale")[0] == 99, (name, hook, files)
            assert hooks.handed_over(hook, files), (name, hook, files)
        hook, files = "apm-record-format", STAGED  # and once with Python itself started
        answer = hooks.sh(hook, files, state, stub=False, before_index=name == "stale")
        assert answer == hooks.python(hook, files), name
    assert hooks.python("apm-record-format", STAGED)[1].count(b"apm-record-format: missing field") == 2


@pytest.mark.slow
def test_names_with_tabs_or_line_breaks_are_answered_by_python_alike(hooks: Hooks) -> None:
    append(hooks.root, TAB, f"# Tab\n{SECRET}\n")
    append(hooks.root, NEWLINE, f"# Newline\n{SECRET}\n")
    git(hooks.root, "add", "-A")
    lists = (STAGED, (*STAGED, TAB), (NEWLINE, SPACE))
    for hook in ("apm-no-secrets", "apm-record-format", "apm-no-loss"):
        for listed in lists:
            assert hooks.sh(hook, listed, None, stub=False) == hooks.python(hook, listed), (hook, listed)
            assert not hooks.cache.exists()  # such a name cannot be stored: each hook computes its own answer
    # one line whatever the name holds (issue 22.7): the line break printed as its escape
    assert hooks.python("apm-no-secrets", (NEWLINE,))[1].startswith(b"memory/new\\nline.md:2: apm-no-secrets: ")


def test_usage_errors_are_the_same_both_ways(hooks: Hooks) -> None:
    stored = hooks.store("apm-budget", STAGED)
    for args in ((), ("apm-nothing",), ("apm-nothing", "memory/lessons.md")):
        hooks.cache.write_bytes(stored)
        script = run(hooks.root, (str(BIN / "apm-git-hook"), *args), {})
        assert script == run(hooks.root, (str(BIN / "apm-git-hook-run"), *args), {})
        assert script[0] == 2 and script[2].startswith(b"usage: apm-git-hook HOOK-ID"), args
