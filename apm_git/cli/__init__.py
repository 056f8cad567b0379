"""The `apm-git` command line (apm_git/cli/app.py registers every command; this package
imports nothing, so a command module that imports a sibling never imports itself)."""
