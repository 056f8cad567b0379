"""Text from outside that a flush writes into history: the message (`-m`), the session id, the findings.

Each is bounded (model/limits.py) and scanned for credentials with the scanner that checks memory
files (apm_git.secret_scan), because a commit message is as public as a file and harder to take back.

- Given by a person or an agent's tool call (`flush -m`, `--session`, the MCP `flush`): text over
  its bound, or holding a suspected credential, is refused before anything is written, in one line
  that names the kind and never the secret.
- Taken from an agent hook's payload (`--hook-input`): cut to its bound, or redacted, with one line
  each, and the flush goes on, because a hook flush never loses memory.
- apm-git's own findings (trailers and pending items): cut and redacted alike, never refused.

docs/secrets.md, "Commit messages", says the same for users.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

from apm_git.errors import SecretInMessage, UsageError
from apm_git.model.limits import MAX_FINDING_CHARS, MAX_MESSAGE_CHARS, MAX_SESSION_CHARS

REDACTED = "[redacted]"


@dataclasses.dataclass(frozen=True)
class FlushText:
    """The session id and message a flush may write, and one line for each thing cut or redacted."""

    session: str | None
    message: str | None
    notes: tuple[str, ...] = ()


def flush_text(session: str | None, message: str | None, *, hook: bool) -> FlushText:
    """The session id (one line) and message, bounded and scanned; refused (UsageError, SecretInMessage)
    unless `hook`, where they are cut and redacted instead."""
    notes: list[str] = []
    if session is not None:
        session = " ".join(session.split()) or None
    if session is not None:
        session = _checked(session, MAX_SESSION_CHARS, ("the session id", "--session"), hook, notes,
                           lambda _: REDACTED)
    if message is not None:
        message = _checked(message, MAX_MESSAGE_CHARS, ("the message", "-m"), hook, notes, redact_lines)
    return FlushText(session, message, tuple(notes))


def _checked(text: str, limit: int, named: tuple[str, str], hook: bool, notes: list[str],
             redact: Callable[[str], str]) -> str:
    """`text` within `limit` and without a suspected credential; `named`: what it is, and its option."""
    what, option = named
    if len(text) > limit:
        if not hook:
            raise UsageError(f"{option}: {what} is {len(text):,} characters, over the {limit:,} a flush records; "
                             "shorten it (long notes belong in a memory file)")
        notes.append(f"{what} from the hook was {len(text):,} characters; it is recorded cut to {limit:,}")
        text = text[:limit]
    kinds = _kinds(text)
    if kinds:
        if not hook:
            raise SecretInMessage(f"{option}: {what} looks like it holds a credential ({kinds}); nothing was "
                                  "committed: flush again without it (the suspected secret is not repeated here)")
        notes.append(f"{what} from the hook looked like it held a credential ({kinds}); what held it is "
                     f"recorded as {REDACTED}")
        text = redact(text)
    return text


def clean_findings(findings: list[str]) -> list[str]:
    """apm-git's findings as trailers and pending items may hold them: each cut to MAX_FINDING_CHARS,
    and one that quotes something shaped like a credential redacted."""
    cleaned = []
    for finding in findings:
        if len(finding) > MAX_FINDING_CHARS:
            finding = finding[:MAX_FINDING_CHARS - 1] + "…"
        cleaned.append(f"{REDACTED} (a finding that quoted a suspected credential)" if _kinds(finding) else finding)
    return cleaned


def redact_lines(text: str) -> str:
    """`text` with each line holding a suspected credential replaced by REDACTED."""
    from apm_git.secret_scan import scan

    flagged = {suspect.line for suspect in scan(text)}
    return "\n".join(REDACTED if number in flagged else line
                     for number, line in enumerate(text.split("\n"), start=1))


def _kinds(text: str) -> str:
    """The kinds of credential `text` seems to hold, comma-separated; "" for none."""
    from apm_git.secret_scan import scan

    return ", ".join(sorted({suspect.kind for suspect in scan(text)}))
