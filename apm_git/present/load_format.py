"""The three output formats of `load`: markdown (what an agent reads), json, and claude-hook."""
from __future__ import annotations

from apm_git.commands.load import LoadResult
from apm_git.hookoutput import FILE_MARK, HOOK_LIMIT, cap, hook_json
from apm_git.model.withhold import WithheldSection
from apm_git.operations.load_guards import LoadedFile

WITHHELD_SHOWN = 10


def _what(item: LoadedFile) -> str:
    role = item.priority or item.role
    return f"{role}, {item.tokens} tokens" + (f" of {item.file_tokens}" if item.cut else "")


def _title(result: LoadResult) -> str:
    if result.mode == "group":
        room = f", room {result.room}" if result.room else ""
        return f"group {result.group}{room}"
    return "DM (main session)" if result.mode == "main" else "Dreaming mount (L1 + L2)"


def summary(result: LoadResult) -> list[str]:
    lines = [f"# Memory loaded by apm-git: {_title(result)}", ""]
    if result.intent:
        lines.append(f"Intent: {result.intent}")
    for route in result.routes:
        lines.append(f"Route: {route.file} ({route.priority}): {route.reason}")
    if result.mode == "dreaming":
        lines.append(f"L2 domain: {result.domain} (matched {', '.join(result.domain_hits)})" if result.domain
                     else "L2 domain: none (no domain keyword matched)" if result.intent
                     else "L2: none (no intent); L1 only")
    if result.recall:
        lines.append(f"L2 sections from the search index: {result.recall}")
    if result.last_flush is not None:
        lines.append(f"Last flush: {result.last_flush}")
    session = f"; session {result.session}" if result.session else ""
    lines.append(f"Tokens: {result.tokens} of {result.budget} ({result.encoding}{session})")
    lines += ["", "Loaded:"]
    lines += [f"- {item.path} ({_what(item)})" + (f": {item.why}" if item.why else "")
              + (f"; {item.cut}" if item.cut else "") for item in result.files]
    if not result.files:
        lines.append("- nothing")
    if result.skipped:
        lines += ["", "Skipped:"]
        lines += [f"- {item.path}: {item.reason}" for item in result.skipped]
    if result.warnings:
        lines += ["", "Warnings:"]
        lines += [f"- {warning}" for warning in result.warnings]
    return lines + withheld_notice(result.withheld)


def withheld_notice(sections: list[WithheldSection]) -> list[str]:
    """What flush keeps out of the commits (suspected secrets) and how to clear it; never the secret."""
    if not sections:
        return []
    lines = ["", "Withheld (suspected secrets): each section below stays on disk, uncommitted, and is left out of "
                 "this context:"]
    for section in sections[:WITHHELD_SHOWN]:
        where = (f"section \"{section.heading}\"" if section.heading else
                 "the text before the first heading" if section.heading == "" else "a section whose heading holds it")
        lines.append(f"- {section.path}:{section.line}, {where}: {', '.join(section.kinds)}")
    if len(sections) > WITHHELD_SHOWN:
        lines.append(f"- and {len(sections) - WITHHELD_SHOWN} more (`apm-git status` lists them)")
    lines.append("To clear one: remove the secret from the section and note where it lives instead (\"in the team "
                 "vault\"); if it is not a secret, `apm-git allow-secret PATH:LINE`; then `apm-git flush`.")
    return lines


def markdown(result: LoadResult, *, guide: bool = True) -> str:
    parts = ["\n".join(summary(result)) + "\n"]
    for item in result.files:
        text = item.text if item.text.endswith("\n") or not item.text else item.text + "\n"
        parts.append(f"\n{FILE_MARK}{item.path} ({_what(item)}) -->\n{text}")
    if result.guide and guide:
        parts.append(f"\n{result.guide}")
    return "".join(parts)


def claude_hook(result: LoadResult, limit: int = HOOK_LIMIT, *, program: str = "apm-git") -> str:
    guide = f"\n{result.guide}" if result.guide else ""  # the guide is never cut
    context = cap(markdown(result, guide=False), limit - len(guide), program=program) + guide
    return hook_json("SessionStart", context)
