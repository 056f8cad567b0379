"""What every command-line module shares: the root group, its state (--repo, --json), output and errors.

Every expected error (an ApmGitError) becomes one line on stderr and its exit code;
under `--hook-input` no exit code is ever 2, because 2 blocks compaction in Claude Code.
"""
from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from apm_git import __version__
from apm_git.errors import EXIT_FINDINGS, EXIT_STATE, EXIT_USAGE, ApmGitError, UsageError, describe_os_error
from apm_git.printable import one_line
from apm_git.streams import safe_streams

HOOK_FLAG = "--hook-input"
Word = TypeVar("Word", bound=str)


@dataclasses.dataclass
class CliState:
    repo_path: Path | None
    json: bool
    repo_given_as: str = "--repo"  # or APM_GIT_REPO, when the path came from the environment
    opened: list[Any] = dataclasses.field(default_factory=list)  # whose notes are said after the command

    def repo(self, *, finish: bool = True) -> Any:
        return self.keep(open_memory(self.repo_path, finish=finish, given_as=self.repo_given_as))

    def keep(self, repo: Any) -> Any:
        """`repo`, whose notes (an interrupted commit finished, the fallback identity) this run says at its end."""
        self.opened.append(repo)
        return repo


def open_memory(path: Path | None, *, finish: bool = True, given_as: str | None = None) -> Any:
    """The memory repository; a commit a kill interrupted is finished first when the lock is free
    (`finish`), or only named in one line (lint, which never writes)."""
    from apm_git.store import writer
    from apm_git.store.repo import open_repo

    repo = open_repo(path, given_as=given_as)
    if finish:
        writer.finish_pending(repo, wait=False)
    else:
        writer.note_pending(repo)
    return repo


def state(ctx: click.Context) -> CliState:
    obj = ctx.find_root().obj
    assert isinstance(obj, CliState)
    return obj


def print_json(data: dict[str, Any]) -> None:
    """One JSON object on stdout: a shape of apm_git/present/shapes*.py, declared in apm_git/schemas/."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def text_of(lines: Iterable[str]) -> str:
    """Lines of text output, each kept on its line whatever a file name or memory text in it holds
    (apm_git/printable.py; the streams escape control characters and defuse CI commands as well)."""
    return "\n".join(one_line(line) for line in lines)


def warn(text: str) -> None:
    """One line on stderr (a message naming files or memory text: kept on its line, apm_git/printable.py).
    What click.echo strips from a stream that is no terminal (colour codes) is stripped first, as it would
    be, so the line is the same as the light hook entries print (apm_git/agents/recall_hook.say)."""
    click.echo(one_line(text if sys.stderr.isatty() else click.unstyle(text)), err=True)


def emit(ctx: click.Context, data: dict[str, Any], text: str | None) -> None:
    """JSON of `data` under --json (and nothing else on stdout), else `text`."""
    if state(ctx).json:
        print_json(data)
    elif text:
        click.echo(text)


def choice(allowed: Sequence[Word], text: str) -> Word:
    """An option's value (checked by click.Choice already) as the word of a Literal type it is."""
    from apm_git.model.vocabulary import one_of

    word = one_of(allowed, text)
    if word is None:
        raise UsageError(f"{text!r}: use one of {', '.join(allowed)}")
    return word


def _say_notices(ctx: click.Context) -> None:
    """What this run did on the side, one line each: the notes of the repositories it opened (an interrupted
    commit finished, commits made as apm-git), and the files it skipped for a name that is not UTF-8."""
    obj = ctx.find_root().obj
    for repo in obj.opened if isinstance(obj, CliState) else []:
        for note in repo.take_notes():
            click.echo(f"apm-git: {note}", err=True)
    odd_names = sys.modules.get("apm_git.store.odd_names")  # not imported: nothing to say
    if odd_names is not None:
        for note in odd_names.take_notices():
            click.echo(f"apm-git: {note}", err=True)


if TYPE_CHECKING:
    _TextType = click.ParamType[str]
else:  # click before 8.2 has no generic ParamType
    _TextType = click.ParamType


class Utf8Text(_TextType):
    """Text that goes into memory (an entry, a title, a query, a room id): the UTF-8 its bytes are.

    Under LANG=C without UTF-8 mode Python decodes argv as ASCII and keeps every other byte as a
    surrogate ("café" arrives as "caf\\udcc3\\udca9"), which no UTF-8 file can hold and no id would
    match.  Paths are left as the OS gave them: that form is the one the OS opens.
    """

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        import os

        text = str(value)
        if text.isascii():
            return text
        try:
            return os.fsencode(text).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            self.fail(f"{text.encode('utf-8', 'backslashreplace').decode()!r} is not valid UTF-8; pass UTF-8 text",
                      param, ctx)


UTF8 = Utf8Text()


