"""Merge apm-git's hooks into a Claude Code settings file, and take them out again.

The settings file belongs to the user: every other key, every other hook, the key order and the
indent stay as they were.  apm-git's own hooks are recognised by their command (it starts with
`apm-git` or `apm-git-recall` and reads `--hook-input`), so uninstall takes out exactly what install
put in, and a second install finds its hooks in place and writes nothing.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from apm_git import jsontext
from apm_git.errors import BadSettings

PROJECT_FILE = Path(".claude") / "settings.json"
HOOK_FLAG = "--hook-input"
RECALL_EVENT = "UserPromptSubmit"
PROGRAMS = ("apm-git", "apm-git-recall")  # apm-git-recall: the recall hook's light entry (agents/recall_hook.py)


def commands(memory: Path | None, *, recall: bool = False) -> dict[str, str]:
    """The hook command of each event; `--repo` names the memory when it is not the project."""
    repo = f" --repo {shlex.quote(str(memory))}" if memory is not None else ""
    base = "apm-git" + repo
    wanted = {
        "SessionStart": f"{base} load --format claude-hook {HOOK_FLAG} -",
        "PreCompact": f"{base} flush {HOOK_FLAG} -",
        "SessionEnd": f"{base} flush {HOOK_FLAG} -",
    }
    if recall:
        wanted[RECALL_EVENT] = f"apm-git-recall{repo} {HOOK_FLAG} -"  # `apm-git recall`, without click
    return wanted


def is_ours(hook: object) -> bool:
    return runs(hook, PROGRAMS)


def runs(hook: object, programs: tuple[str, ...]) -> bool:
    """Whether a hook's command starts one of `programs` in its hook form (`--hook-input`)."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    try:
        words = shlex.split(hook["command"])
    except ValueError:
        return False
    return bool(words) and Path(words[0]).name in programs and HOOK_FLAG in words


@dataclasses.dataclass
class Settings:
    path: Path
    data: dict[str, Any]
    original: bytes | None  # None: the file does not exist
    indent: int | str

    @classmethod
    def read(cls, path: Path) -> Settings:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return cls(path, {}, None, 2)
        except OSError as error:
            raise BadSettings(f"{path}: cannot read it ({error.strerror}); make it readable") from None
        try:
            data = jsontext.loads(raw.decode("utf-8-sig")) if raw.strip() else {}
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise BadSettings(f"{path} is not valid JSON ({error}); fix it by hand, apm-git leaves it as it is") \
                from None
        if not isinstance(data, dict):
            raise BadSettings(f"{path} must hold a JSON object; fix it by hand, apm-git leaves it as it is")
        hooks = data.get("hooks", {})
        if not isinstance(hooks, dict) or not all(isinstance(groups, list) for groups in hooks.values()):
            raise BadSettings(f"{path}: \"hooks\" must map event names to lists; fix it by hand")
        return cls(path, data, raw, _indent(raw.decode("utf-8-sig", "replace")))

    def render(self) -> bytes:
        text = json.dumps(self.data, indent=self.indent, ensure_ascii=False)
        ending = "\n" if self.original is None or self.original.endswith(b"\n") else ""
        return (text + ending).encode("utf-8")

    def save(self) -> bool:
        """Write the file when its content changed; True when it was written."""
        if self.original is not None and jsontext.loads(self.original.decode("utf-8-sig")) == self.data:
            return False
        from apm_git.store.atomic import write_atomic

        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, self.render())
        return True

    def installed(self, ours: Callable[[object], bool] = is_ours) -> dict[str, list[str]]:
        """apm-git's hook commands in this file, by event (`ours`: which hooks are the ones asked about)."""
        found: dict[str, list[str]] = {}
        for event, groups in self.data.get("hooks", {}).items():
            for group in groups:
                for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                    if ours(hook):
                        found.setdefault(event, []).append(hook["command"])
        return found

    def install(self, wanted: dict[str, str], ours: Callable[[object], bool] = is_ours) -> list[str]:
        """Add each event's command unless that exact command is there; the events added."""
        present = self.installed(ours)
        added = []
        for event, command in wanted.items():
            if command in present.get(event, []):
                continue
            if present.get(event):  # another memory path or an older command: replace ours, keep the rest
                self._remove(event, ours)
            hooks = self.data.setdefault("hooks", {})
            hooks.setdefault(event, []).append({"matcher": "", "hooks": [{"type": "command", "command": command}]})
            added.append(event)
        return added

    def uninstall(self, ours: Callable[[object], bool] = is_ours) -> list[str]:
        """Remove every apm-git hook (and the groups, events and `hooks` key left empty by that)."""
        removed = [event for event in self.installed(ours) if self._remove(event, ours)]
        if "hooks" in self.data and not self.data["hooks"] and removed:
            del self.data["hooks"]
        return removed

    def _remove(self, event: str, ours: Callable[[object], bool] = is_ours) -> bool:
        groups = self.data["hooks"][event]
        kept = []
        for group in groups:
            if isinstance(group, dict) and any(ours(hook) for hook in group.get("hooks", [])):
                rest = [hook for hook in group["hooks"] if not ours(hook)]
                if rest:
                    kept.append({**group, "hooks": rest})
            else:
                kept.append(group)
        if kept:
            self.data["hooks"][event] = kept
        else:
            del self.data["hooks"][event]
        return True


def _indent(text: str) -> int | str:
    """The indent the file uses (2 when it has none to show): the first indented line's leading space."""
    match = re.search(r"\n([ \t]+)\S", text)
    if match is None:
        return 2
    lead = match.group(1)
    return lead if "\t" in lead else len(lead)


def settings_path(*, user: bool, project: Path) -> Path:
    return (Path.home() / ".claude" / "settings.json") if user else project / PROJECT_FILE
