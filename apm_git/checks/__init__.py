"""The checks of docs/design.md 5: one small module per check, each declaring itself once (check.py), run by
`apm-git lint`, the pre-commit hook and flush; the list of them is generated (catalog.py, docs/checks.md).

Keep this package's `__init__` empty of imports: the hook imports it on every commit, and each import is
paid in that short process.
"""
