"""The sections and facts of a free-form memory file (apm_git/tracking/outline.py)."""
from __future__ import annotations

import pytest

from apm_git.tracking.outline import key_of, outline

CLAUDE_TOPIC = """---
name: redis
description: how the session cache works
type: project
---
# Redis

- TTL is 300 s for sessions
  (set in config/cache.yml)
- eviction: allkeys-lru
  - checked on 2026-05-01

| key | ttl |
|---|---|
| session | 300 |

Paragraph line one
and line two.

```sh
# not a heading
redis-cli info
```
"""


def test_sections_and_facts_of_a_claude_topic_file() -> None:
    parts = outline(CLAUDE_TOPIC)
    assert [(part.heading, part.level, part.line) for part in parts] == [("", 0, 1), ("# Redis", 1, 6)]
    top, redis = parts
    assert [fact.text for fact in top.facts] == ["name: redis", "description: how the session cache works",
                                                 "type: project"]
    assert [fact.text for fact in redis.facts] == [
        "- TTL is 300 s for sessions\n  (set in config/cache.yml)",
        "- eviction: allkeys-lru",
        "  - checked on 2026-05-01",
        "| key | ttl |",
        "| session | 300 |",
        "Paragraph line one\nand line two.",
        "```sh\n# not a heading\nredis-cli info\n```",
    ]
    assert redis.facts[0].line == 8 and redis.facts[0].end == 9


def test_trails_and_occurrences_of_headings() -> None:
    text = "# A\n## Notes\n- one\n# B\n## Notes\n- two\n### Deep\nx\n"
    parts = outline(text)
    assert [(part.heading, part.trail) for part in parts] == [
        ("# A", ()), ("## Notes", ("# A",)), ("# B", ()), ("## Notes", ("# B",)), ("### Deep", ("# B", "## Notes"))]


@pytest.mark.parametrize("text", ["", "\n\n", "\ufeff"])
def test_a_blank_file_has_no_parts(text: str) -> None:
    assert outline(text) == []


def test_the_text_of_the_parts_is_the_file() -> None:
    text = "\ufeffintro\r\n\r\n## One\r\n- a\r\n## Two\r\nb"
    assert "".join(part.text for part in outline(text)) == text.removeprefix("\ufeff")


def test_the_key_of_a_fact_sets_markers_and_spaces_aside() -> None:
    assert key_of("-   Use  pnpm\n  not npm") == key_of("* Use pnpm not npm") == "Use pnpm not npm"
    assert key_of("1. [x] done it") == "done it"
