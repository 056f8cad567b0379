"""The dialects of free-form memory: section kinds, dated headings, Light Sleep candidates, front matter."""
from __future__ import annotations

import datetime as dt

import pytest

from apm_git.model.records import parse
from apm_git.model.sections import (
    DATED,
    LIGHT_SLEEP,
    ORDINARY,
    RECORD,
    REM_SLEEP,
    SESSION_NOTES,
    dated_heading,
    front_matter,
    kind_of_title,
    light_sleep_candidates,
    section_kind,
    topic_title,
)

LIGHT = (
    "## Light Sleep\n"
    "<!-- openclaw:dreaming:light:start -->\n"
    "- Candidate: Reflections: Theme: `assistant` kept surfacing across 909 memories.; confidence: 0.99\n"
    "  - confidence: 0.91\n"
    "  - evidence: memory/2026-04-13.md:263-266\n"
    "  - recalls: 3\n"
    "  - status: staged\n"
    "- Candidate: Assistant: HEARTBEAT_OK\n"
    "  - confidence: 0.00\n"
    "<!-- openclaw:dreaming:light:end -->\n"
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("## [2026-04-06] T\n- Tags: decision\n", RECORD),
        ("## 14:30 — Session Notes\n", SESSION_NOTES),
        ("## 2026-05-13 — Email checks use gog only\n", DATED),
        ("## 2026-04-01 14:25 (Asia/Jakarta)\n", DATED),
        ("## 2026-13-45 Not a date\n", ORDINARY),
        ("## Light Sleep\n", LIGHT_SLEEP),
        ("## REM Sleep\n", REM_SLEEP),
        ("## 1) 모델/브레인 운영\n", ORDINARY),
    ],
)
def test_section_kinds(text: str, kind: str) -> None:
    (block,) = parse(text).blocks
    assert section_kind(block) == kind


def test_dated_headings_give_date_and_title() -> None:
    email = "Email checks use gog only"
    assert dated_heading(f"## 2026-05-13 — {email}") == (dt.date(2026, 5, 13), email)
    assert dated_heading("## 2026-03-28: Critical Bug - Rolling") == (dt.date(2026, 3, 28), "Critical Bug - Rolling")
    assert dated_heading("## 2026-05-02") == (dt.date(2026, 5, 2), "")
    assert dated_heading("## 2026-05-02-notes") is None
    assert kind_of_title("PROAKTIVE ENTSCHEIDUNG #8") == "decision"
    assert kind_of_title("Critical Bug - Rolling Back") == "lesson"
    assert kind_of_title("Evening Session") == "context"


def test_light_sleep_candidates_with_their_details() -> None:
    first, second = light_sleep_candidates(parse(LIGHT).blocks[0])
    assert first.text.startswith("Reflections: Theme:") and first.offsets == (2, 3, 4, 5, 6)
    assert (first.confidence, first.recalls, first.status) == (0.91, 3, "staged")
    assert (second.text, second.offsets, second.confidence) == ("Assistant: HEARTBEAT_OK", (7, 8), 0.0)


def test_front_matter_and_topic_titles() -> None:
    topic = "---\nname: Use native image generation\ndescription: Image workflow\ntype: feedback\n---\n\nText\n"
    assert front_matter(topic) == {"name": "Use native image generation", "description": "Image workflow",
                                   "type": "feedback"}
    assert topic_title(topic) == "Use native image generation"
    assert topic_title("# People\n\n## Alice\n") == "People"
    assert front_matter("---\nname: never closed\n") == {} and topic_title("no title\n") is None
    assert parse(topic).render() == topic and parse(topic).blocks == []  # front matter is the preamble
