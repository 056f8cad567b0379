"""`apm-git recall`: the memory relevant to one prompt, for an agent's per-prompt hook.

A prompt-sized load of passages, not sections: the index ranks the passages of live memory (a list item,
a dialog turn, a paragraph, a record) across files, and recall takes them in rank order while the budget
lasts, a passage that does not fit making way for a smaller one further down, until the passages score
under `FLOOR` of the best one (they hold only the prompt's common words).  Passages of one section are
shown together under the section's heading path and the nearest date above it (a session's heading, a
journal's day, a record's date), so "yesterday" in a line can be resolved.  A passage larger than the
whole budget is cut to the lines around its match rather than skipped, so recall is never empty when
live memory holds a match.

Once `apm-git embed` has made the memory's vectors (and the extra `apm-git[meaning]` is installed), the
passages are ranked by meaning and words fused, as `search --meaning` ranks them (apm_git/search/meaning.py):
only the prompt is embedded, and up to 4,096 passages without numpy, so the hook stays within its 0.15 s on a
memory of that size.  Without the extra, or with vectors that cannot be used, it ranks by words.

The archive is never recalled: it ranks below live memory everywhere, and only `search --archive` asks for it;
the plain scan (no FTS5) leaves it out before it ranks, so archived passages cannot crowd out live ones.

A matching section that holds a suspected secret (not marked a false positive) is never recalled, as
`load` passes it over (apm_git/operations/withheld.py): the agent reads one line instead that names
where it is, the kind and how to clear it, never the secret.  Only the sections that matched are
scanned, and what a text holds is cached by its blob id, so a prompt that recalls nothing pays nothing.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from apm_git.errors import UsageError
from apm_git.model.vocabulary import RecallMethod
from apm_git.model.withhold import WithheldSection
from apm_git.store import tokens
from apm_git.store.repo import MemoryRepo

if TYPE_CHECKING:  # the hook imports as little as it can
    from apm_git.operations.withheld import Redactor
    from apm_git.search.index import Hit, Index
    from apm_git.search.terms import Term

DEFAULT_BUDGET = 600  # tokens: "small", a few passages
CANDIDATES = 40  # passages the index ranks for a prompt
# A passage scoring under this share of the best one is left out: on benchmarks/recall_dialogs.py it held only
# a prompt's common words (a name) and cut the tokens spent by a third without losing any evidence.
FLOOR = 0.3
# Ranked by meaning and words (the vectors there), the floor is half the best fused score: on the dialog
# benchmark it cut the tokens spent by a fifth (596 -> 482) for 2.6 points of the evidence (64.0% -> 61.4%);
# 0.7 cut them by half for 11 points.
MEANING_FLOOR = 0.5
WITHHELD_NAMED = 3  # places the one line names; the rest are counted


@dataclasses.dataclass
class Recalled:
    """The passages recalled from one section."""

    file: str  # repo-relative
    line: int  # the first passage's first line
    entry_id: str | None
    heading: str
    trail: str  # the headings above the section, outermost first, joined by " › "
    date: str | None  # the nearest date above (YYYY-MM-DD)
    matched: list[str]
    lines: list[tuple[int, int]]  # each passage's first and last line, in the file's order
    texts: list[str]  # each passage's text, in the same order

    @property
    def text(self) -> str:
        """The passages, "…" between two that are not adjacent."""
        parts = [self.texts[0]]
        for (_, before), (first, _), text in zip(self.lines, self.lines[1:], self.texts[1:], strict=False):
            parts.append(text if first == before + 1 else f"…\n{text}")
        return "\n".join(parts)

    @property
    def headed(self) -> bool:
        """Whether the first passage begins with the section's own heading (a record): no header is added."""
        return self.texts[0].lstrip().startswith("#")

    @property
    def place(self) -> str:
        """The heading path, and the date when the path does not show it."""
        from apm_git.model import text_dates as dates

        path = f"{self.trail} › {self.heading}" if self.trail else self.heading
        return path if self.date is None or dates.find(path) == self.date else f"{path} ({self.date})"


@dataclasses.dataclass
class RecallResult:
    prompt: str
    sections: list[Recalled]
    tokens: int
    budget: int
    method: RecallMethod
    withheld: list[WithheldSection] = dataclasses.field(default_factory=list)  # matched, left out: a suspected secret


def recall(repo: MemoryRepo, prompt: str, *, budget: int = DEFAULT_BUDGET) -> RecallResult:
    from apm_git.errors import NoFts5
    from apm_git.search.index import Index, SearchScope
    from apm_git.search.scan import query_terms, scan_sections

    result = RecallResult(prompt, [], 0, budget, "index")
    floor = FLOOR
    try:
        wanted = query_terms(prompt)
    except UsageError:
        return result  # a prompt with no words ("?", an emoji) recalls nothing
    try:
        index = Index(repo, SearchScope())
    except NoFts5:
        result.method = "scan"
        hits = scan_sections(repo, SearchScope(), wanted, limit=CANDIDATES, archive=False, per_section=False)[0]
    else:
        try:
            fused = _by_meaning(repo, index, prompt, wanted)
            if fused is None:
                hits = index.passages(wanted, limit=CANDIDATES, archive=False)
            else:
                hits, result.method, floor = fused, "meaning", MEANING_FLOOR
        finally:
            index.close()
    if hits:
        counter = tokens.Counter(repo.config.encoding, str(repo.state_dir / tokens.CACHE_FILE))
        _fill(repo, result, hits, wanted, counter, floor).save()
        counter.save()
    return result


