"""Where each agent's memory is, and which of its hook events snapshot it (apm_git/tracking/agents.py)."""
from __future__ import annotations

from apm_git.tracking.agents import (
    CLAUDE_CODE,
    OPENCLAW,
    claude_folder,
    claude_slug,
    codex_folder,
    trigger_of,
)


def test_claude_code_names_a_project_by_its_path() -> None:
    assert claude_slug("/home/me/my.shop_v2") == "-home-me-my-shop-v2"
    assert claude_folder("/h/.claude", "/home/me/shop", None, "/h") == "/h/.claude/projects/-home-me-shop/memory"
    assert claude_folder("/h/.claude", "/home/me/shop", "~/notes/mem", "/h") == "/h/notes/mem"


def test_codex_home_moves_the_memories() -> None:
    assert codex_folder("/h", None) == "/h/.codex/memories"
    assert codex_folder("/h", "/opt/codex") == "/opt/codex/memories"


def test_the_events_that_snapshot() -> None:
    assert [trigger_of(CLAUDE_CODE, event) for event in ("SessionStart", "PreCompact", "PostCompact", "SessionEnd",
                                                         "UserPromptSubmit", None)] == [
        "session-start", "pre-compact", "post-compact", "session-end", None, None]
    assert trigger_of(OPENCLAW, "session:compact:before") == "pre-compact"
    assert trigger_of(OPENCLAW, "command:reset") == "session-end"
    assert OPENCLAW.memory == ("MEMORY.md", "memory.md", "memory", "DREAMS.md")
