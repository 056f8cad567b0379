"""The checks of docs/design.md 5: one small module per check, run by `apm-git lint`, the pre-commit hooks and flush.

Keep this package's `__init__` empty of imports: the hook entry point imports it on every
commit, seven times, and each import is paid in every process.
"""
