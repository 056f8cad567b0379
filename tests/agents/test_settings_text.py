"""`hooks install|uninstall claude-code` edit the settings file as text: install then uninstall gives back every
byte, whatever the shape of the user's JSON, and a hook apm-git did not write is never changed or removed.

Real files, the real command line; one case runs as separate processes, as a user runs it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from apm_git.agents.claude_settings import MARK, Settings
from apm_git.commands.init import init
from tests.cli.test_errors import one_line
from tests.conftest import Invoke, run_apm

OWN_FLUSH = "apm-git flush --hook-input - && apm-git dream"  # the README once suggested this one
OWN_HOOKS = {
    "SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": OWN_FLUSH}]}],
    "PreCompact": [{"matcher": "", "hooks": [{"type": "command", "command": "apm-git flush --hook-input -"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "apm-git-lint-wrapper.sh",
                                                   "timeout": 5}]}],
}
SHAPES: dict[str, bytes | None] = {
    "no file": None,
    "an empty file": b"",
    "a file of whitespace": b"\n\n",
    "a BOM alone": "\ufeff".encode(),
    "an empty object": b"{}\n",
    "an empty object, no final newline": b"{}",
    "compact": b'{"model":"opus","permissions":{"allow":["Bash(ls)","Read"],"deny":[]},"env":{"A":"1"}}',
    "compact, empty hooks": b'{"hooks":{},"model":"opus"}',
    "two spaces": (json.dumps({"model": "x", "hooks": {"PreToolUse": OWN_HOOKS["PreToolUse"]}}, indent=2)
                   + "\n").encode(),
    "tabs": (json.dumps({"model": "x", "env": {"A": "1"}}, indent="\t") + "\n").encode(),
    "CRLF": (json.dumps({"model": "x", "hooks": {}}, indent=4) + "\n").replace("\n", "\r\n").encode(),
    "escapes and numbers": b'{\n  "name": "caf\\u00e9 \\ud83d\\ude00",\n  "limit": 1e3,\n  "ratio": 1.50,\n'
                           b'  "path": "C:\\\\tmp\\/x"\n}\n',
    "empty hooks": b'{\n  "hooks": {}\n}\n',
    "empty hooks over lines": b'{\n  "hooks": {\n  }\n}\n',
    "an empty event": b'{\n  "hooks": {\n    "SessionEnd": []\n  }\n}\n',
    "spaces inside braces": b'{ "hooks": { }, "x": [ 1 , 2 ] }',
    "a BOM": "\ufeff".encode() + b'{\n    "model": "sonnet"\n}\n',
    "inline hooks in a multi-line file": b'{\n  "hooks": {"SessionEnd": [{"matcher": "", "hooks": '
                                         b'[{"type": "command", "command": "notify-send bye"}]}]},\n  "x": [1, 2]\n}\n',
    "the user's own apm-git hooks": (json.dumps({"hooks": OWN_HOOKS}, indent=2) + "\n").encode(),
    "a duplicate key": b'{\n  "hooks": {"Stop": []},\n  "hooks": {}\n}\n',
}


@pytest.fixture
def memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("memory") / "mem"
    init(root, install=False)
    return root


@pytest.mark.parametrize("shape", list(SHAPES))
def test_install_then_uninstall_gives_back_every_byte(run_cli: Invoke, tmp_path: Path, memory: Path,
                                                      monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / ".claude" / "settings.json"
    original = SHAPES[shape]
    if original is not None:
        path.parent.mkdir()
        path.write_bytes(original)
    first = run_cli("hooks", "install", "claude-code", "--memory", str(memory))
    assert first.exit_code == 0, first.stderr
    recall = run_cli("hooks", "install", "claude-code", "--memory", str(memory), "--recall")  # a later second event
    assert recall.exit_code == 0, recall.stderr
    installed = path.read_bytes()
    data = json.loads(installed.decode("utf-8-sig"))
    settings = Settings.read(path)
    wanted = {"SessionStart", "PreCompact", "SessionEnd", "UserPromptSubmit"}
    if shape == "the user's own apm-git hooks":
        wanted -= {"PreCompact", "SessionEnd"}  # the user's hooks already flush there: nothing added beside them
        assert "already runs your own `apm-git flush --hook-input - && apm-git dream`" in first.stderr
        own = [hook.command for hook in settings.hooks() if not hook.ours]
        assert own == [OWN_FLUSH, "apm-git flush --hook-input -", "apm-git-lint-wrapper.sh"]
    assert set(settings.installed()) == wanted
    assert all(command.endswith(MARK) for commands in settings.installed().values() for command in commands)
    if original is not None and original.strip(b"\xef\xbb\xbf \n"):
        before = json.loads(original.decode("utf-8-sig"))
        assert {key: value for key, value in data.items() if key != "hooks"} == \
            {key: value for key, value in before.items() if key != "hooks"}
    again = run_cli("hooks", "install", "claude-code", "--memory", str(memory), "--recall")
    assert again.exit_code == 0 and path.read_bytes() == installed, "a second install writes nothing"

    removed = run_cli("hooks", "uninstall", "claude-code")
    assert removed.exit_code == 0, removed.stderr
    if original is None:
        assert not path.exists()
    else:
        assert path.read_bytes() == original


@pytest.mark.slow
def test_the_same_as_separate_processes(tmp_path: Path, memory: Path) -> None:
    project = tmp_path / "project"
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    original = SHAPES["CRLF"]
    assert original is not None
    path.write_bytes(original)
    for args in (["install", "claude-code", "--memory", str(memory), "--recall"], ["uninstall", "claude-code"]):
        ran = run_apm("hooks", *args, cwd=project)
        assert ran.exit_code == 0, ran.stderr
    assert path.read_bytes() == original


def test_a_hook_of_the_users_own_is_never_changed_or_removed(run_cli: Invoke, tmp_path: Path, memory: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Even when it lives in the same group as apm-git's hook (a user moved apm-git's into their group)."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    ours = f"apm-git --repo {memory} load --format claude-hook --hook-input -{MARK}"
    mixed = {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": "echo hello"}, {"type": "command", "command": ours},
        {"type": "command", "command": "apm-git --repo /elsewhere status"}]}]}}
    path.write_text(json.dumps(mixed, indent=2) + "\n")
    assert run_cli("hooks", "uninstall", "claude-code").exit_code == 0
    left = json.loads(path.read_text())
    kept = [{"type": "command", "command": "echo hello"},
            {"type": "command", "command": "apm-git --repo /elsewhere status"}]
    assert left == {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": kept}]}}


@pytest.mark.parametrize(("content", "says"), [
    (b'{"hooks": [', "is not valid JSON"),
    (b"[1, 2]", "must hold a JSON object"),
    (b'{"hooks": []}', '"hooks" must map event names to lists'),
    (b'{"hooks": {"SessionEnd": {}}}', '"hooks" must map event names to lists'),
    (b'{"model": "caf\xe9"}', "is not valid UTF-8 (byte 14)"),
    (b"[" * 200 + b"]" * 200, "nested deeper than 100 levels"),
    (b'{"a": 1} trailing', "is not valid JSON"),
])
def test_an_invalid_file_is_left_alone_with_one_line(run_cli: Invoke, tmp_path: Path, memory: Path,
                                                    monkeypatch: pytest.MonkeyPatch, content: bytes, says: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(content)
    for args in (["install", "claude-code", "--memory", str(memory)], ["uninstall", "claude-code"]):
        ran = run_cli("hooks", *args)
        assert ran.exit_code == 3
        line = one_line(ran.stderr)
        assert says in line and "fix it by hand, apm-git leaves it as it is" in line, line
        assert path.read_bytes() == content
