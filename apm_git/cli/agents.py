"""recall and hooks (install, uninstall, status): wiring apm-git into an agent."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import IO

import click

from apm_git.cli import UTF8, cli, emit, state
from apm_git.errors import EXIT_FINDINGS, EXIT_OK, UsageError

RECALL_FORMATS = ("markdown", "claude-hook")


@cli.command("recall")
@click.argument("prompt", required=False, type=UTF8)
@click.option("--hook-input", "hook_input", type=click.File("r", encoding="utf-8"),
              help="UserPromptSubmit hook payload (JSON) from FILE or - for stdin: the prompt and cwd.")
@click.option("--budget", type=click.IntRange(min=1), help="Token budget (default: 600, a few records).")
@click.option("--format", "fmt", type=click.Choice(RECALL_FORMATS),
              help="Output format (default: markdown; claude-hook under --hook-input).")
@click.pass_context
def recall_cmd(ctx: click.Context, prompt: str | None, hook_input: IO[str] | None, budget: int | None,
               fmt: str | None) -> int:
    """The memory relevant to PROMPT (a per-prompt hook): the best-matching sections, whole, under a small
    budget; nothing at all when nothing matches."""
    from apm_git.cli.load_format import HOOK_LIMIT, cap
    from apm_git.commands.recall import DEFAULT_BUDGET, markdown, recall
    from apm_git.hookinput import open_hook_repo, read_payload

    if hook_input is not None:
        payload = read_payload(hook_input)
        prompt = prompt or payload.prompt
        repo = open_hook_repo(state(ctx).repo_path, payload)
        fmt = fmt or "claude-hook"
    else:
        if prompt is None:
            raise UsageError("give the PROMPT to recall for, or --hook-input - with a UserPromptSubmit payload")
        repo = state(ctx).repo()
    result = recall(repo, prompt or "", budget=budget or DEFAULT_BUDGET)
    if state(ctx).json:
        emit(ctx, dataclasses.asdict(result), None)
        return EXIT_OK
    text = markdown(result)
    if not text:
        return EXIT_OK  # nothing matched: nothing is added to the prompt
    if fmt == "claude-hook":
        click.echo(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                                      "additionalContext": cap(text, HOOK_LIMIT)}},
                              ensure_ascii=False))
    else:
        click.echo(text, nl=False)
    return EXIT_OK


@cli.group("hooks")
def hooks_group() -> None:
    """Install apm-git's hooks into an agent (Claude Code) and check them."""


AGENTS = ("claude-code",)


def _place(user: bool) -> str:
    return "user" if user else "project"


@hooks_group.command("install")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--user/--project", "user", default=False,
              help="Into ~/.claude/settings.json (every project) or .claude/settings.json of the current "
                   "directory (the default: --project).")
@click.option("--memory", type=click.Path(path_type=Path),
              help="The memory repository, when it is not the project (written into the hook commands).")
@click.option("--recall", "with_recall", is_flag=True,
              help="Also the UserPromptSubmit hook that adds the memory relevant to each prompt.")
@click.pass_context
def install_cmd(ctx: click.Context, agent: str, user: bool, memory: Path | None, with_recall: bool) -> int:
    """Merge apm-git's hooks into the agent's settings; everything else in the file stays as it was."""
    from apm_git.agents.hooks import install_claude_code

    memory = memory or state(ctx).repo_path
    result = install_claude_code(user=user, project=Path.cwd(), memory=memory, recall=with_recall)
    where = f"{result.path} ({_place(user)})"
    if result.written:
        text = f"apm-git: installed {', '.join(result.added)} hook(s) into {where}"
    else:
        text = f"apm-git: the hooks are already installed in {where}: nothing changed"
    memory_line = f"\n  memory repository: {result.memory}" if result.memory else \
        "\n  memory repository: the project folder of each session (the payload's cwd)"
    emit(ctx, dataclasses.asdict(result), text + memory_line + "\n  check them with `apm-git hooks status`")
    return EXIT_OK


@hooks_group.command("uninstall")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--user/--project", "user", default=False,
              help="From ~/.claude/settings.json or from .claude/settings.json of the current directory "
                   "(the default: --project).")
@click.pass_context
def uninstall_cmd(ctx: click.Context, agent: str, user: bool) -> int:
    """Remove exactly the hooks that install added."""
    from apm_git.agents.hooks import uninstall_claude_code

    result = uninstall_claude_code(user=user, project=Path.cwd())
    text = (f"apm-git: removed the {', '.join(result.removed)} hook(s) from {result.path}" if result.written
            else f"apm-git: no apm-git hook in {result.path}: nothing changed")
    emit(ctx, dataclasses.asdict(result), text)
    return EXIT_OK


@hooks_group.command("status")
@click.option("--no-run", is_flag=True, help="Only list the hooks; do not run them.")
@click.pass_context
def status_cmd(ctx: click.Context, no_run: bool) -> int:
    """What is installed where; each hook command run once with a synthetic payload (a flush hook makes a real
    flush of session apm-git-hooks-status).  Exit 1 when a hook fails."""
    from apm_git.agents.hooks import status_claude_code

    places = status_claude_code(project=Path.cwd(), run=not no_run)
    lines, failed = [], False
    for place in places:
        if not place.hooks:
            lines.append(f"{place.where}: {place.path}: " + ("no apm-git hook" if place.exists else "no such file"))
            continue
        lines.append(f"{place.where}: {place.path}")
        for check in place.hooks:
            failed = failed or not check.passed
            verdict = "PASS" if check.passed else "FAIL"
            lines.append(f"  {verdict} {check.event}: {check.command}" + ("" if no_run else f"\n       {check.detail}"))
    if not any(place.hooks for place in places):
        lines.append("apm-git: no hooks installed; run `apm-git hooks install claude-code`")
    emit(ctx, [dataclasses.asdict(place) for place in places], "\n".join(lines))
    return EXIT_FINDINGS if failed else EXIT_OK
