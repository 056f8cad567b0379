"""model/commit_text.py: text from outside a flush writes into history, bounded and scanned (issue 22, cases 4, 6)."""
from __future__ import annotations

import pytest

from apm_git.errors import SecretInMessage, UsageError
from apm_git.model.commit_text import REDACTED, clean_findings, flush_text
from apm_git.model.limits import MAX_FINDING_CHARS, MAX_MESSAGE_CHARS, MAX_SESSION_CHARS

TOKEN = "ghp_" + "aZ3kQ9xW2mB7nC4vL8pR1sT6yU0eH5jG2fD9"  # GitHub's shape, random letters


def test_a_plain_session_and_message_pass_as_they_are_the_session_on_one_line() -> None:
    text = flush_text("abc-123\n", "fixed the cache\n\nsee lessons.md", hook=False)
    assert text == type(text)("abc-123", "fixed the cache\n\nsee lessons.md", ())
    assert flush_text(" \n", None, hook=True).session is None


@pytest.mark.parametrize(("session", "message"), [("s" * (MAX_SESSION_CHARS + 1), None),
                                                   (None, "m" * (MAX_MESSAGE_CHARS + 1))])
def test_over_the_bound_is_refused_by_hand_and_cut_from_a_hook(session: str | None, message: str | None) -> None:
    with pytest.raises(UsageError, match="characters, over the"):
        flush_text(session, message, hook=False)
    text = flush_text(session, message, hook=True)
    assert len(text.session or "") <= MAX_SESSION_CHARS and len(text.message or "") <= MAX_MESSAGE_CHARS
    assert len(text.notes) == 1 and "cut to" in text.notes[0]


def test_a_credential_is_refused_by_hand_never_echoed_and_redacted_from_a_hook() -> None:
    with pytest.raises(SecretInMessage, match="GitHub Token") as refused:
        flush_text(None, f"deploy token {TOKEN}", hook=False)
    assert TOKEN not in str(refused.value)
    text = flush_text(TOKEN, f"first line\ndeploy token {TOKEN}\nlast line", hook=True)
    assert text.session == REDACTED and text.message == f"first line\n{REDACTED}\nlast line"
    assert len(text.notes) == 2 and all(TOKEN not in note for note in text.notes)


def test_findings_are_cut_and_one_quoting_a_credential_redacted() -> None:
    long, quoting, plain = "x" * (MAX_FINDING_CHARS * 2), f"room {TOKEN!r} maps to an unsafe name", "a plain finding"
    cleaned = clean_findings([long, quoting, plain])
    assert len(cleaned[0]) == MAX_FINDING_CHARS and cleaned[0].endswith("…")
    assert TOKEN not in cleaned[1] and cleaned[1].startswith(REDACTED)
    assert cleaned[2] == plain
