"""Output is neutralised for where it goes (issue 22, case 7): memory text and file names never drive the
terminal (escape sequences, bidi overrides) nor the CI runner reading the output (GitHub's `::command::` at a
line's start, `##[command]` anywhere), and a Markdown comment shows them as text.  Real `apm-git` processes on
real repositories, files committed by hand with `--no-verify` as a hostile pull request would."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from apm_git.printable import Neutralizer, neutral, one_line
from apm_git.store.repo import MemoryRepo
from tests.conftest import BIN, git, run_apm
from tests.records import record, write

FORGED_NAME = "x\n::error file=README.md,line=1::Forged\n.md"
OSC52 = "\x1b]52;c;aGVsbG8=\x07"  # writes "hello" into the terminal's clipboard
BIDI = "\u202egnp.exe"  # shows as "exe.png"
# Every raw character that a terminal or a viewer acts on and that apm-git must never print.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
SECRET = "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def obeyed(output: str) -> list[str]:
    """The lines of `output` that GitHub Actions would run as workflow commands."""
    return [line for line in output.split("\n") if line.lstrip().startswith("::") or "##[" in line
            or "##vso[" in line]


def assert_inert(output: str) -> None:
    assert not RAW.search(output), repr(RAW.search(output))
    assert obeyed(output) == [], obeyed(output)


def hostile_commit(repo: MemoryRepo) -> None:
    """A commit made by hand: a file whose name forges a workflow command, holding a suspected secret (a
    finding on that file) and titles with an escape sequence, a bidi override and forged commands."""
    write(repo.memory, FORGED_NAME,
          record("2026-04-01", f"Clipboard {OSC52} here"),
          record("2026-04-02", f"Invoice {BIDI}"),
          record("2026-04-03", "::add-mask::hidden and ##[stop-commands]token"))
    with (repo.memory / FORGED_NAME).open("a", encoding="utf-8") as handle:
        handle.write(f"\n{SECRET}\n")
    git(repo.root, "add", "-A", "memory")
    git(repo.root, "commit", "-q", "--no-verify", "-m", f"hand edit {OSC52}\n\n::warning::from the body")


# ---- the helper, pure ------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "shown"), [
    (f"memory/{FORGED_NAME}", "memory/x\\n::error file=README.md,line=1::Forged\\n.md"),
    (f"a{OSC52}b", "a\\u001b]52;c;aGVsbG8=\\u0007b"),
    (BIDI, "\\u202egnp.exe"),
    ("tab\there\r", "tab\\there\\r"),
    ("C1 \x9b31m and DEL \x7f", "C1 \\u009b31m and DEL \\u007f"),
    ("x ##[error]y ##vso[task.setvariable]z", "x ##\\u005berror]y ##vso\\u005btask.setvariable]z"),
    ("plain café — ✓", "plain café — ✓"),
])
def test_one_line_escapes_every_control_character_and_defuses_legacy_commands(value: str, shown: str) -> None:
    assert one_line(value) == shown
    assert one_line(shown) == shown  # escaping twice changes nothing


def test_neutral_keeps_lines_and_defuses_a_command_at_any_line_start() -> None:
    text = "ok\n  ::error::x\n\u3000::add-mask::y\nnot ::a command\n:\tb\n##[group]z"
    assert neutral(text) == ("ok\n  :\\u003aerror::x\n\u3000:\\u003aadd-mask::y\nnot ::a command\n:\tb\n"
                             "##\\u005bgroup]z")
    assert_inert(neutral(text))


@pytest.mark.parametrize("cut", range(1, 12))
def test_a_command_split_across_two_writes_is_defused_as_if_written_at_once(cut: int) -> None:
    text = "a\n ::error::x ##[group]y\n"
    stream = Neutralizer()
    assert stream.feed(text[:cut]) + stream.feed(text[cut:]) == neutral(text)


def test_json_passed_through_the_stream_stays_json_with_the_same_values() -> None:
    data = {"title": f"{OSC52}{BIDI}\x85\x7f ##[error]x", "lines": ["::error::y", "\u2028"]}
    for indent in (None, 2):
        text = neutral(json.dumps(data, indent=indent, ensure_ascii=False))
        assert json.loads(text) == data
        assert_inert(text)


# ---- real processes --------------------------------------------------------------------------------

@pytest.mark.slow
def test_the_lint_gate_prints_a_forged_file_name_as_one_escaped_line(repo: MemoryRepo) -> None:
    hostile_commit(repo)
    ran = run_apm("lint", "--from-ref", "HEAD~1", "--to-ref", "HEAD", cwd=repo.root)
    assert ran.exit_code == 1, ran.stderr
    assert_inert(ran.stdout + ran.stderr)
    finding = [line for line in ran.stdout.splitlines() if "apm-no-secrets" in line]
    assert len(finding) == 1
    assert finding[0].startswith("memory/x\\n::error file=README.md,line=1::Forged\\n.md:")


def test_the_pre_commit_hook_runner_prints_inert_lines(repo: MemoryRepo) -> None:
    hostile_commit(repo)
    git(repo.root, "reset", "-q", "--soft", "HEAD~1")  # the hand edit staged: what a hook sees at commit time
    proc = subprocess.run((str(Path(BIN) / "apm-git-hook-run"), "apm-checks"), cwd=repo.root, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    assert "apm-no-secrets" in proc.stdout
    assert_inert(proc.stdout + proc.stderr)


@pytest.mark.parametrize("args", [
    ("diff", "HEAD~1"), ("diff", "HEAD~1", "--format", "markdown"), ("log",), ("log", "--apm-only"), ("status",),
    ("status", "--files"), ("search", "Invoice"), ("search", "hidden"),
    ("history", "2026-04-01-clipboard-52-c-agvsbg8-here"), ("lint", "--all"),
])
def test_every_command_that_prints_memory_text_prints_it_inert(repo: MemoryRepo, args: tuple[str, ...]) -> None:
    hostile_commit(repo)
    ran = run_apm(*args, cwd=repo.root)
    assert ran.exit_code in (0, 1), ran.stderr
    assert ran.stdout.strip(), ran.stderr
    assert_inert(ran.stdout + ran.stderr)


def test_the_text_diff_shows_the_escapes_where_the_characters_were(repo: MemoryRepo) -> None:
    hostile_commit(repo)
    out = run_apm("diff", "HEAD~1", cwd=repo.root).stdout
    assert '"Clipboard \\u001b]52;c;aGVsbG8=\\u0007 here"' in out
    assert '"Invoice \\u202egnp.exe"' in out
    assert "added     memory/x\\n::error file=README.md,line=1::Forged\\n.md  - -> " in out


def test_json_keeps_the_exact_text_and_stays_valid(repo: MemoryRepo) -> None:
    hostile_commit(repo)
    ran = run_apm("--json", "diff", "HEAD~1", cwd=repo.root)
    assert_inert(ran.stdout)
    data = json.loads(ran.stdout)
    titles = {entry["title"] for entry in data["entries"]}
    assert f"Clipboard {OSC52} here" in titles and f"Invoice {BIDI}" in titles
    assert data["files"][0]["path"] == f"memory/{FORGED_NAME}"


def test_the_markdown_comment_escapes_html_markdown_and_keeps_its_table(repo: MemoryRepo) -> None:
    write(repo.memory, "decisions.md",
          record("2026-04-01", "<img src=x onerror=alert(1)> **bold** [link](http://x) | cell"),
          record("2026-04-02", "Ticks `` ` `` and <script>alert(1)</script>"))
    write(repo.memory, "odd | name `` ` ``\n# heading.md", record("2026-04-03", "Odd file"))
    git(repo.root, "add", "-A", "memory")
    git(repo.root, "commit", "-q", "--no-verify", "-m", "hand")
    ran = run_apm("diff", "HEAD~1..HEAD", "--format", "markdown", cwd=repo.root)
    out = ran.stdout
    assert_inert(out)
    assert "<img" not in out and "<script>" not in out and "&lt;img src=x" in out
    assert "\\*\\*bold\\*\\*" in out and "\\[link\\]" in out
    rows = [line for line in out.splitlines() if line.startswith("| `")]
    assert rows and all(len(re.findall(r"(?<!\\)\|", row)) == 5 for row in rows), rows  # 4 cells, no extra
    assert not any(line.startswith("#") and "heading.md" in line for line in out.splitlines())
    assert "odd \\| name" in out  # the file name's `|` escaped inside its table cell


def test_a_python_process_without_apm_git_streams_still_gets_inert_findings(repo: MemoryRepo) -> None:
    """`apm-git-hook-run` does not go through the CLI's streams: its lines are made inert where they are built."""
    hostile_commit(repo)
    code = ("import sys; from apm_git.operations.hook_run import run_hook; "
            "print('\\n'.join(run_hook('apm-checks', [])))")
    git(repo.root, "reset", "-q", "--soft", "HEAD~1")
    proc = subprocess.run((sys.executable, "-c", code), cwd=repo.root, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "apm-no-secrets" in proc.stdout
    assert_inert(proc.stdout)
