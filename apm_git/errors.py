"""The one exception hierarchy; the CLI turns each into a line and an exit code."""
from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_STATE = 3


class ApmGitError(Exception):
    """An expected failure: its message says what happened and what to do next."""

    exit_code = EXIT_STATE


class UsageError(ApmGitError):
    """The command line asked for something that cannot be done as asked."""

    exit_code = EXIT_USAGE


class FindingsError(ApmGitError):
    """Checks found problems, a merge conflicted or a plan was refused."""

    exit_code = EXIT_FINDINGS


class StateError(ApmGitError):
    """The repository or its state files are not as apm-git needs them."""

    exit_code = EXIT_STATE


class NotAMemoryRepo(StateError):
    pass


class CorruptStateFile(StateError):
    pass


class UnknownRoom(StateError):
    pass


class UnsafePath(StateError):
    pass


class ConfigError(StateError):
    pass


class LockTimeout(StateError):
    pass


class GitError(StateError):
    pass
