"""Agent hook payloads on stdin (Claude Code's PreCompact, SessionEnd and friends)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import IO, TYPE_CHECKING

from apm_git import jsontext
from apm_git.errors import BadHookInput
from apm_git.model.vocabulary import FlushTrigger

if TYPE_CHECKING:
    from apm_git.store.repo import MemoryRepo

EVENT_TRIGGERS: dict[str, FlushTrigger] = {
    "PreCompact": "pre-compact",
    "SessionEnd": "session-end",
    "Stop": "session-end",
    "SubagentStop": "session-end",
    "Notification": "idle",
}


@dataclasses.dataclass(frozen=True)
class HookPayload:
    """What apm-git reads from a payload; other keys (`transcript_path`, …) are accepted and ignored."""

    session_id: str | None
    trigger: FlushTrigger | None  # the apm-git trigger that `hook_event_name` maps to
    detail: str | None  # Claude's own `trigger` (manual/auto), `reason`, or SessionStart's `source`
    cwd: str | None
    prompt: str | None = None  # UserPromptSubmit's prompt
    event: str | None = None  # `hook_event_name` as the agent wrote it
    transcript: str | None = None  # `transcript_path`: the session's transcript (Claude Code: beside its memory)


def read_payload(stream: IO[str]) -> HookPayload:
    """The payload an agent hook pipes in (the stream of `--hook-input FILE|-`)."""
    try:
        text = stream.read()
    except UnicodeDecodeError as error:
        raise BadHookInput(
            f"the hook input is not valid UTF-8 (byte {error.start}); "
            "check the hook command pipes the payload unchanged",
        ) from None
    return parse_payload(text)


def parse_payload(text: str) -> HookPayload:
    if not text.strip():
        raise BadHookInput("the hook input is empty; the agent hook must pipe its JSON payload to --hook-input -")
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as error:
        raise BadHookInput(
            f"the hook input is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); "
            "check the hook command pipes the payload unchanged",
        ) from None
    if not isinstance(data, dict):
        raise BadHookInput("the hook input must be a JSON object like {\"session_id\": …, \"hook_event_name\": …}")

    def text_field(key: str) -> str | None:
        value = data.get(key)
        return value if isinstance(value, str) and value else None

    return HookPayload(
        session_id=text_field("session_id"),
        trigger=EVENT_TRIGGERS.get(text_field("hook_event_name") or ""),
        detail=text_field("trigger") or text_field("reason") or text_field("source"),
        cwd=text_field("cwd"),
        prompt=text_field("prompt"),
        event=text_field("hook_event_name"),
        transcript=text_field("transcript_path"),
    )


def open_hook_repo(explicit: Path | None, payload: HookPayload, *, given_as: str | None = None) -> MemoryRepo | None:
    """The memory repository of a hook: --repo or $APM_GIT_REPO when set, else the payload's `cwd`; None
    when neither is set and no memory serves that folder.

    A user-wide install (no `--memory`) runs in every project, most of which keep no memory: there the
    hook does nothing and says nothing (docs/agents.md, "A folder no memory serves").  A path the user
    gave that is no memory repository is an error naming where it was given (`--repo`, APM_GIT_REPO).
    """
    import os

    from apm_git.errors import NotAMemoryRepo
    from apm_git.store.repo import ENV_REPO, open_repo

    if explicit is not None:
        return open_repo(explicit, given_as=given_as)
    if os.environ.get(ENV_REPO):
        return open_repo(None)
    folder = Path(payload.cwd) if payload.cwd else Path.cwd()
    try:
        return open_repo(folder)
    except NotAMemoryRepo:
        return None


def separate_memory(repo: MemoryRepo, payload: HookPayload) -> bool:
    """Whether the memory is not the project's own: the session's folder lies outside it (so a command the
    agent runs there needs `--repo`)."""
    from apm_git.store.repo import find_root

    folder = Path(payload.cwd) if payload.cwd else Path.cwd()
    found = find_root(folder.absolute())
    return found is None or found[0].resolve() != repo.root.resolve()


def export_repo(repo: MemoryRepo) -> None:
    """Export APM_GIT_REPO for the rest of the session through the file Claude Code names in CLAUDE_ENV_FILE
    (given to SessionStart hooks; it sources the file before each Bash command), once."""
    import os
    import shlex

    target = os.environ.get("CLAUDE_ENV_FILE")
    if not target:
        return
    line = f"export APM_GIT_REPO={shlex.quote(str(repo.root))}"
    path = Path(target)
    try:
        held = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        held = ""
    if line in held.splitlines():
        return
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write(("\n" if held and not held.endswith("\n") else "") + line + "\n")
    except OSError:
        pass  # the session goes on without it: the context names --repo in every command
