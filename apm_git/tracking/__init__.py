"""Tracking: the memory folders agents write themselves (Claude Code auto memory, Codex memories, an
OpenClaw workspace), versioned where they are (docs/tracking.md).

This package is pure, as the planners are: which folder and which files an agent's memory is, a
project's identity, the loading cap of Claude Code's MEMORY.md, the sections and facts of a free-form
file and what changed between two versions of it.  The history itself (a git dir under apm-git's data
home, apart from the folder) is `store/tracked.py`; a snapshot, a restore and a sync are in operations/.
"""