def _fill(repo: MemoryRepo, result: RecallResult, hits: list[Hit], wanted: list[Term],
          counter: tokens.Counter, floor_share: float) -> Redactor:
    """Take passages in rank order while the budget lasts; cut the best one when not even it fits.  A section
    that holds a suspected secret gives none of its passages (`result.withheld` names it once)."""
    from apm_git.operations.withheld import Redactor  # here: a prompt that matches nothing never loads it
    from apm_git.search.scan import matched

    redactor = Redactor(repo)
    groups: dict[tuple[str, int], Recalled] = {}
    judged: dict[tuple[str, int], bool] = {}  # section -> withheld
    floor = floor_share * hits[0].score
    for hit in hits:
        if hit.score < floor:
            break
        key = (hit.path, hit.line)
        if key not in judged:
            withheld = _withheld(redactor, repo.repo_path(hit.path), hit.line, hit.heading, hit.text)
            judged[key] = withheld is not None
            if withheld is not None:
                result.withheld.append(withheld)
        if judged[key]:
            continue
        group = groups.get(key)
        text = hit.passage_text
        cost = counter.count(text) + (0 if group else counter.count(_header(repo, hit)))
        if result.tokens + cost > result.budget:
            if groups:
                continue  # a smaller passage further down may still fit
            text = _cut(text, result.budget - (cost - counter.count(text)), counter)
            if not text:
                continue
            cost = result.budget
        result.tokens += cost
        if group is None:
            group = groups[key] = Recalled(repo.repo_path(hit.path), hit.lines[0], hit.entry_id, hit.heading,
                                           hit.trail, hit.date, [], [], [])
            result.sections.append(group)
        at = sum(1 for first, _ in group.lines if first < hit.lines[0])
        group.lines.insert(at, hit.lines)
        group.texts.insert(at, text)
        group.line = group.lines[0][0]
        group.matched = list(dict.fromkeys([*group.matched, *matched(hit, wanted)]))
    return redactor


def _by_meaning(repo: MemoryRepo, index: Index, prompt: str, wanted: list[Term]) -> list[Hit] | None:
    """The passages by meaning and words fused, when `apm-git embed` made the memory's vectors and the extra
    `apm-git[meaning]` is installed; else None (by words).  A hook never fails for the layer: an engine that
    cannot run leaves recall to the words."""
    from apm_git.search.cache import IndexPlace
    from apm_git.search.index import SearchScope

    if not IndexPlace.of(repo, SearchScope().name).vectors.is_file():
        return None  # the common case: nothing of the meaning layer is imported
    from apm_git.search import meaning

    try:
        return meaning.recalled(repo, index, prompt, wanted, limit=CANDIDATES)
    except (ImportError, OSError, RuntimeError) as error:
        import sys

        print(f"apm-git: recall ranked by words: the meaning layer failed ({error})", file=sys.stderr)
        return None


def _header(repo: MemoryRepo, hit: Hit) -> str:
    """What stands above a section's passages (its cost is counted with the section's first passage)."""
    path = f"{hit.trail} › {hit.heading}" if hit.trail else hit.heading
    return f"<!-- apm-git: {repo.repo_path(hit.path)}:{hit.line} -->\n## {path} {hit.date or ''}"


def _cut(text: str, budget: int, counter: tokens.Counter) -> str:
    """The leading lines of `text` that fit `budget` (a passage is at most a few lines: its start holds the
    match or sits next to it); when not even its first line fits, that line's leading words, marked "…"."""
    if budget <= 0:
        return ""
    lines = counter.fit(text + "\n", budget).text.rstrip("\n")
    if lines:
        return lines
    words = text.split("\n", 1)[0].split(" ")
    low, high = 0, len(words)
    while low < high:  # the most leading words that fit, with the mark
        middle = (low + high + 1) // 2
        if counter.count(" ".join(words[:middle]) + " …") <= budget:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low]) + " …" if low else ""


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
    """What the agent reads: a line that says where it came from, then the heading path and date, then the
    passages of each section."""
    if not result.sections:
        return f"{withheld_line(result)}\n" if result.withheld else ""
    parts = ["# Memory recalled by apm-git for this prompt\n"]
    for item in result.sections:
        ref = f"entry {item.entry_id}, " if item.entry_id else ""
        head = "" if item.headed else f"## {item.place}\n"
        parts.append(f"\n<!-- apm-git: {ref}{item.file}:{item.line} -->\n{head}{item.text.rstrip()}\n")
    if result.withheld:
        parts.append(f"\n{withheld_line(result)}\n")
    return "".join(parts)


def claude_hook(result: RecallResult) -> str:
    """The UserPromptSubmit hook's answer (one line of JSON), or "" when nothing matched: nothing is added."""
    from apm_git.hookoutput import HOOK_LIMIT, cap, hook_json

    text = markdown(result)
    return hook_json("UserPromptSubmit", cap(text, HOOK_LIMIT)) if text else ""

