"""Dreaming (docs/design.md 6): deep sleep and REM as plans over the memory's text.

Everything here but `apply` is pure: functions of file texts, a date and the config that
return plans and new texts.  `apply` is the thin layer that writes them and commits, and
puts everything back when anything fails.
"""
