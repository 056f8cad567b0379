"""The three output formats of `load`: markdown (what an agent reads), json, and claude-hook."""
from __future__ import annotations

import dataclasses
import json
from typing import Any

from apm_git.commands.load import LoadResult
from apm_git.commands.load_guards import LoadedFile

HOOK_LIMIT = 10_000  # Claude Code's additionalContext must stay under this many characters
FILE_MARK = "<!-- apm-git: "
RECORD_MARK = "## "
NOTE_ROOM = 400  # room kept for the note that says what was cut


def _what(item: LoadedFile) -> str:
    role = item.priority or item.role
    return f"{role}, {item.tokens} tokens" + (f" of {item.file_tokens}" if item.cut else "")


def _title(result: LoadResult) -> str:
    if result.mode == "group":
        room = f", room {result.room}" if result.room else ""
        return f"group {result.group}{room}"
    return "DM (main session)" if result.mode == "main" else "Dreaming mount (L1 + L2)"


def summary(result: LoadResult) -> list[str]:
    lines = [f"# Memory loaded by apm-git: {_title(result)}", ""]
    if result.intent:
        lines.append(f"Intent: {result.intent}")
    for route in result.routes:
        lines.append(f"Route: {route.file} ({route.priority}): {route.reason}")
    if result.mode == "dreaming":
        lines.append(f"L2 domain: {result.domain} (matched {', '.join(result.domain_hits)})" if result.domain
                     else "L2 domain: none (no domain keyword matched)" if result.intent
                     else "L2: none (no intent); L1 only")
    if result.recall:
        lines.append(f"L2 sections from the search index: {result.recall}")
    if result.last_flush is not None:
        lines.append(f"Last flush: {result.last_flush}")
    session = f"; session {result.session}" if result.session else ""
    lines.append(f"Tokens: {result.tokens} of {result.budget} ({result.encoding}{session})")
    lines += ["", "Loaded:"]
    lines += [f"- {item.path} ({_what(item)})" + (f": {item.why}" if item.why else "")
              + (f"; {item.cut}" if item.cut else "") for item in result.files]
    if not result.files:
        lines.append("- nothing")
    if result.skipped:
        lines += ["", "Skipped:"]
        lines += [f"- {item.path}: {item.reason}" for item in result.skipped]
    if result.warnings:
        lines += ["", "Warnings:"]
        lines += [f"- {warning}" for warning in result.warnings]
    return lines


def markdown(result: LoadResult, *, guide: bool = True) -> str:
    parts = ["\n".join(summary(result)) + "\n"]
    for item in result.files:
        text = item.text if item.text.endswith("\n") or not item.text else item.text + "\n"
        parts.append(f"\n{FILE_MARK}{item.path} ({_what(item)}) -->\n{text}")
    if result.guide and guide:
        parts.append(f"\n{result.guide}")
    return "".join(parts)


def as_json(result: LoadResult) -> dict[str, Any]:
    data = dataclasses.asdict(result)
    data["tokens"] = result.tokens
    return data


def claude_hook(result: LoadResult, limit: int = HOOK_LIMIT) -> str:
    guide = f"\n{result.guide}" if result.guide else ""  # the guide is never cut
    context = cap(markdown(result, guide=False), limit - len(guide)) + guide
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}},
                      ensure_ascii=False)


def cap(text: str, limit: int = HOOK_LIMIT) -> str:
    """`text` under `limit` characters: cut at a record (or file) boundary, or at a line boundary when
    the last one is far back, with a note that says how much and which files are not shown."""
    if len(text) < limit:
        return text
    room = limit - NOTE_ROOM
    head = text[:room]
    line_end = head.rfind("\n") + 1
    boundary = max(head.rfind("\n" + RECORD_MARK), head.rfind("\n" + FILE_MARK)) + 1
    end = boundary if boundary > 0 and line_end - boundary <= room // 5 else line_end
    hidden = [line[len(FILE_MARK):].split(" (")[0] for line in text[end:].splitlines() if line.startswith(FILE_MARK)]
    files = ", ".join(hidden) if len(", ".join(hidden)) <= 200 else f"{len(hidden)} more files"
    return text[:end] + (
        f"\n[apm-git: cut here to stay under {limit:,} characters; {len(text) - end:,} characters not shown"
        + (f", among them {files}" if hidden else "")
        + ". `apm-git search QUERY` finds single entries.]\n"
    )
