"""Routing tables of the APM indexes (`groups/<group>.md`, `main/index.md`), and intent matching.

An index holds one table under a `## Routing` heading:

    | Trigger keywords | File | Priority |
    |---|---|---|
    | task, todo, blocker | attention.md | P0 |

Files are relative to the folder the index guards (`groups/<group>/` or `main/`).  The
index is append-only, so a retired row is kept and marked `[DEPRECATED]` (anywhere on its
line): such a row takes no part in routing and is never reported as a problem.  Parsing
is pure: problems come back with their line numbers, nothing is raised.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import NamedTuple

from apm_git.model.records import BOM, Problem, newline_of, ready_to_append, split_lines, strip_eol
from apm_git.model.tables import table_cells

PRIORITIES = ("P0", "P1", "P2", "P3")
DEPRECATED = "[DEPRECATED]"
HEADING = "## Routing"
HEADER = ("Trigger keywords", "File", "Priority")
DEFAULT_FILE = "attention.md"  # the seed's P0 file, when a table has no P0 row

_HEADING = re.compile(r"#{2,3}\s+routing\b.*", re.IGNORECASE)
_SEPARATOR_CELL = re.compile(r":?-{3,}:?")
_WORD = re.compile(r"\w+")
_SAFE_FILE = re.compile(r"[\w][\w.-]*(/[\w][\w.-]*)*\.md")
_SUFFIXES = ("ments", "ment", "ings", "ing", "ies", "ers", "er", "ed", "es", "s")


# NamedTuples, not frozen dataclasses: the pre-commit hook imports this module (apm_git.model.slotted).
class Route(NamedTuple):
    """One row of a routing table; `line` is its 1-based line number in the index."""

    keywords: tuple[str, ...]
    file: str
    priority: str
    line: int
    deprecated: bool = False

    @property
    def rank(self) -> int:
        """0 for P0 (the highest priority) to 3 for P3."""
        return PRIORITIES.index(self.priority)


class RoutingTable(NamedTuple):
    """The routing table of INDEX.md: its rows, what is wrong with it, and where a row is appended."""

    routes: tuple[Route, ...]  # every well-formed row, deprecated ones included
    problems: tuple[Problem, ...]
    found: bool  # whether the index has a routing table at all
    end_line: int = 0  # the line after which a new row is appended (0: no table)

    @property
    def active(self) -> list[Route]:
        return [route for route in self.routes if not route.deprecated]


def safe_file(name: str) -> bool:
    """A relative `.md` path that stays in the index's folder (no `..`, no absolute path, no `~`)."""
    return bool(_SAFE_FILE.fullmatch(name)) and ".." not in name.split("/")


def parse_routing(text: str) -> RoutingTable:
    lines = [strip_eol(line) for line in split_lines(text.removeprefix(BOM))]
    start = next((index for index, line in enumerate(lines) if _HEADING.fullmatch(line.strip())), None)
    if start is None:
        return RoutingTable((), (), found=False)
    routes: list[Route] = []
    problems: list[Problem] = []
    index = start + 1
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index >= len(lines) or not lines[index].lstrip().startswith("|"):
        problems.append(Problem(start + 1, "the Routing heading has no table under it; add "
                                           "'| Trigger keywords | File | Priority |' and a '|---|---|---|' line"))
        return RoutingTable((), tuple(problems), found=True, end_line=start + 1)
    header = [cell.lower() for cell in table_cells(lines[index])]
    if header[:3] != [name.lower() for name in HEADER]:
        problems.append(Problem(index + 1, "routing table header must be '| Trigger keywords | File | Priority |'"))
    index += 1
    if index < len(lines) and _separator_row(lines[index]):
        index += 1
    else:
        problems.append(Problem(index + 1, "routing table needs a '|---|---|---|' line under its header"))
    while index < len(lines) and lines[index].lstrip().startswith("|"):
        route, problem = _parse_row(lines[index], index + 1)
        if route is not None:
            routes.append(route)
        if problem is not None:
            problems.append(problem)
        index += 1
    return RoutingTable(tuple(routes), tuple(problems), found=True, end_line=index)


def _separator_row(line: str) -> bool:
    """`|---|:--:|---|`: cells of three or more dashes (a colon may stand at either end), pipes at the ends
    optional.  Cell by cell: one regular expression over the row backtracks quadratically on spaces."""
    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") else row
    return all(_SEPARATOR_CELL.fullmatch(cell.strip()) for cell in row.split("|"))


def _parse_row(line: str, number: int) -> tuple[Route | None, Problem | None]:
    deprecated = DEPRECATED in line
    cells = table_cells(line.replace(DEPRECATED, ""))
    while len(cells) > 3 and not cells[-1]:
        cells.pop()
    if len(cells) != 3:
        return None, None if deprecated else Problem(
            number, f"routing row has {len(cells)} cells; write '| keyword, keyword | file.md | P0 |'",
        )
    raw_keywords, file, priority = cells
    keywords = tuple(word.strip().lower() for word in raw_keywords.split(",") if word.strip())
    problem = None
    if not keywords:
        problem = Problem(number, "routing row has no trigger keywords; list them comma-separated")
    elif priority not in PRIORITIES:
        problem = Problem(number, f"routing row priority {priority!r} is not one of P0, P1, P2, P3")
    elif not safe_file(file):
        problem = Problem(
            number, f"routing row file {file!r} must be a .md path inside the index's folder (no '..', not absolute)",
        )
    if problem is not None:
        return None, None if deprecated else problem
    return Route(keywords, file, priority, number, deprecated), None


