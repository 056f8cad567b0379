"""`apm-git recall`: the memory relevant to one prompt, for an agent's per-prompt hook.

A prompt-sized load: the sections of live memory that the full-text index ranks best for the
prompt, each whole, under a small token budget, and nothing at all when nothing matches well
enough (a hook that adds noise to every prompt is worse than none).  A section counts as a match
when it holds at least two of the prompt's words (the one word of a one-word prompt).  The archive
is never recalled: it ranks below live memory everywhere, and only `search --archive` asks for it;
the plain scan (no FTS5) leaves it out before it ranks, so archived sections cannot crowd out live ones.

A matching section that holds a suspected secret (not marked a false positive) is never recalled, as
`load` passes it over (apm_git/operations/withheld.py): the agent reads one line instead that names
where it is, the kind and how to clear it, never the secret.  Only the sections that matched are
scanned, and what a text holds is cached by its blob id, so a prompt that recalls nothing pays nothing.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from apm_git.errors import UsageError
from apm_git.model.vocabulary import SearchMethod
from apm_git.model.withhold import WithheldSection
from apm_git.store import tokens
from apm_git.store.repo import MemoryRepo

if TYPE_CHECKING:
    from apm_git.operations.withheld import Redactor

DEFAULT_BUDGET = 600  # tokens: "small", a few records
CANDIDATES = 12
MIN_WORDS = 2
WITHHELD_NAMED = 3  # places the one line names; the rest are counted


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
    withheld: list[WithheldSection] = dataclasses.field(default_factory=list)  # matched, left out: a suspected secret


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
    redactor = None  # likewise
    for hit in hits:
        words = matched(hit, wanted)
        if len(words) < need:
            continue
        if redactor is None:
            from apm_git.operations.withheld import Redactor  # here: a prompt that matches nothing never loads it

            redactor = Redactor(repo)
        withheld = _withheld(redactor, repo.repo_path(hit.path), hit.line, hit.heading, hit.text)
        if withheld is not None:
            result.withheld.append(withheld)
            continue
        counter = counter or tokens.Counter(repo.config.encoding, str(repo.state_dir / tokens.CACHE_FILE))
        cost = counter.count(hit.text)  # cached: a section counted before needs no tiktoken
        if result.tokens + cost > budget:
            continue  # a smaller section further down may still fit
        result.tokens += cost
        result.sections.append(Recalled(repo.repo_path(hit.path), hit.line, hit.entry_id, words, hit.text))
    if counter is not None:
        counter.save()
    if redactor is not None:
        redactor.save()
    return result


def _withheld(redactor: Redactor, path: str, start: int, heading: str, text: str) -> WithheldSection | None:
    """The section `text` (line `start` of `path`) as left out for a suspected secret, or None when it holds none."""
    found = redactor.suspects(path, text)
    if not found:
        return None
    first = min(found)
    kinds = sorted({kind for line_kinds in found.values() for kind in line_kinds})
    named = None if first == 1 and text.lstrip().startswith("#") else heading  # never show a heading that holds it
    return WithheldSection(path, start + first - 1, named, kinds)


def withheld_line(result: RecallResult) -> str:
    """The one line the agent reads about matching sections left out (suspected secrets); never the secret."""
    sections = result.withheld
    places = "; ".join(f"{item.path}:{item.line} ({', '.join(item.kinds)})" for item in sections[:WITHHELD_NAMED])
    more = f"; and {len(sections) - WITHHELD_NAMED} more" if len(sections) > WITHHELD_NAMED else ""
    what = "1 section" if len(sections) == 1 else f"{len(sections)} sections"
    return (f"[apm-git: {what} of memory matching this prompt left out here: "
            f"{'it holds' if len(sections) == 1 else 'each holds'} what looks like a credential "
            f"({places}{more}); to clear: remove the secret and note where it lives instead, or if it is not one, "
            "`apm-git allow-secret PATH:LINE`; then `apm-git flush`]")


def markdown(result: RecallResult) -> str:
    """What the agent reads: a line that says where it came from, then each section whole."""
    if not result.sections:
        return f"{withheld_line(result)}\n" if result.withheld else ""
    parts = ["# Memory recalled by apm-git for this prompt\n"]
    for item in result.sections:
        ref = f"entry {item.entry_id}, " if item.entry_id else ""
        parts.append(f"\n<!-- apm-git: {ref}{item.file}:{item.line} (matched {', '.join(item.matched)}) -->\n"
                     f"{item.text.rstrip()}\n")
    if result.withheld:
        parts.append(f"\n{withheld_line(result)}\n")
    return "".join(parts)


def claude_hook(result: RecallResult) -> str:
    """The UserPromptSubmit hook's answer (one line of JSON), or "" when nothing matched: nothing is added."""
    from apm_git.hookoutput import HOOK_LIMIT, cap, hook_json

    text = markdown(result)
    return hook_json("UserPromptSubmit", cap(text, HOOK_LIMIT)) if text else ""
