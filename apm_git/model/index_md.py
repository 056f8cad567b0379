"""`INDEX.md`, the Dreaming index: rendered from the files themselves, and read back for checks.

The shape is the seed's: a header line (rebuild date, file count, budget), then the
Hot Files, On-Demand Files and Daily Journals tables, and a Conflicts section when
entries are in conflict.  Everything comes from the files' text, so the same tree
and date always give the same index.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import NamedTuple

from apm_git.model.records import Record, RecordFile, count_lines, strip_eol
from apm_git.model.slotted import Slotted
from apm_git.model.tables import table_cells

TITLE = "# Memory Index"
HOT = "## Hot Files (load on session start)"
ON_DEMAND = "## On-Demand Files (load when relevant)"
JOURNALS = "## Daily Journals"
CONFLICTS = "## Conflicts (unresolved, never archived)"
HOT_HEADER = ("File", "Lines", "Last Updated", "Recent Entries")
ON_DEMAND_HEADER = ("File", "Lines", "Last Updated", "Search Hint")
JOURNAL_HEADER = ("Date", "Exists", "Key Events")
CONFLICT_HEADER = ("Entry", "File", "Conflict")
HOT_KINDS = ("decision", "context")
HINTS = {
    "decision": "architecture choices, trade-offs, why X not Y",
    "lesson": "bug root causes, workarounds, pitfalls",
    "context": "stack, layout, schema, deployment",
    "person": "preferences, roles, habits",
    "tool": "commands, environment, proxies",
    "kept": "your own file from before apm-git, kept as it was",
}
_SESSION_ITEM = re.compile(r"- \*\*(?P<kind>[A-Za-z]+):\*\*\s*(?P<text>.*)")


# NamedTuples and a plain class, not dataclasses: the pre-commit hook imports this module (apm_git.model.slotted).
class FileSummary(NamedTuple):
    """One category file's row in INDEX.md: its line count, last update and recent titles."""

    name: str
    lines: int
    last_updated: str
    recent: tuple[str, ...]


class OtherFile(NamedTuple):
    """A Markdown file of the memory dir that is neither a category file nor a journal, or (`files` > 1)
    a folder of such files summarized in one row."""

    name: str  # memory-relative; a folder ends with "/"
    lines: int
    last_updated: str
    hint: str
    files: int = 1


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")  # also a journal's row in the Daily Journals table
HINT_CHARS = 90
# A row of older journals summarized: a month (2026-01), a year (2026), or a span (2019-03-01 … 2023-12-31).
PERIOD = re.compile(r"(\d{4}(?:-\d{2}){0,2})(?: … (\d{4}(?:-\d{2}){0,2}))?")
JOURNAL_ROWS = 8  # the newest journals keep a row each before the other files are summarized by folder
CONFLICT_ROWS = 10  # entries in conflict listed one by one; the rest counted in one row
MONTH, YEAR = 7, 4  # the length of a day's prefix that names its month, its year


class JournalRow(NamedTuple):
    """A row of the Daily Journals table: one journal (`label` its date), or the older journals of a period."""

    label: str
    journals: int
    recent: tuple[str, ...]


def covers(label: str, day: str) -> bool:
    """Whether the Daily Journals row `label` (a date, a month, a year, or a span) stands for the journal of `day`."""
    match = PERIOD.fullmatch(label)
    if match is None:
        return False
    start, end = match[1], match[2] or match[1]
    return day[: len(start)] >= start and day[: len(end)] <= end


def fit_journals(rows: list[JournalRow], room: int) -> list[JournalRow]:
    """The journal rows (newest first) within `room` rows: the newest one by one, the older a row per month,
    or per year when the months do not fit; when even the years do not, the oldest in one span."""
    if len(rows) <= room:
        return rows
    for width in (MONTH, YEAR):
        for listed in range(room - 1, -1, -1):  # the most journals listed one by one that leave room for the rest
            grouped = _periods(rows[listed:], width)
            if listed + len(grouped) <= room:
                return rows[:listed] + grouped
    listed = max(room - 1, 0)
    rest = rows[listed:]
    span = f"{rest[-1].label[:10]} … {rest[0].label[:10]}"
    return [*rows[:listed], JournalRow(span, sum(row.journals for row in rest), _recent(rest))]


def _periods(rows: list[JournalRow], width: int) -> list[JournalRow]:
    groups: dict[str, list[JournalRow]] = {}
    for row in rows:
        groups.setdefault(row.label[:width], []).append(row)
    return [JournalRow(label, sum(row.journals for row in group), _recent(group)) for label, group in groups.items()]


def _recent(rows: list[JournalRow], limit: int = 3) -> tuple[str, ...]:
    return tuple(dict.fromkeys(title for row in rows for title in row.recent))[:limit]


def fit_conflicts(conflicts: list[Conflict]) -> list[Conflict]:
    """At most `CONFLICT_ROWS` rows: past that, the rest counted in the last row."""
    if len(conflicts) <= CONFLICT_ROWS:
        return conflicts
    rest = len(conflicts) - CONFLICT_ROWS + 1
    return [*conflicts[: CONFLICT_ROWS - 1],
            Conflict(f"({rest} more)", "—", "`apm-git --json status` lists every entry in conflict")]


