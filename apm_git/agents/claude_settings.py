"""Merge apm-git's hooks into a Claude Code settings file, and take them out again, editing the file as text.

The settings file belongs to the user.  apm-git's own hooks are recognised by a mark it writes at the
end of each command (a shell comment, `MARK`), never by the program a command starts: a hook of the
user's that calls apm-git (`apm-git flush --hook-input - && apm-git dream`) is the user's, and apm-git
neither changes nor removes it.  The file is edited as text (apm_git/agents/json_text.py), so every
byte apm-git did not write stays as it was, and uninstall gives back the bytes from before install.
"""
from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path

from apm_git import jsontext
from apm_git.agents import json_text
from apm_git.agents.json_text import Node
from apm_git.errors import BadSettings

PROJECT_FILE = Path(".claude") / "settings.json"
HOOK_FLAG = "--hook-input"
RECALL_EVENT = "UserPromptSubmit"
PROGRAMS = ("apm-git", "apm-git-recall")  # apm-git-recall: the recall hook's light entry (agents/recall_hook.py)
MARK = "  # apm-git hooks install"  # ends every command install writes: what makes a hook apm-git's own
VERBS = {"SessionStart": "load", "PreCompact": "flush", "SessionEnd": "flush", RECALL_EVENT: "recall"}


def commands(memory: Path | None, *, recall: bool = False, programs: dict[str, str] | None = None) -> dict[str, str]:
    """The hook command of each event, marked; `--repo` names the memory when it is not the project.

    `programs` maps `apm-git` and `apm-git-recall` to what to write for them (an absolute path when the
    hooks' PATH lacks them)."""
    found = programs or {}
    apm, light = (shlex.quote(found.get(name, name)) for name in PROGRAMS)
    repo = f" --repo {shlex.quote(str(memory))}" if memory is not None else ""
    wanted = {
        "SessionStart": f"{apm}{repo} load --format claude-hook {HOOK_FLAG} -",
        "PreCompact": f"{apm}{repo} flush {HOOK_FLAG} -",
        "SessionEnd": f"{apm}{repo} flush {HOOK_FLAG} -",
    }
    if recall:
        wanted[RECALL_EVENT] = f"{light}{repo} {HOOK_FLAG} -"  # `apm-git recall`, without click
    return {event: command + MARK for event, command in wanted.items()}


