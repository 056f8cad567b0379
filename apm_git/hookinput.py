"""Agent hook payloads on stdin (Claude Code's PreCompact, SessionEnd and friends)."""
from __future__ import annotations

import dataclasses
import json
from typing import IO

from apm_git import jsontext
from apm_git.errors import StateError

EVENT_TRIGGERS = {
    "PreCompact": "pre-compact",
    "SessionEnd": "session-end",
    "Stop": "session-end",
    "SubagentStop": "session-end",
    "Notification": "idle",
}


class BadHookInput(StateError):
    pass


@dataclasses.dataclass(frozen=True)
class HookPayload:
    """What apm-git reads from a payload; other keys (`transcript_path`, …) are accepted and ignored."""

    session_id: str | None
    trigger: str | None  # the apm-git trigger that `hook_event_name` maps to
    detail: str | None  # Claude's own `trigger` (manual/auto), `reason`, or SessionStart's `source`
    cwd: str | None


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
    )
