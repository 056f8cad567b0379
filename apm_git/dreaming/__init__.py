"""Dreaming (docs/design.md 6): deep sleep, REM and import as plans over the memory's text.

Everything here is pure: functions of file texts, a date and the config that return plans and new
texts; no file, git or clock.  apm_git/operations/consolidation.py runs a stage (plan once, flush
first, execute, commit) and apm_git/operations/apply.py commits the result.
"""
