"""A wall-clock bound on a command run from an agent hook (`--hook-input`).

The agent's host waits for its hooks (Claude Code kills one after 60 s, and a PreCompact hook holds
up the compaction until then).  A hook command past its bound stops with one line and exit 3 rather
than hang or be killed without a word; exit 2 never, as it would block the compaction.

The work runs in a child process and this process only waits: a Python signal handler cannot stop
a long call in C (a regular expression, a tokenizer), a parent can stop the child at any moment.
Stopping it is a kill, which apm-git is built to survive (docs/crash-safety.md): a commit cut short
is finished by the next command that takes the lock.  The child also asks the kernel to end it a
little after the bound, so it never outlives a parent that the host killed first.

No click, no dataclasses: the light hook entries (apm-git-recall) import this module.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys

ENV_TIMEOUT = "APM_GIT_HOOK_TIMEOUT"
DEFAULT_TIMEOUT = 50.0  # seconds: within Claude Code's 60 s for a hook command
GRACE = 2.0  # seconds between asking the child to stop and making it
EXIT_FINDINGS, EXIT_USAGE, EXIT_STATE = 1, 2, 3  # apm_git.errors' codes, without importing the error hierarchy


class _Passed(Exception):
    """The bound passed while the parent waited."""


def hook_timeout() -> float | None:
    """The bound in seconds from APM_GIT_HOOK_TIMEOUT (default 50); None when it is 0 (no bound)."""
    text = os.environ.get(ENV_TIMEOUT, "").strip()
    try:
        seconds = float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        seconds = DEFAULT_TIMEOUT
    return seconds if seconds > 0 else None


def bound(limit: float | None = None) -> None:
    """Run the rest of this process under the hook's bound: returns in a child process that does the
    work; this process waits for it and exits with its code, or with 3 and one line on stderr when the
    bound passes (the child is stopped).  Where there is no fork, or no bound, it simply returns."""
    limit = hook_timeout() if limit is None else limit
    if limit is None or not hasattr(os, "fork"):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        child = os.fork()
    except OSError:
        return  # no process to spare: the work runs unbounded, as before
    if child == 0:
        own_group = not _is_terminal()
        if own_group:  # a stop then reaches git's processes too; at a terminal, reading stdin needs the foreground
            os.setpgid(0, 0)
        signal.alarm(int(limit + 2 * GRACE) + 1)  # the kernel ends an orphan: SIGALRM's default action
        return
    os._exit(_wait(child, limit))


def _is_terminal() -> bool:
    try:
        return os.isatty(0)
    except OSError:
        return False


def _wait(child: int, limit: float) -> int:
    """The exit code this process gives: the child's, or 3 after one line when the bound passed or a
    signal asked this process to stop (the child is stopped then too)."""
    def passed(signum: int, frame: object) -> None:
        raise _Passed(signum)

    for signum in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, passed)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        _, status = os.waitpid(child, 0)
    except _Passed as stop:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for signum in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        _stop(child)
        why = (f"stopped after {limit:g} s, the time bound of a command run from an agent hook ({ENV_TIMEOUT}; "
               "0 turns it off)" if stop.args[0] == signal.SIGALRM else
               f"stopped by signal {signal.Signals(stop.args[0]).name}")
        _say(f"apm-git: {why}; nothing is lost (a commit cut short is finished by the next apm-git command): "
             "run the command by hand to see what takes long")
        return EXIT_STATE
    signal.setitimer(signal.ITIMER_REAL, 0)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # the child died of a signal (the kernel's bound, or someone else's kill)
        _say(f"apm-git: the command was ended by signal {signal.Signals(-code).name}; nothing is lost "
             "(a commit cut short is finished by the next apm-git command)")
        return EXIT_STATE
    return EXIT_FINDINGS if code == EXIT_USAGE else code  # a hook never exits 2


def _stop(child: int) -> None:
    """SIGTERM to the child's process group (or the child), SIGKILL after GRACE seconds if it is still there."""
    def kill(signum: int) -> None:
        try:
            os.killpg(child, signum)
        except OSError:
            with contextlib.suppress(OSError):
                os.kill(child, signum)

    kill(signal.SIGTERM)
    signal.signal(signal.SIGALRM, lambda signum, frame: kill(signal.SIGKILL))
    signal.setitimer(signal.ITIMER_REAL, GRACE)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(child, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except OSError:
        pass