def _served_elsewhere(ctx: click.Context, error: ApmGitError) -> str | None:
    """For a command run in a project whose Claude Code hooks name a memory of its own (`--repo PATH`):
    that memory, instead of the advice to `apm-git init` the project, which would start a second one."""
    import os

    from apm_git.errors import NotAMemoryRepo

    obj = ctx.obj
    if not isinstance(error, NotAMemoryRepo) or not isinstance(obj, CliState) or obj.repo_path is not None \
            or os.environ.get("APM_GIT_REPO"):
        return None
    from apm_git.agents.claude_settings import served_by

    memory = served_by(Path.cwd())
    if memory is None:
        return None
    return (f"{Path.cwd()} is in no memory repository; this project's Claude Code hooks use the memory at {memory}: "
            f"run the command with `apm-git --repo {memory} …`, or set APM_GIT_REPO={memory}")


def _hook_mode(args: Sequence[str]) -> bool:
    return any(arg == HOOK_FLAG or arg.startswith(HOOK_FLAG + "=") for arg in args)


def _json_after_subcommand(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        state(ctx).json = True


def accept_json_everywhere(command: click.Command) -> None:
    """`apm-git lint --json` means `apm-git --json lint`: users put the flag after the command as often as before.

    Added to each command as the root group resolves it, so no command can forget it; `--json` stays a
    global option in --help and in docs/commands.md.
    """
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            accept_json_everywhere(sub)
    elif not any("--json" in param.opts for param in command.params):
        command.params.append(click.Option(
            ["--json"], is_flag=True, expose_value=False, callback=_json_after_subcommand,
            help="Same as the global --json.",
        ))


class ApmGroup(click.Group):
    """The root group.  Its commands are declared by name and place ("module:attribute", `lazy`), and a
    command's module is imported only when that command runs or a listing (`--help`) shows it: a flush
    does not pay for importing the MCP server, the page or the dreaming commands."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            self.add_command(resolve(cmd_name, self.lazy[cmd_name]))
        return self.commands.get(cmd_name)

    def resolve_all(self) -> dict[str, click.Command]:
        """Every command, imported: what a listing of them all (the reference, the tests) reads."""
        ctx = click.Context(self)
        found = {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}
        return {name: command for name, command in found.items() if command is not None}

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ApmGitError as error:
            warn(f"apm-git: {_served_elsewhere(ctx, error) or error}")
            ctx.exit(error.exit_code)
        except OSError as error:  # the last net: a refusal of the OS that no layer named more precisely
            click.echo(f"apm-git: {describe_os_error(error)}", err=True)
            ctx.exit(EXIT_STATE)
        finally:
            _say_notices(ctx)

    def main(self, args: Sequence[str] | None = None, *rest: Any, **kwargs: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        kwargs["standalone_mode"] = False
        if args is None and _hook_mode(argv):
            from apm_git.deadline import bound

            bound()  # from here on in a child process with a wall-clock bound (docs/agents.md)
        if args is None:
            safe_streams()
        try:
            code = super().main(argv, *rest, **kwargs)
        except click.exceptions.Exit as stop:
            code = stop.exit_code
        except click.ClickException as error:
            error.show()
            code = error.exit_code
        except click.Abort:
            click.echo("apm-git: aborted", err=True)
            code = EXIT_FINDINGS
        code = code if isinstance(code, int) else 0
        if code == EXIT_USAGE and _hook_mode(argv):
            code = EXIT_FINDINGS
        sys.exit(code)


@click.group(cls=ApmGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--repo", "repo_path", type=click.Path(path_type=Path), envvar="APM_GIT_REPO",
    help="Memory repository (default: the one containing the current directory; env APM_GIT_REPO).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout, nothing else.")
@click.version_option(__version__, prog_name="apm-git")
@click.pass_context
def cli(ctx: click.Context, repo_path: Path | None, as_json: bool) -> None:
    """Keep an AI agent's Markdown memory in git: one commit per flush, checked by pre-commit hooks."""
    from_env = ctx.get_parameter_source("repo_path") is click.core.ParameterSource.ENVIRONMENT
    ctx.obj = CliState(repo_path, as_json, "APM_GIT_REPO" if from_env else "--repo")


def resolve(name: str, place: str) -> click.Command:
    """The command declared as `name` at `place` ("module:attribute"), imported, with --json after it."""
    import importlib

    module, _, attribute = place.partition(":")
    command = getattr(importlib.import_module(module), attribute)
    if not isinstance(command, click.Command) or command.name != name:
        raise TypeError(f"{place} is no click command named {name!r}")  # a slip in cli/app.py's COMMANDS
    accept_json_everywhere(command)
    return command


def too_large_line(name: str) -> str:
    """One line on a file flush leaves out whole because it is too large to check."""
    return (f"{name} is too large for apm-git to check, so it was NOT committed; it stays on disk as it is: split "
            "it (`apm-git lint` says how), then flush again")


def withheld_line(section: Any) -> str:
    """One line on a section flush leaves uncommitted for a suspected secret (a WithheldSection), without the secret."""
    where = (f"the section \"{section.heading}\"" if section.heading else
             "the text before the first heading" if section.heading == "" else "a section whose heading")
    spot = f"{section.path}:{section.line}"
    left = "its file was NOT committed" if section.whole else "it was NOT committed (the rest of the file was)"
    return (f"{spot}: {where} holds what looks like a credential ({', '.join(section.kinds)}), so {left}; "
            "it stays on disk as it is: remove the secret and note where it "
            f"lives instead, or if it is not one, `apm-git allow-secret {spot}`; then flush again")
