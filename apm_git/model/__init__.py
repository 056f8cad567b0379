"""The memory model: pure functions of text and dates; no click, no git, no disk."""
