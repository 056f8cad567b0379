"""Wiring apm-git into agents: Claude Code settings, timers, transcripts, MCP."""
