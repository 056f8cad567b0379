"""`apm-git-recall`: the UserPromptSubmit hook's own entry point, `apm-git recall` without click.

Claude Code runs this hook before every prompt and waits for it, so its start is felt.  The full
command line imports click and every command before recall does anything; this entry imports only
what recall needs.  It answers the form `hooks install claude-code --recall` writes,
`apm-git-recall [--repo PATH] --hook-input -`, itself; any other argument list goes to the full
command line as `apm-git [--repo PATH] recall ARGS`.  Both print the same bytes and exit with the
same code on the same input (tests/agents/test_recall_hook.py holds them to it): the errors are one line,
and under `--hook-input` never exit 2.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

HOOK_FORMS = (["--hook-input", "-"], ["--hook-input=-"])
ANSI = r"\033\[[;?0-9]*[a-zA-Z]"  # what click.echo strips from a stream that is not a terminal


def split_repo(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """The leading `--repo PATH` (the global option of `apm-git`), and the rest (recall's own arguments)."""
    if len(args) >= 2 and args[0] == "--repo":
        return list(args[:2]), list(args[2:])
    if args and args[0].startswith("--repo="):
        return list(args[:1]), list(args[1:])
    return [], list(args)


def fast_repo(lead: list[str], rest: list[str]) -> tuple[bool, str | None]:
    """(True, the --repo value or None) when this entry answers the arguments itself; (False, None) when
    the full command line must (a prompt, --budget, --format, --json, --help, a payload file, …)."""
    value = lead[1] if len(lead) == 2 else lead[0].partition("=")[2] if lead else None
    if value is not None and (not value or value.startswith("-")):
        return False, None  # let click judge an empty or option-like path
    return rest in HOOK_FORMS, value


def stdin_utf8() -> TextIO:
    """Standard input as click's `File("r", encoding="utf-8")` opens `-`: the stream itself when it already
    decodes strict UTF-8, else a strict UTF-8 reader over its bytes (which turns \\r\\n into \\n)."""
    stream = sys.stdin
    if getattr(stream, "encoding", None) == "utf-8" and getattr(stream, "errors", None) == "strict":
        return stream
    import io

    return io.TextIOWrapper(stream.buffer, encoding="utf-8", errors="strict", line_buffering=True)


def say(line: str) -> None:
    """One line on stderr, as click.echo(err=True) writes it."""
    if not sys.stderr.isatty():
        import re

        line = re.sub(ANSI, "", line)
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def answer(repo_path: str | None) -> int:
    """`apm-git [--repo PATH] recall --hook-input -`, its exit code."""
    from pathlib import Path

    from apm_git.errors import EXIT_FINDINGS, EXIT_OK, EXIT_STATE, EXIT_USAGE, ApmGitError, describe_os_error

    try:
        from apm_git.commands.recall import claude_hook, recall
        from apm_git.hookinput import open_hook_repo, read_payload

        payload = read_payload(stdin_utf8())
        repo = open_hook_repo(Path(repo_path) if repo_path else None, payload)
        if repo is None:
            return EXIT_OK  # no memory serves the session's folder: nothing to add to the prompt
        text = claude_hook(recall(repo, payload.prompt or ""))
        if text:  # nothing matched: nothing is added to the prompt
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
    except ApmGitError as error:
        say(f"apm-git: {error}")
        return EXIT_FINDINGS if error.exit_code == EXIT_USAGE else error.exit_code
    except OSError as error:
        say(f"apm-git: {describe_os_error(error)}")
        return EXIT_STATE
    except KeyboardInterrupt:
        say("\napm-git: aborted")
        return EXIT_FINDINGS
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    from apm_git.streams import safe_streams

    args = list(sys.argv[1:] if argv is None else argv)
    if argv is None and any(arg == "--hook-input" or arg.startswith("--hook-input=") for arg in args):
        from apm_git.deadline import bound

        bound()  # from here on in a child process with a wall-clock bound (docs/agents.md)
    if argv is None:
        safe_streams()
    lead, rest = split_repo(args)
    fast, repo_path = fast_repo(lead, rest)
    if fast:
        return answer(repo_path)
    from apm_git.cli.app import main as full

    return full([*lead, "recall", *rest])  # exits with recall's code


if __name__ == "__main__":
    sys.exit(main())