def routing_problems(index_text: str, existing_files: Collection[str]) -> list[Problem]:
    """Everything wrong with an index's routing table, by line.

    `existing_files` are the files of the index's folder, relative to it (`attention.md`,
    `conventions/api.md`); every active row must name one of them.
    """
    table = parse_routing(index_text)
    if not table.found:
        return [Problem(1, f"no '{HEADING}' table; add one (see apm-git's docs/loading.md: Routing tables)")]
    problems = list(table.problems)
    for route in table.active:
        if route.file not in existing_files:
            problems.append(Problem(route.line, f"routing row names {route.file}, which does not exist; "
                                                "create the file or mark the row [DEPRECATED]"))
    return sorted(problems, key=lambda problem: problem.line)


# --------------------------------------------------------------------------- intent matching

def stem(word: str) -> str:
    """A crude English stem: enough for 'deploys', 'deploying', 'deployment' to meet 'deploy'."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def _word_hits(keyword_word: str, intent_word: str) -> bool:
    if stem(keyword_word) == stem(intent_word):
        return True
    # A longer keyword also matches a word it starts ("team" -> "teammates"); short ones must be whole.
    return len(keyword_word) >= 4 and intent_word.startswith(keyword_word)


def keyword_hits(keywords: Sequence[str], intent: str) -> list[str]:
    """The keywords found in the intent: each keyword's words in a row, case-insensitive, stemmed."""
    said = words(intent)
    hits = []
    for keyword in keywords:
        parts = words(keyword)
        if not parts:
            continue
        for start in range(len(said) - len(parts) + 1):
            if all(_word_hits(part, said[start + offset]) for offset, part in enumerate(parts)):
                hits.append(keyword)
                break
    return hits


class RouteChoice(NamedTuple):
    """Why a file was chosen: the keywords it matched, or that nothing matched."""

    file: str
    priority: str
    hits: tuple[str, ...]
    line: int | None
    reason: str


def rank_routes(table: RoutingTable, intent: str | None) -> list[RouteChoice]:
    """Active routes, best first: most keyword hits, then highest priority (P0 first), then row order.

    Without an intent (or without a hit) the P0 row leads; a table with no active row routes
    to `attention.md`, the seed's P0 file.
    """
    scored = []
    fallback = "no keyword of the intent matched: by priority" if intent else "no intent given: by priority"
    for order, route in enumerate(table.active):
        hits = tuple(keyword_hits(route.keywords, intent)) if intent else ()
        reason = f"matched {', '.join(hits)}" if hits else fallback
        scored.append((-len(hits), route.rank, order, RouteChoice(route.file, route.priority, hits, route.line,
                                                                  reason)))
    scored.sort(key=lambda item: item[:3])
    choices: list[RouteChoice] = []
    for *_, choice in scored:
        if all(choice.file != seen.file for seen in choices):
            choices.append(choice)
    return choices or [RouteChoice(DEFAULT_FILE, "P0", (), None, "the routing table has no usable row: the P0 file")]


# --------------------------------------------------------------------------- append-only edits

def render_row(keywords: Sequence[str], file: str, priority: str) -> str:
    return f"| {', '.join(keywords)} | {file} | {priority} |"


def append_row(text: str, row: str) -> str:
    """`text` with `row` added as the table's last row (lines are only ever added, never changed).

    An index whose Routing heading has no table gets one under the heading; an index without
    the heading gets the whole section at its end.
    """
    bom = BOM if text.startswith(BOM) else ""
    lines = split_lines(text[len(bom):])
    newline = newline_of(text)
    table_lines = ["| " + " | ".join(HEADER) + " |", "|---|---|---|", row]
    table = parse_routing(text)
    if not table.found:
        return bom + ready_to_append("".join(lines), newline) + newline.join([HEADING, "", *table_lines]) + newline
    at = table.end_line  # the 0-based index right after the table (or after a bare heading)
    new = [row] if lines[at - 1].lstrip().startswith("|") else ["", *table_lines]
    if not lines[at - 1].endswith("\n"):
        lines[at - 1] += newline
    lines[at:at] = [line + newline for line in new]
    return bom + "".join(lines)


def deprecate_rows(text: str, lines_to_mark: Collection[int]) -> str:
    """`text` with ` [DEPRECATED]` added at the end of the given 1-based lines, everything else kept."""
    bom = BOM if text.startswith(BOM) else ""
    lines = split_lines(text[len(bom):])
    for number in lines_to_mark:
        line = lines[number - 1]
        content = strip_eol(line)
        if DEPRECATED not in content:
            lines[number - 1] = f"{content} {DEPRECATED}{line[len(content):]}"
    return bom + "".join(lines)
