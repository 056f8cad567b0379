"""Code fences per CommonMark: a fence closes only with the same character, at least as long."""
from __future__ import annotations

import pytest

from apm_git.dreaming.locate import entry_block
from apm_git.model.records import parse
from tests.records import record

GOOD = record("2026-04-06", "Redis cache strategy")
HIDDEN = "## [2026-04-07] Not a record\n- Tags: decision\n"


@pytest.mark.parametrize("fence", [
    "```\n~~~\n{hidden}```\n",          # a tilde line does not close a backtick fence
    "~~~\n```\n{hidden}~~~\n",          # nor a backtick line a tilde fence
    "````\n```\n{hidden}````\n",        # a shorter fence does not close a longer one
    "```python\n```js\n{hidden}```\n",  # a closing fence has no info string
    "  ```\n{hidden}   ```\n",          # up to three spaces of indent, both ends
    "```\n{hidden}",                    # an unclosed fence runs to the end of the file
])
def test_a_heading_inside_a_fence_stays_in_the_record(fence: str) -> None:
    text = GOOD + fence.format(hidden=HIDDEN)
    parsed = parse(text)
    assert [r.title for r in parsed.records] == ["Redis cache strategy"]
    assert parsed.render() == text


@pytest.mark.parametrize("fence", [
    "```\n~~~\n`````\n",      # a longer closing fence closes
    "~~~~\n~~~~~~ \n",        # trailing blanks are allowed
    "``` `not a fence`\n",    # a backtick info string with a backtick opens nothing
    "    ```\n",              # four spaces of indent: indented code, no fence
])
def test_a_heading_after_a_closed_or_no_fence_is_a_record(fence: str) -> None:
    parsed = parse(GOOD + fence + "\n" + HIDDEN)
    assert [r.title for r in parsed.records] == ["Redis cache strategy", "Not a record"]


def test_history_lookup_keeps_a_fenced_heading_in_its_record() -> None:
    text = "# Decisions\n\n" + GOOD.rstrip("\n") + "\n```\n~~~\n" + HIDDEN + "```\n"
    block = entry_block(text, "2026-04-06-redis-cache-strategy")
    assert block is not None and block.endswith("```") and HIDDEN.strip() in block
    assert entry_block(text, "2026-04-07-not-a-record") is None