def runs_apm_git(command: str) -> str | None:
    """The verb (load, flush, recall) a command runs apm-git's hook form with, or None: how a hook of the
    user's own is found that already does what apm-git's would (so install adds no second one)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    if HOOK_FLAG not in words and not any(word.startswith(HOOK_FLAG + "=") for word in words):
        return None
    for at, word in enumerate(words):
        name = Path(word).name
        if name == "apm-git-recall":
            return "recall"
        if name == "apm-git":
            rest = words[at + 1:]
            while rest and rest[0].startswith("-"):
                rest = rest[2:] if rest[0] in ("--repo",) else rest[1:]
            return rest[0] if rest else None
    return None


@dataclasses.dataclass(frozen=True)
class FoundSettings:
    """A hook command in the file: its event, and whether apm-git wrote it (the mark)."""

    event: str
    command: str
    ours: bool


class Settings:
    """One settings file: its text as read, and the edits made to it."""

    def __init__(self, path: Path, original: bytes | None, text: str, *, mark: str = MARK,
                 verbs: dict[str, str] | None = None) -> None:
        self.path = path
        self.original = original  # None: the file does not exist
        self.text = text
        self.removed_file = False  # uninstall took out a file that install had created
        # The mark of the hooks this editor manages, and the verb each event's hook runs (a user's own hook that
        # runs it gets no second one beside it): apm-git's load/flush/recall hooks by default; the snapshot hooks
        # of tracked folders (agents/snapshot_hooks.py) have a mark of their own and no verbs.
        self.mark = mark
        self.verbs = VERBS if verbs is None else verbs

    @classmethod
    def read(cls, path: Path, *, mark: str = MARK, verbs: dict[str, str] | None = None) -> Settings:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return cls(path, None, "", mark=mark, verbs=verbs)
        except OSError as error:
            raise BadSettings(f"{path}: cannot read it ({error.strerror}); make it readable") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise BadSettings(f"{path} is not valid UTF-8 (byte {error.start}); fix it by hand, apm-git leaves it "
                              "as it is") from None
        settings = cls(path, raw, text, mark=mark, verbs=verbs)
        settings._check()
        return settings

    def _check(self) -> None:
        body = self.text.removeprefix(json_text.BOM)
        if not body.strip(json_text.WHITESPACE):
            return
        try:
            data = jsontext.loads(body)
        except json.JSONDecodeError as error:
            raise BadSettings(f"{self.path} is not valid JSON ({error}); fix it by hand, apm-git leaves it as it is") \
                from None
        if not isinstance(data, dict):
            raise BadSettings(f"{self.path} must hold a JSON object; fix it by hand, apm-git leaves it as it is")
        hooks = data.get("hooks", {})
        if not isinstance(hooks, dict) or not all(isinstance(groups, list) for groups in hooks.values()):
            raise BadSettings(f"{self.path}: \"hooks\" must map event names to lists; fix it by hand, apm-git leaves "
                              "it as it is")

    # -- reading ------------------------------------------------------------------------------------------

    def _root(self) -> Node | None:
        return json_text.parse(self.text)

    def _style(self, root: Node | None) -> json_text.Style:
        return json_text.style_of(self.text, root)

    def hooks(self) -> list[FoundSettings]:
        """Every hook command in the file, by event, in file order."""
        found = []
        for event, array in self._events(self._root()):
            for group in array.items:
                for hook in _hook_nodes(group.value):
                    command = _command(hook)
                    if command is not None:
                        found.append(FoundSettings(event, command, command.endswith(self.mark)))
        return found

    def installed(self) -> dict[str, list[str]]:
        """apm-git's own hook commands (the marked ones), by event."""
        found: dict[str, list[str]] = {}
        for hook in self.hooks():
            if hook.ours:
                found.setdefault(hook.event, []).append(hook.command)
        return found

    @staticmethod
    def _events(root: Node | None) -> list[tuple[str, Node]]:
        hooks = json_text.member(root, "hooks") if root is not None else None
        if hooks is None or hooks.value.kind != "object":
            return []
        return [(item.key or "", item.value) for item in hooks.value.items if item.value.kind == "array"]

    # -- editing ------------------------------------------------------------------------------------------

    def install(self, wanted: dict[str, str]) -> tuple[list[str], list[str]]:
        """Add each event's command unless it is there; (the events added or updated, notes on the user's own
        hooks that already run apm-git, which are left as they are and get no second hook beside them)."""
        added, notes = [], []
        for event, command in wanted.items():
            ours = [hook for hook in self.hooks() if hook.event == event and hook.ours]
            if any(hook.command == command for hook in ours):
                continue
            if ours:  # another memory, or an older form: the first gets the new command, any others go
                spots = self._spots(event)
                self.text = json_text.replace(self.text, spots[0].command, command)
                while len(spots := self._spots(event)) > 1:
                    self._remove_spot(spots[-1])
                added.append(event)
                continue
            own = next((hook for hook in self.hooks() if hook.event == event and not hook.ours
                        and runs_apm_git(hook.command) == self.verbs.get(event, "")), None)
            if own is not None:
                notes.append(f"{event} already runs your own `{own.command}`, which apm-git did not write: left as it "
                             "is, and nothing added beside it (remove it and install again to let apm-git manage it)")
                continue
            self._add(event, command)
            added.append(event)
        return added, notes

    def _add(self, event: str, command: str) -> None:
        group = {"matcher": "", "hooks": [{"type": "command", "command": command}]}
        root = self._root()
        if root is None:  # an empty file (or none): the whole object is apm-git's
            style = self._style(None)
            body = json_text.render({"hooks": {event: [group]}}, style, "")
            # A missing file gets a final line break, an empty one none: uninstall tells them apart by that.
            self.text = self.text + body if self.original is not None else body + style.newline
            return
        style = self._style(root)
        hooks = json_text.member(root, "hooks")
        if hooks is None:
            self.text = json_text.insert(self.text, root, {event: [group]}, style, key="hooks")
            return
        array = json_text.member(hooks.value, event)
        if array is None:
            self.text = json_text.insert(self.text, hooks.value, [group], style, key=event)
        else:
            self.text = json_text.insert(self.text, array.value, group, style)

    def uninstall(self) -> list[str]:
        """Remove apm-git's hooks, and what install created to hold them; the events they were in."""
        events = list(dict.fromkeys(hook.event for hook in self.hooks() if hook.ours))
        root = self._root()
        if not events or root is None:
            return []
        style = self._style(root)
        hooks = json_text.member(root, "hooks")
        assert hooks is not None
        if len(root.items) == 1 and _hooks_ours(hooks.value, self.mark) and json_text.created(self.text, root, style):
            self._empty_again(root, style)
        elif _hooks_ours(hooks.value, self.mark) and json_text.created(self.text, hooks.value, style):
            self.text = json_text.remove(self.text, root, root.items.index(hooks), style)
        else:
            for event in events:
                self._remove_event(event)
        return events

    def _empty_again(self, root: Node, style: json_text.Style) -> None:
        """The file holds nothing but what install wrote: a missing file again, or the empty one it was."""
        prefix, suffix = self.text[:root.start], self.text[root.end:]
        if prefix == "" and suffix == style.newline:
            self.text, self.removed_file = "", True
        elif suffix == "" and not prefix.strip(json_text.BOM + json_text.WHITESPACE):
            self.text = prefix
        else:  # written like ours by hand: take the member out, keep the object
            self.text = json_text.remove(self.text, root, 0, style)

    def _remove_event(self, event: str) -> None:
        root = self._root()
        assert root is not None
        hooks = json_text.member(root, "hooks")
        array = json_text.member(hooks.value, event) if hooks is not None else None
        assert hooks is not None and array is not None
        style = self._style(root)
        if _array_ours(array.value, self.mark) and json_text.created(self.text, array.value, style):
            self.text = json_text.remove(self.text, hooks.value, hooks.value.items.index(array), style)
            return
        while spots := self._spots(event):
            self._remove_spot(spots[-1])

    def _spots(self, event: str) -> list[_Spot]:
        """Where apm-git's hooks of the event sit, in file order (from a fresh parse)."""
        spots = []
        for name, array in self._events(self._root()):
            for index, group in enumerate(array.items if name == event else []):
                hooks = _hooks_array(group.value)
                for position, hook in enumerate(hooks.items if hooks is not None else []):
                    command = _command_node(hook.value)
                    if hooks is not None and command is not None and _marked(command.value, self.mark):
                        spots.append(_Spot(array, index, hooks, position, command))
        return spots

    def _remove_spot(self, spot: _Spot) -> None:
        """Take out one hook of apm-git's: its whole group when the group holds nothing else."""
        style = self._style(self._root())
        if _array_of_ours(spot.hooks, self.mark):
            self.text = json_text.remove(self.text, spot.array, spot.group, style)
        else:
            self.text = json_text.remove(self.text, spot.hooks, spot.position, style)

    # -- writing ------------------------------------------------------------------------------------------

    def changed(self) -> bool:
        return self.removed_file or self.text != (self.original or b"").decode("utf-8")

    def save(self) -> bool:
        """Write the file (or take out the one install created) when it changed; True when it was."""
        if not self.changed():
            return False
        if self.removed_file:
            self.path.unlink()
            return True
        from apm_git.store.atomic import write_atomic

        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, self.text.encode("utf-8"))
        return True



