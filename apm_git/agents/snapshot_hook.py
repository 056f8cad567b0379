"""`apm-git-snapshot`: the snapshot hook's own entry point, `apm-git snapshot --hook-input -` without click.

The agents wait for their hooks (Claude Code gives SessionEnd 1.5 s in all), so this entry imports only
what a snapshot needs.  It answers `apm-git-snapshot --agent AGENT [--folder PATH] --hook-input -` itself;
any other argument list goes to the full command line as `apm-git snapshot ARGS`.  A hook never exits 2
(that would block the agent's compaction): a failure is one line on stderr and exit 1, and so is a snapshot
that withheld a file (the agents show a hook's stderr only when it exits non-zero).

Its payload is read here with `json` alone, not through apm_git.hookinput (a dataclass and the vocabulary
of every command: about 20 ms of CPU at each agent event, measured with benchmarks/bench_tracking.py).

What it prints on stdout: nothing, except at a session's start, when there is something the user and
the agent must know (a file withheld for a suspected secret, MEMORY.md past the loading cap): then the
SessionStart JSON Claude Code and Codex read, `systemMessage` for the user and `additionalContext` for
the agent.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

EXIT_OK, EXIT_FINDINGS = 0, 1


def _say(line: str) -> None:
    from apm_git.printable import one_line

    sys.stderr.write(one_line(line) + "\n")
    sys.stderr.flush()


def answer_payload(agent: str, text: str, folder: Path | None) -> tuple[int, str]:
    """Snapshot the tracked folders an agent's hook payload is about: (exit code, what to print on stdout)."""
    from apm_git.errors import ApmGitError, describe_os_error

    try:
        from apm_git.operations import snapshot as snapshots
        from apm_git.tracking.agents import PROFILES, trigger_of

        profile = PROFILES[agent]  # type: ignore[index]  # the caller checked the word
        payload = read_payload(text)
        event = payload.get("hook_event_name")
        trigger = trigger_of(profile, event)
        if trigger is None:
            return EXIT_OK, ""  # an event that snapshots nothing (or another agent's)
        session = payload.get("session_id")
        shots = []
        for tracked in snapshots.hook_targets(agent, cwd=payload.get("cwd"), transcript=payload.get("transcript_path"),
                                              folder=folder):
            shot = snapshots.take(tracked, trigger, session=session)
            snapshots.note_session(tracked, trigger, session)
            shots.append(shot)
    except ApmGitError as error:
        _say(f"apm-git: {error}")
        return EXIT_FINDINGS, ""
    except OSError as error:
        _say(f"apm-git: {describe_os_error(error)}")
        return EXIT_FINDINGS, ""
    notes = [note for shot in shots for note in _notes(shot)]
    if trigger == "session-start" and notes and agent != "openclaw":
        return EXIT_OK, start_json(event or "SessionStart", notes)
    for note in notes:
        _say(f"apm-git: WARNING: {note}")
    # Something withheld exits 1: an agent's host shows a hook's stderr then, and nothing for 0 (never 2).
    return (EXIT_FINDINGS if any(shot.withheld for shot in shots) else EXIT_OK), ""


def read_payload(text: str) -> dict[str, str | None]:
    """The text fields of a hook payload (`hook_event_name`, `session_id`, `cwd`, `transcript_path`; absent,
    empty or not text: None); BadHookInput, as apm_git.hookinput words it, when it is no JSON object."""
    import json

    from apm_git import jsontext
    from apm_git.errors import BadHookInput

    if not text.strip():
        raise BadHookInput("the hook input is empty; the agent hook must pipe its JSON payload to --hook-input -")
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as error:
        raise BadHookInput(f"the hook input is not valid JSON (line {error.lineno}, column {error.colno}: "
                           f"{error.msg}); check the hook command pipes the payload unchanged") from None
    if not isinstance(data, dict):
        raise BadHookInput("the hook input must be a JSON object like {\"session_id\": …, \"hook_event_name\": …}")
    return {key: value if isinstance(value := data.get(key), str) and value else None
            for key in ("hook_event_name", "session_id", "cwd", "transcript_path")}


def _notes(shot: object) -> list[str]:
    from apm_git.operations.snapshot import TrackedSnapshot

    assert isinstance(shot, TrackedSnapshot)
    lines = [f"{shot.tracked.folder}/{item.path}{':' + str(item.line) if item.line else ''} is not in apm-git's "
             f"history: {item.why}" for item in shot.withheld]
    if shot.cap is not None and shot.cap.over:
        lines.append(shot.cap.summary() + " — read the rest of the file when it matters, and keep MEMORY.md short "
                     "(an index of topic files)")
    return lines


def start_json(event: str, notes: Sequence[str]) -> str:
    """The SessionStart answer: the notes for the user (`systemMessage`) and for the agent (`additionalContext`)."""
    import json

    from apm_git.hookoutput import HOOK_LIMIT, cap

    text = "apm-git: " + "\napm-git: ".join(notes)
    return json.dumps({"systemMessage": text[:2000],
                       "hookSpecificOutput": {"hookEventName": event, "additionalContext": cap(text, HOOK_LIMIT)}},
                      ensure_ascii=False)


def fast_args(args: Sequence[str]) -> tuple[str, Path | None] | None:
    """(agent, folder) when this entry answers the arguments itself: `--agent AGENT [--folder PATH]
    --hook-input -` in any order; None for anything else."""
    from apm_git.tracking.agents import PROFILES

    rest = list(args)
    agent: str | None = None
    folder: Path | None = None
    hook = False
    while rest:
        word = rest.pop(0)
        if word in ("--agent", "--folder", "--hook-input") and rest:
            value = rest.pop(0)
        elif word.startswith(("--agent=", "--folder=", "--hook-input=")):
            word, _, value = word.partition("=")
        else:
            return None
        if word == "--agent" and value in PROFILES:
            agent = value
        elif word == "--folder" and value and not value.startswith("-"):
            folder = Path(value)
        elif word == "--hook-input" and value == "-":
            hook = True
        else:
            return None
    return (agent, folder) if agent is not None and hook else None


def main(argv: Sequence[str] | None = None) -> int:
    from apm_git.streams import safe_streams

    args = list(sys.argv[1:] if argv is None else argv)
    if argv is None:
        safe_streams()
    found = fast_args(args)
    if found is None:
        from apm_git.cli.app import main as full

        return full(["snapshot", *_folder_as_target(args)])
    agent, folder = found
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as error:
        _say(f"apm-git: the hook input is not valid UTF-8 (byte {error.start}); check the hook pipes the payload "
             "unchanged")
        return EXIT_FINDINGS
    code, out = answer_payload(agent, text, folder)
    if out:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
    return code


def _folder_as_target(args: list[str]) -> list[str]:
    """`--folder PATH` of this entry is the TRACKED argument of `apm-git snapshot`."""
    out: list[str] = []
    rest = list(args)
    while rest:
        word = rest.pop(0)
        if word == "--folder" and rest:
            out.append(rest.pop(0))
        elif word.startswith("--folder="):
            out.append(word.partition("=")[2])
        else:
            out.append(word)
    return out


if __name__ == "__main__":
    sys.exit(main())
