"""The dialects of free-form memory that apm-git recognizes among ordinary sections (docs/sections.md).

Pure functions of text: which kind a section is, the date and title of a dated heading, the
candidates of an OpenClaw Light Sleep block, the front matter of a Claude Code topic file.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import re

from apm_git.model.records import Block, Record, strip_eol

RECORD = "record"
SESSION_NOTES = "session-notes"
DATED = "dated"
LIGHT_SLEEP = "light-sleep"
REM_SLEEP = "rem-sleep"
ORDINARY = "ordinary"

SESSION_HEADING = re.compile(r"## (?P<time>\d{1,2}:\d{2})\s*[—–-]+\s*Session Notes\s*", re.IGNORECASE)
DATED_HEADING = re.compile(r"## (?P<date>\d{4}-\d{2}-\d{2})(?![\d-])(?P<rest>.*)")
_LEAD = re.compile(r"^[\s—–:\-|·,.]+")
LIGHT_SLEEP_HEADING = re.compile(r"## Light Sleep\s*", re.IGNORECASE)
REM_SLEEP_HEADING = re.compile(r"## REM Sleep\s*", re.IGNORECASE)
_CANDIDATE = re.compile(r"- Candidate:\s*(?P<text>\S.*)")
_DETAIL = re.compile(r"\s+- (?P<key>[a-z_]+):\s*(?P<value>.*)")

# Words in a dated heading that say what kind of item the section is (the default is context).
KIND_WORDS = (
    ("decision", ("decision", "decided", "decide", "entscheidung", "决定", "决策", "결정")),
    ("lesson", ("lesson", "bug", "fix", "root cause", "workaround", "incident", "教训", "踩坑", "修复", "버그")),
    ("pending", ("todo", "to do", "pending", "待办", "할 일")),
)


def section_kind(block: Block) -> str:
    """What a `## ` section of a memory file is."""
    if isinstance(block, Record):
        return RECORD
    heading = block.heading
    if SESSION_HEADING.fullmatch(heading):
        return SESSION_NOTES
    if dated_heading(heading) is not None:
        return DATED
    if LIGHT_SLEEP_HEADING.fullmatch(heading):
        return LIGHT_SLEEP
    if REM_SLEEP_HEADING.fullmatch(heading):
        return REM_SLEEP
    return ORDINARY


def dated_heading(heading: str) -> tuple[dt.date, str] | None:
    """(date, title) of `## 2026-05-13 — Title` (any separator, or none); the title may be empty."""
    match = DATED_HEADING.fullmatch(strip_eol(heading))
    if not match:
        return None
    try:
        day = dt.date.fromisoformat(match["date"])
    except ValueError:
        return None
    return day, _LEAD.sub("", match["rest"]).strip()


def kind_of_title(title: str) -> str:
    """The kind a dated section's title names (decision, lesson, pending), else context."""
    folded = title.casefold()
    for kind, words in KIND_WORDS:
        if any(word in folded for word in words):
            return kind
    return "context"


def first_text(lines: list[str]) -> str:
    """The first non-blank line of a section's content, without its list marker or emphasis."""
    for line in lines:
        text = strip_eol(line).strip()
        if text and not text.startswith(("```", "~~~", "<!--", "---")):
            text = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", text)
            return text.replace("**", "").strip() or text
    return ""


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One `- Candidate: …` of an OpenClaw Light Sleep block, with its indented details."""

    text: str
    offsets: tuple[int, ...]  # the candidate's lines inside the block
    confidence: float
    recalls: int
    status: str


def light_sleep_candidates(block: Block) -> list[Candidate]:
    lines = [strip_eol(line) for line in block.lines]
    found = []
    offset = 1
    while offset < len(lines):
        match = _CANDIDATE.fullmatch(lines[offset])
        if not match:
            offset += 1
            continue
        end = offset + 1
        details: dict[str, str] = {}
        while end < len(lines) and (detail := _DETAIL.fullmatch(lines[end])):
            details[detail["key"]] = detail["value"].strip()
            end += 1
        found.append(Candidate(
            match["text"].strip(), tuple(range(offset, end)),
            _float(details.get("confidence")), int(_float(details.get("recalls"))), details.get("status", ""),
        ))
        offset = end
    return found


def _float(raw: str | None) -> float:
    try:
        return float(raw) if raw is not None else 0.0
    except ValueError:
        return 0.0


def front_matter(text: str) -> dict[str, str]:
    """The `key: value` lines of a file's leading `---` block (Claude Code memory: name, description,
    type); empty when the file has none.  Plain scalars only: what these files hold."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    found: dict[str, str] = {}
    for line in lines[1:]:
        if line.strip() in ("---", "..."):
            return found
        key, colon, value = line.partition(":")
        if colon and key.strip() and not key.startswith((" ", "\t")):
            found[key.strip()] = value.strip().strip("\"'")
    return {}  # never closed: not front matter


def topic_title(text: str) -> str | None:
    """A topic file's title: its front matter's `name`, else its first `# ` heading."""
    name = front_matter(text).get("name")
    if name:
        return name
    for line in text.removeprefix("\ufeff").splitlines():
        if line.startswith("# "):
            return line[2:].strip() or None
        if line.startswith("## "):
            break
    return None