@dataclasses.dataclass
class _Spot:
    array: Node  # the event's list of groups
    group: int  # the group's index in it
    hooks: Node  # the group's list of hooks
    position: int  # the hook's index in that
    command: Node  # the hook's command string


def _marked(value: object, mark: str) -> bool:
    return isinstance(value, str) and value.endswith(mark)


def _array_of_ours(hooks: Node, mark: str) -> bool:
    """A group's `hooks` list that holds apm-git's hooks only."""
    return bool(hooks.items) and all(_marked(_command(item.value), mark) for item in hooks.items)


def _array_ours(array: Node, mark: str) -> bool:
    """An event's list of groups that each hold apm-git's hooks only."""
    return array.kind == "array" and bool(array.items) and all(
        (hooks := _hooks_array(item.value)) is not None and _array_of_ours(hooks, mark) for item in array.items)


def _hooks_ours(hooks: Node, mark: str) -> bool:
    """A `hooks` object whose every event holds apm-git's hooks only."""
    return hooks.kind == "object" and bool(hooks.items) and all(_array_ours(item.value, mark) for item in hooks.items)


def _hooks_array(group: Node) -> Node | None:
    if group.kind != "object":
        return None
    hooks = json_text.member(group, "hooks")
    return hooks.value if hooks is not None and hooks.value.kind == "array" else None


def _hook_nodes(group: Node) -> list[Node]:
    hooks = _hooks_array(group)
    return [item.value for item in hooks.items] if hooks is not None else []


def _command_node(hook: Node) -> Node | None:
    if hook.kind != "object":
        return None
    command = json_text.member(hook, "command")
    return command.value if command is not None and isinstance(command.value.value, str) else None


def _command(hook: Node) -> str | None:
    node = _command_node(hook)
    return node.value if node is not None else None


def settings_path(*, user: bool, project: Path) -> Path:
    return (Path.home() / ".claude" / "settings.json") if user else project / PROJECT_FILE


def served_by(folder: Path) -> Path | None:
    """The memory that the Claude Code hooks of `folder` name (`--repo PATH` in a hook of apm-git's): the
    project's settings (the local ones first), then the user's; None when no such hook is found."""
    from apm_git.store.repo import find_root

    found = find_root(folder.absolute())
    places = dict.fromkeys([folder.absolute(), *([found[0]] if found else [])])
    paths = [place / ".claude" / name for place in places for name in ("settings.local.json", "settings.json")]
    for path in [*paths, settings_path(user=True, project=folder)]:
        try:
            hooks = Settings.read(path).hooks()
        except BadSettings:
            continue
        for hook in hooks:
            memory = repo_of(hook.command) if hook.ours else None
            if memory is not None:
                return Path(memory)
    return None


def repo_of(command: str) -> str | None:
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    for at, word in enumerate(words[:-1]):
        if word == "--repo":
            return words[at + 1]
    return next((word.partition("=")[2] for word in words if word.startswith("--repo=")), None)
