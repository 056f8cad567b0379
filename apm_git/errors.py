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


class MissingExtra(UsageError):
    """An optional part of apm-git was asked for and its packages are not installed (`pip install 'apm-git[X]'`)."""


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


class BranchMoved(GitError):
    """The branch no longer names the commit apm-git built on: nothing was changed."""


class UnreadableFile(StateError):
    """A memory file apm-git will not read: a command that can go on without it skips it."""


class InvalidUtf8(UnreadableFile):
    pass


class TooLarge(UnreadableFile):
    def __init__(self, name: str, size: int, limit: int) -> None:
        from apm_git.model.limits import megabytes

        super().__init__(f"{name} is {megabytes(size)}, over the {megabytes(limit)} apm-git reads; "
                         "split it, or move what is not memory out of the memory dir")
        self.size = size


class EditedMeanwhile(StateError):
    """A file no longer holds the text the operation was planned from: someone edited it meanwhile."""

    def __init__(self, rel: str) -> None:
        super().__init__(f"{rel} changed since it was read")
        self.rel = rel


class BaselineError(CorruptStateFile):
    """The baseline file cannot be read; the message says what is wrong."""


class BadSettings(StateError):
    pass


class BadHookInput(StateError):
    pass


class NoFts5(StateError):
    pass


class FetchFailed(GitError):
    """The remote could not be read (unreachable, gone, refused); nothing was changed locally."""


class SecretRefused(FindingsError):
    """`journal add` or `remember` would write what looks like a credential (exit 1; --allow-secret overrides)."""


class PlanRefused(FindingsError):
    """A plan (or a run) that cannot be carried out as it stands; nothing was changed."""


class SecretInMessage(FindingsError):
    """A commit message or session id given to a flush looks like it holds a credential; nothing was committed."""


class FitnessError(ValueError):
    pass


class OsFailure(StateError):
    """The operating system refused a read or write (read-only, permissions, disk full, a file where
    a folder must be): one line naming the path and what to do."""

    @classmethod
    def of(cls, error: OSError, path: object = None) -> OsFailure:
        return cls(describe_os_error(error, path))


_OS_HINTS = {
    "EROFS": "the file system is read-only: run apm-git where the repository is writable",
    "EACCES": "permission denied: make it writable for this user (chmod)",
    "EPERM": "the system refused (an immutable file or folder?): make it writable (chmod, chattr -i)",
    "ENOSPC": "the disk is full: free some space, then retry",
    "EDQUOT": "the disk quota is used up: free some space, then retry",
    "ENOTDIR": "a file stands where a folder must be: move it away",
    "EISDIR": "a folder stands where a file must be: move it away",
    "ELOOP": "a symlink loop: remove the link",
    "ENAMETOOLONG": "the name is too long: use a shorter path",
}


def describe_os_error(error: OSError, path: object = None) -> str:
    import errno

    name = errno.errorcode.get(error.errno or 0, "")
    where = path if path is not None else error.filename
    what = error.strerror or str(error)
    hint = _OS_HINTS.get(name, "check the path, then retry")
    return f"{where}: {what}; {hint}" if where is not None else f"{what}; {hint}"