def summarize_other(name: str, text: str, headings: list[str]) -> OtherFile:
    """Lines, the newest date in its name or headings, and a hint from its headings (its first line
    when it has none)."""
    dates = _DATE.findall(name) + [date for heading in headings for date in _DATE.findall(heading)]
    shown = list(dict.fromkeys(heading for heading in headings[1:] if heading)) if len(headings) > 1 else headings
    hint = ", ".join(shown[:3])
    if not hint:
        hint = next((line.strip("#-*> ").strip() for line in text.splitlines() if line.strip()), "")
    hint = hint if len(hint) <= HINT_CHARS else hint[: HINT_CHARS - 1].rstrip() + "…"
    return OtherFile(name, count_lines(text), max(dates) if dates else "—", hint or "—")


def fit_others(others: list[OtherFile], room: int | None) -> list[OtherFile]:
    """The rows for `others` within `room` rows: each file, or when they are too many, the files at the
    top of the memory dir each and the others one row per folder; what still does not fit, one row."""
    if room is None or len(others) <= room:
        return others
    top = [other for other in others if "/" not in other.name]
    folders: dict[str, list[OtherFile]] = {}
    for other in others:
        if "/" in other.name and not other.name.endswith("/"):
            folders.setdefault(other.name.split("/", 1)[0] + "/", []).append(other)
    rows = [_folder(name, files) for name, files in folders.items()]
    rows += [other for other in others if other.name.endswith("/")]  # summarized already (the archive)
    left = max(room - len(rows), 1)
    if len(top) > left:
        rest = top[left - 1:]
        more = OtherFile(f"({len(rest)} more files)", sum(other.lines for other in rest), _newest(rest),
                         "`apm-git search` finds their sections", len(rest))
        top = [*top[: left - 1], more]
    return top + rows


def _folder(name: str, files: list[OtherFile]) -> OtherFile:
    stems = ", ".join(dict.fromkeys(other.name.rsplit("/", 1)[-1].removesuffix(".md") for other in files))
    hint = f"{len(files)} file{'s' if len(files) != 1 else ''}: {stems}"
    hint = hint if len(hint) <= HINT_CHARS else hint[: HINT_CHARS - 1].rstrip() + "…"
    return OtherFile(name, sum(other.lines for other in files), _newest(files), hint, len(files))


def archive_row(name: str, files: list[OtherFile]) -> OtherFile:
    """The archive in one row: it is L3, found by `search --archive`, never worth L1's lines."""
    return _folder(name, files)._replace(hint=f"{len(files)} archived file{'s' if len(files) != 1 else ''}: "
                                              "`apm-git search --archive` finds their entries")


def _newest(files: list[OtherFile]) -> str:
    dated = [other.last_updated for other in files if other.last_updated != "—"]
    return max(dated) if dated else "—"


class Conflict(NamedTuple):
    """A record that names a conflict (its `Conflicts:` field), a row of the conflicts table in INDEX.md."""

    entry: str
    file: str
    what: str


def generated(text: str) -> bool:
    """Whether `text` is an index apm-git wrote (its title, rebuild line and tables), not a person's own."""
    head = text.lstrip("\ufeff").split("\n", 4)[:4]
    return any(line.startswith("> Last rebuilt: ") for line in head) and not read(text).problems


def summarize(name: str, parsed: RecordFile, recent: int = 3, headings: tuple[str, ...] = ()) -> FileSummary:
    """A file's lines, newest record date and recent entries: its newest records' titles, else its
    session notes' items, else (free-form memory) its first headings below the title."""
    records = [record for record in parsed.records if record.day is not None]
    dates = [record.date for record in records]
    newest = sorted(records, key=lambda record: record.date, reverse=True)[:recent]
    titles = (tuple(record.title for record in newest) or _session_items(parsed.render(), recent)
              or tuple(dict.fromkeys(headings[1:]))[:recent])
    return FileSummary(name, parsed.line_count, max(dates) if dates else "—", titles)


def _session_items(text: str, limit: int) -> tuple[str, ...]:
    items = []
    for line in text.splitlines():
        match = _SESSION_ITEM.match(line.strip())
        if match:
            items.append(match["text"].split(" — ")[0].strip())
    return tuple(items[:limit])


def conflicts_of(name: str, records: list[Record]) -> list[Conflict]:
    return [
        Conflict(record.id, name, record.field("Conflicts") or "") for record in records if record.field("Conflicts")
    ]


