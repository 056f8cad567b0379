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


def open_hook_repo(explicit: Path | None, payload: HookPayload) -> MemoryRepo:
    """The memory repository of a hook: --repo or $APM_GIT_REPO when set, else the payload's `cwd`.

    When the folder has no apm.yaml the error names the fixes that fit a hook (the project is not where
    the memory is), never `apm-git init <project>`, which would start a second, empty memory.
    """
    import os

    from apm_git.errors import NotAMemoryRepo
    from apm_git.store.repo import ENV_REPO, open_repo

    chosen = explicit or (Path(os.environ[ENV_REPO]) if os.environ.get(ENV_REPO) else None)
    if chosen is not None:
        return open_repo(chosen)
    folder = Path(payload.cwd) if payload.cwd else Path.cwd()
    try:
        return open_repo(folder)
    except NotAMemoryRepo:
        what = "does not exist" if not folder.exists() else "is in no memory repository (no apm.yaml)"
        raise NotAMemoryRepo(
            f"the hook's folder {folder} {what}; point the hook at the memory: "
            f"set {ENV_REPO}=/path/to/memory in the agent's environment, or run "
            "`apm-git hooks install claude-code --memory /path/to/memory` (or `apm-git init` there when the "
            "memory belongs inside this project)",
        ) from None
