"""`apm-git recall`: the memory relevant to one prompt, for an agent's per-prompt hook.

A prompt-sized load: the sections of live memory that the full-text index ranks best for the
prompt, each whole, under a small token budget, and nothing at all when nothing matches well
enough (a hook that adds noise to every prompt is worse than none).  A section counts as a match
when it holds at least two of the prompt's words (the one word of a one-word prompt).  The archive
is never recalled: it ranks below live memory everywhere, and only `search --archive` asks for it;
the plain scan (no FTS5) leaves it out before it ranks, so archived sections cannot crowd out live ones.
"""
from __future__ import annotations

import dataclasses

from apm_git.errors import UsageError
from apm_git.model.vocabulary import SearchMethod
from apm_git.store import tokens
from apm_git.store.repo import MemoryRepo

DEFAULT_BUDGET = 600  # tokens: "small", a few records
CANDIDATES = 12
MIN_WORDS = 2


@dataclasses.dataclass(frozen=True)
class Recalled:
    file: str  # repo-relative
    line: int
    entry_id: str | None
    matched: list[str]
    text: str


@dataclasses.dataclass
class RecallResult:
    prompt: str
    sections: list[Recalled]
    tokens: int
    budget: int
    method: SearchMethod


def recall(repo: MemoryRepo, prompt: str, *, budget: int = DEFAULT_BUDGET) -> RecallResult:
    from apm_git.errors import NoFts5
    from apm_git.search.index import Index, Scope
    from apm_git.search.scan import matched, query_terms, scan_sections

    result = RecallResult(prompt, [], 0, budget, "index")
    try:
        wanted = query_terms(prompt)
    except UsageError:
        return result  # a prompt with no words ("?", an emoji) recalls nothing
    try:
        index = Index(repo, Scope())
    except NoFts5:
        result.method = "scan"
        hits = scan_sections(repo, Scope(), wanted, limit=CANDIDATES, archive=False)[0]
    else:
        try:
            hits = index.search(wanted, limit=CANDIDATES, archive=False)[0]
        finally:
            index.close()
    need = min(MIN_WORDS, len(wanted))
    counter = None  # read only when a section matches
    for hit in hits:
        words = matched(hit, wanted)
        if len(words) < need:
            continue
        counter = counter or tokens.Counter(repo.config.encoding, str(repo.state_dir / tokens.CACHE_FILE))
        cost = counter.count(hit.text)  # cached: a section counted before needs no tiktoken
        if result.tokens + cost > budget:
            continue  # a smaller section further down may still fit
        result.tokens += cost
        result.sections.append(Recalled(repo.repo_path(hit.path), hit.line, hit.entry_id, words, hit.text))
    if counter is not None:
        counter.save()
    return result


def markdown(result: RecallResult) -> str:
    """What the agent reads: a line that says where it came from, then each section whole."""
    if not result.sections:
        return ""
    parts = ["# Memory recalled by apm-git for this prompt\n"]
    for item in result.sections:
        ref = f"entry {item.entry_id}, " if item.entry_id else ""
        parts.append(f"\n<!-- apm-git: {ref}{item.file}:{item.line} (matched {', '.join(item.matched)}) -->\n"
                     f"{item.text.rstrip()}\n")
    return "".join(parts)


def claude_hook(result: RecallResult) -> str:
    """The UserPromptSubmit hook's answer (one line of JSON), or "" when nothing matched: nothing is added."""
    from apm_git.hookoutput import HOOK_LIMIT, cap, hook_json

    text = markdown(result)
    return hook_json("UserPromptSubmit", cap(text, HOOK_LIMIT)) if text else ""