def render(
    today: dt.date,
    categories: list[tuple[str, str, FileSummary]],
    journals: list[FileSummary],
    conflicts: list[Conflict],
    budget: int,
    others: list[OtherFile] | None = None,
    index_budget: int | None = None,
) -> str:
    """`categories` holds (kind, file, summary) in routing order; journals newest first; `others` every
    other Markdown file.  Within `index_budget` lines every row is listed while they fit; when they do
    not, the conflicts past `CONFLICT_ROWS` are counted in one row, the other files are summarized by
    folder, and the older journals by month (or year): the newest journals are listed one by one."""
    others = others or []
    periods = [JournalRow(summary.name.removesuffix(".md"), 1, summary.recent) for summary in journals]
    if index_budget is not None:
        conflicts = fit_conflicts(conflicts)
        room = index_budget - render(today, categories, [], conflicts, budget).count("\n")
        if len(periods) + len(others) > room:
            others = fit_others(others, max(room - min(len(periods), JOURNAL_ROWS), 1))
            periods = fit_journals(periods, max(room - len(others), 1))
    total = len(categories) + sum(period.journals for period in periods) + sum(other.files for other in others)
    lines = [
        TITLE,
        "",
        f"> Last rebuilt: {today.isoformat()} | Total files: {total} | "
        f"Budget: {budget} lines across category files",
        "",
        HOT,
        "",
        *_table(HOT_HEADER, [
            (summary.name, str(summary.lines), summary.last_updated, ", ".join(summary.recent) or "—")
            for kind, _, summary in categories if kind in HOT_KINDS
        ]),
        "",
        ON_DEMAND,
        "",
        *_table(ON_DEMAND_HEADER, [
            *((summary.name, str(summary.lines), summary.last_updated, HINTS.get(kind, kind))
              for kind, _, summary in categories if kind not in HOT_KINDS),
            *((other.name, str(other.lines), other.last_updated, other.hint) for other in others),
        ]),
        "",
        JOURNALS,
        "",
        *_table(JOURNAL_HEADER, [
            (period.label, "✅" if _DATE.fullmatch(period.label) else
             f"{period.journals} journal{'s' if period.journals != 1 else ''}", ", ".join(period.recent) or "—")
            for period in periods
        ]),
    ]
    if conflicts:
        lines += ["", CONFLICTS, "", *_table(CONFLICT_HEADER, [(c.entry, c.file, c.what) for c in conflicts])]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows]
    return out


class IndexReading(Slotted):
    """What an INDEX.md names, and where its structure is broken."""

    __slots__ = ("files", "journals", "periods", "problems")

    def __init__(self) -> None:
        self.files: dict[str, int] = {}  # file -> line
        self.journals: dict[str, int] = {}  # YYYY-MM-DD -> line
        self.periods: dict[str, int] = {}  # a row of older journals (a month, a year, a span) -> line
        self.problems: list[tuple[int, str]] = []

    def lists_journal(self, day: str) -> bool:
        """Whether the journal of `day` has its row, or is in the period of a summary row."""
        return day in self.journals or any(covers(period, day) for period in self.periods)


def hot_files(text: str) -> list[str]:
    """The files of the Hot Files table, in its order."""
    found: list[str] = []
    inside = False
    for line in text.lstrip("\ufeff").split("\n"):
        stripped = line.strip()
        if stripped.startswith("## "):
            inside = stripped == HOT
        elif inside and stripped.startswith("|"):
            cells = table_cells(stripped)
            if cells and tuple(cells) != HOT_HEADER and not all(set(cell) <= set("-: ") for cell in cells):
                found.append(cells[0])
    return found


_SECTIONS = {HOT: HOT_HEADER, ON_DEMAND: ON_DEMAND_HEADER, JOURNALS: JOURNAL_HEADER, CONFLICTS: CONFLICT_HEADER}


def read(text: str) -> IndexReading:
    reading = IndexReading()
    lines = [strip_eol(line) for line in text.lstrip("\ufeff").split("\n")]
    if not lines or lines[0].strip() != TITLE:
        reading.problems.append((1, f"INDEX.md must start with '{TITLE}'"))
    seen: set[str] = set()
    section: str | None = None
    expect_header = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("## "):
            section = stripped if stripped in _SECTIONS else None
            if section is None:
                reading.problems.append((number, f"unknown section {stripped!r}"))
            seen.add(stripped)
            expect_header = section is not None
            continue
        if not stripped.startswith("|") or section is None:
            continue
        cells = table_cells(stripped)
        if expect_header:
            if tuple(cells) != _SECTIONS[section]:
                reading.problems.append((number, f"table header must be | {' | '.join(_SECTIONS[section])} |"))
            expect_header = False
            continue
        if all(set(cell) <= set("-: ") for cell in cells):
            continue
        if len(cells) != len(_SECTIONS[section]):
            reading.problems.append((number, f"row has {len(cells)} cells, the table has {len(_SECTIONS[section])}"))
            continue
        if section == JOURNALS:
            is_period = not _DATE.fullmatch(cells[0]) and PERIOD.fullmatch(cells[0]) is not None
            (reading.periods if is_period else reading.journals)[cells[0]] = number
        elif section != CONFLICTS:
            reading.files[cells[0]] = number
    for required in (HOT, ON_DEMAND, JOURNALS):
        if required not in seen:
            reading.problems.append((1, f"missing section '{required}'"))
    return reading
