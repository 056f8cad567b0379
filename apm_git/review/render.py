"""`apm-git diff` as text (a terminal) and as Markdown (a pull-request comment), and `apm-git log` as text."""
from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from apm_git.model.trailers import SUBJECT_PREFIX
from apm_git.model.vocabulary import ENTRY_STATUSES, RESOLVE
from apm_git.printable import one_line
from apm_git.review import classify as cl
from apm_git.review.commits import COUNTED, CommitInfo
from apm_git.review.words import DELETED, INSERTED, SAME, Piece, plain

if TYPE_CHECKING:
    from apm_git.review.result import Review

# GitHub refuses a comment over 65,536 characters; the rest is room for a workflow's own lines.
MARKDOWN_LIMIT = 60_000
_RESERVE = 1_500  # kept free while lists are written: the closing tags and the note of what was left out
OPEN_LIST = 10  # a group of more items than this is collapsed in <details>
_CONTEXT = 30  # characters of unchanged text kept on each side of a change in a word diff
# Fields whose change the status already says (an archived entry gains `Archived:`).
RESTATED = {cl.ARCHIVED: ("archived",), cl.SUPERSEDED: ("archived", "superseded-by"), cl.PROMOTED: ("source",),
            cl.PROVEN: ("proven",), cl.CONFLICT: ("conflicts",)}
FORGET_HINT = "restore it, move it to the archive, or delete it deliberately with `apm-git forget ID --reason TEXT`"
_RESOLVE_WHAT = ("(keeps this version, the other one, or both in one entry; the version that goes is recorded as "
                 "superseded or merged, never lost)")
RESOLVE_HINT = f"settle each with `{RESOLVE}` {_RESOLVE_WHAT}"
LOUD = {cl.LOSS: "LOST", cl.CONFLICT: "CONFLICT"}  # what a person must act on, written so it stands out


def headline(review: Review) -> str:
    """`3 added, 2 edited, …` — the counts of what happened, loss first, zeros left out."""
    parts = [f"{review.count(status)} {LOUD.get(status, status)}" for status in ENTRY_STATUSES if review.count(status)]
    sections = len(review.sections)
    if sections:
        parts.append(f"{sections} section{'s' if sections != 1 else ''} changed")
    files = len(review.files)
    parts.append(f"{files} file{'s' if files != 1 else ''}")
    return ", ".join(parts) if review.entries or review.sections or review.files else "no memory changes"


def _range(review: Review) -> str:
    return one_line(f"{_short(review.base_name)}..{_short(review.new_name)}")


def _short(name: str) -> str:
    """A full commit id as its first 12 digits; any other name as the user gave it."""
    return name[:12] if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", name) else name


def change_summary(entry: cl.EntryChange) -> str:
    """`hit_count 3→5, tags +cache −redis, body changed` — the fields that changed, on one line."""
    skip = RESTATED.get(entry.status, ())
    parts = []
    for change in entry.changes:
        if change.field in skip:
            continue
        if change.field == "tags":
            old, new = _tags(change.before), _tags(change.after)
            moves = [f"+{tag}" for tag in new if tag not in old] + [f"−{tag}" for tag in old if tag not in new]
            parts.append(f"tags {' '.join(moves) or 'reordered'}")
        elif change.words:
            parts.append(f"{change.field} changed")
        elif change.field == "layout":
            parts.append("layout changed")
        elif change.before is None:
            parts.append(f"+{change.field}: {change.after}")
        elif change.after is None:
            parts.append(f"−{change.field}: {change.before}")
        else:
            parts.append(f"{change.field} {change.before}→{change.after}")
    return ", ".join(parts)


def _tags(raw: str | None) -> list[str]:
    return [tag.strip() for tag in (raw or "").split(",") if tag.strip()]


def _where(entry: cl.EntryChange) -> str:
    if entry.source and entry.target and entry.source != entry.target:
        return f"{one_line(entry.source)} -> {one_line(entry.target)}"
    place = entry.target or entry.source or ""
    return f"{one_line(place)}:{entry.line}"


def shorten(pieces: Iterable[Piece]) -> list[Piece]:
    """A word diff with long unchanged stretches cut to their ends, as a reviewer needs them."""
    pieces = list(pieces)
    result = []
    for number, piece in enumerate(pieces):
        text = piece.text
        if piece.op == SAME and len(text) > 2 * _CONTEXT + 5:
            first, last = number == 0, number == len(pieces) - 1
            head = "" if first else text[:_CONTEXT]
            tail = "" if last else text[-_CONTEXT:]
            text = f"{head}…{tail}"
        result.append(Piece(piece.op, text))
    return result


# ---- text ----------------------------------------------------------------------------------------

def diff_text(review: Review) -> str:
    lines = [f"apm-git diff {_range(review)}: {headline(review)}"]
    for entry in review.entries:
        label = LOUD.get(entry.status, entry.status)
        title = f' "{one_line(entry.title)}"' if entry.title else ""
        extra = [one_line(text) for text in (entry.detail, change_summary(entry)) if text]
        tail = f"  ({'; '.join(extra)})" if extra else ""
        lines.append(f"{label:<11} {entry.id}  {_where(entry)}{title}{tail}")
        for change in entry.changes:
            if change.words and change.field not in RESTATED.get(entry.status, ()):
                lines.append(f"{'':<12}{change.field}: {_one_line(plain(shorten(change.words)))}")
    if review.lost:
        lines.append(f"LOST: {len(review.lost)} entr{'y' if len(review.lost) == 1 else 'ies'} left with no "
                     f"record of where {'it' if len(review.lost) == 1 else 'they'} went; {FORGET_HINT}")
    if review.conflicts:
        count = len(review.conflicts)
        lines.append(f"CONFLICT: {count} entr{'y' if count == 1 else 'ies'} in conflict (a merge kept two versions); "
                     f"{RESOLVE_HINT}")
    if review.sections:
        lines.append("sections:")
        for section in review.sections:
            where = f"{section.source} -> {section.file}" if section.source else section.file
            lines.append(f"  {section.status:<9} {one_line(where)}  {one_line(_heading(section.heading))}  "
                         f"({section.lines_before} -> {section.lines_after} lines)")
    if review.files:
        lines.append("files (lines before -> after, budget):")
        for file in review.files:
            lines.append(f"  {file.status:<9} {_file_where(file)}  {_lines(file)}{_file_note(file)}")
    if review.commits:
        apm = sum(1 for commit in review.commits if commit.apm)
        lines.append(f"commits: {len(review.commits)} ({apm} by apm-git), trailers read from each")
    return "\n".join(lines)


def _one_line(text: str) -> str:
    """A word diff's text on one line: its line breaks as spaces, anything else escaped."""
    return one_line(" ".join(text.split("\n")))


def _heading(heading: str) -> str:
    return heading or "(text before the first heading)"


def _file_where(file: cl.ReviewedFile) -> str:
    return one_line(f"{file.old_path} -> {file.path}" if file.old_path else file.path)


def _lines(file: cl.ReviewedFile) -> str:
    before = "-" if file.lines_before is None else str(file.lines_before)
    after = "-" if file.lines_after is None else str(file.lines_after)
    budget = f", budget {file.budget}" if file.budget is not None else ""
    mark = " OVER BUDGET" if file.over_budget else ""
    return f"{before} -> {after}{budget}{mark}"


def _file_note(file: cl.ReviewedFile) -> str:
    notes = [f"{file.entries_moved} entries moved with it"] if file.entries_moved else []
    if file.note:
        notes.append(one_line(file.note))
    return f"  ({'; '.join(notes)})" if notes else ""


# ---- Markdown ------------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")


def md(text: str) -> str:
    """Text safe inside a Markdown line: no HTML, no emphasis, no table break, no heading, no line break
    and no control character (each shown as its escape)."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(one_line(text), quote=False))


def code(text: str, *, cell: bool = False) -> str:
    """`text` as a code span on one line: fenced by more backticks than it holds in a row, and in a
    table `cell` its `|` escaped (GitHub ends a cell at a bare `|`, even inside a code span)."""
    text = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    if cell:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


class _Budget:
    """Markdown written under a character limit; what does not fit is counted, not cut mid-line."""

    def __init__(self, limit: int) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.limit = limit
        self.left_out: dict[str, int] = {}

    def fits(self, text: str) -> bool:
        return self.size + len(text) <= self.limit - _RESERVE

    def write(self, text: str) -> None:
        """Text that must be there (headings, closing tags): it comes out of the reserve."""
        self.parts.append(text)
        self.size += len(text)

    def items(self, what: str, items: list[str]) -> None:
        for number, item in enumerate(items):
            if not self.fits(item):
                self.left_out[what] = self.left_out.get(what, 0) + len(items) - number
                return
            self.write(item)


def diff_markdown(review: Review, *, limit: int = MARKDOWN_LIMIT, command: str = "apm-git diff") -> str:
    out = _Budget(limit)
    out.write("### apm-git memory diff\n\n")
    counts = headline(review)
    for status, word in LOUD.items():
        if review.count(status):
            counts = counts.replace(f"{review.count(status)} {word}", f"**⚠️ {review.count(status)} {word}**")
    out.write(f"{code(_range(review))}: {counts}\n\n")
    if review.lost:
        out.write("#### ⚠️ Lost: entries deleted with no record of where they went\n\n")
        out.items("lost entries", [f"- {code(entry.id)} {md(entry.title)} — was {code(_where(entry))}\n"
                                   for entry in review.lost])
        out.write(f"\nFor each: {FORGET_HINT}.\n\n")
    if review.conflicts:
        out.write("#### ⚠️ Conflicts: entries a merge kept in two versions\n\n")
        out.items("entries in conflict", [f"- {code(entry.id)} {md(entry.title)} — {code(_where(entry))} "
                                          f"({md(entry.detail)})\n" for entry in review.conflicts])
        out.write(f"\nSettle each with {code(RESOLVE)} {md(_RESOLVE_WHAT)}.\n\n")
    groups = [(status, [entry for entry in review.entries if entry.status == status])
              for status in ENTRY_STATUSES if status not in LOUD]
    groups = [(status, entries) for status, entries in groups if entries]
    if groups:
        out.write("#### Entries\n\n")
    for status, entries in groups:
        _group(out, f"{status.capitalize()} ({len(entries)})", "entries", [_entry_item(entry) for entry in entries])
    budgets = [file for file in review.files if file.budget is not None or file.path.endswith(".md")]
    if budgets:
        out.write("#### Files: lines against budget\n\n")
        rows = [f"| {code(_file_where(file), cell=True)} | {file.status} | {_md_lines(file)} | "
                f"{'' if file.budget is None else file.budget} |\n" for file in budgets]
        header = "| file | change | lines before → after | budget |\n|---|---|---|---:|\n"
        if len(rows) > OPEN_LIST:
            out.write(f"<details><summary>{len(rows)} files</summary>\n\n")
        out.write(header)
        out.items("files", rows)
        if len(rows) > OPEN_LIST:
            out.write("\n</details>\n")
        out.write("\n")
        other = [file for file in review.files if file not in budgets]
        if other:
            out.items("files", [f"Also changed: {', '.join(code(_file_where(file)) for file in other)}\n\n"])
    if review.sections:
        out.write("#### Free-form sections\n\n")
        items = [_section_item(section) for section in review.sections]
        _group(out, f"{len(items)} section{'s' if len(items) != 1 else ''}", "sections", items)
    if review.commits:
        apm = sum(1 for commit in review.commits if commit.apm)
        merges = sum(1 for commit in review.commits if commit.merge)
        merge_note = f", {merges} merge{'s' if merges != 1 else ''}" if merges else ""
        out.write(f"<sub>{len(review.commits)} commit{'s' if len(review.commits) != 1 else ''} "
                  f"({apm} by apm-git{merge_note}); what moved where is read from the memory files "
                  "and the commits' Apm-* trailers.</sub>\n")
    if out.left_out:
        what = ", ".join(f"{count} {name}" for name, count in out.left_out.items())
        out.write(f"\n**Left out to stay under GitHub's comment limit: {md(what)}.** "
                  f"Run {code(command)} for all of it.\n")
    return "".join(out.parts)


def _group(out: _Budget, summary: str, what: str, items: list[str]) -> None:
    collapsed = len(items) > OPEN_LIST
    if collapsed:
        out.write(f"<details><summary>{md(summary)}</summary>\n\n")
    else:
        out.write(f"**{md(summary)}**\n\n")
    out.items(what, items)
    out.write("\n</details>\n\n" if collapsed else "\n")


def _entry_item(entry: cl.EntryChange) -> str:
    where = (f"{code(entry.source)} → {code(entry.target)}" if entry.source and entry.target
             and entry.source != entry.target else code(entry.target or entry.source or ""))
    extra = [md(text) for text in (entry.detail, change_summary(entry)) if text]
    line = f"- {code(entry.id)} {md(entry.title)} — {where}"
    if extra:
        line += f" ({'; '.join(extra)})"
    for change in entry.changes:
        if change.words and change.field not in RESTATED.get(entry.status, ()):
            line += f"\n  - {change.field}: {_md_words(change.words)}"
    return line + "\n"


def _md_words(pieces: tuple[Piece, ...]) -> str:
    tags = {SAME: ("", ""), DELETED: ("<del>", "</del>"), INSERTED: ("<ins>", "</ins>")}
    return "".join(f"{tags[piece.op][0]}{md(piece.text)}{tags[piece.op][1]}" for piece in shorten(pieces))


def _md_lines(file: cl.ReviewedFile) -> str:
    before = "—" if file.lines_before is None else str(file.lines_before)
    after = "—" if file.lines_after is None else str(file.lines_after)
    return f"{before} → **{after} ⚠️ over**" if file.over_budget else f"{before} → {after}"


def _section_item(section: cl.SectionChange) -> str:
    where = f"{code(section.source)} → {code(section.file)}" if section.source else code(section.file)
    heading = md(section.heading.removeprefix("## ")) if section.heading else "_(text before the first heading)_"
    return f"- {section.status} {where}: {heading} ({section.lines_before} → {section.lines_after} lines)\n"


# ---- log -----------------------------------------------------------------------------------------

def log_text(commits: list[CommitInfo]) -> str:
    return "\n".join(log_line(commit) for commit in commits)


def log_line(commit: CommitInfo) -> str:
    """`2026-06-01 09:00  3f2a9c1d  rem          scope=all  archived 2, proven 1` for a commit of apm-git's
    (`trigger=…` when it differs from the verb, `session=…` for a flush of a session); the date, sha,
    `-` (or `merge`) and the subject of any other commit."""
    when = f"{commit.date[:10]} {commit.date[11:16]}"
    if not commit.apm:
        kind = "merge" if commit.merge else "-"
        return f"{when}  {commit.sha[:8]}  {kind:<12} {one_line(commit.subject)}"
    trigger = commit.trailer("Apm-Trigger") or ""
    label = commit.verb or trigger
    parts = [] if trigger in ("", label) else [f"trigger={trigger}"]
    parts.append(f"scope={commit.trailer('Apm-Scope') or '-'}")
    session = commit.trailer("Apm-Session")
    if session and session != "none":
        parts.append(f"session={session}")
    counts = commit.counts()
    # A conflict waits for a person: written as loudly as `diff` writes a loss, first.
    done = ", ".join(f"{'CONFLICT' if key == 'conflicts' else key} {counts[key]}" for key in COUNTED if counts[key])
    # A person's own words (`flush -m TEXT` makes the subject `memory: flush: TEXT`) close the line.
    own = f"{SUBJECT_PREFIX}{commit.verb}: "
    said = f'  "{commit.subject.removeprefix(own)}"' if commit.verb and commit.subject.startswith(own) else ""
    return one_line(f"{when}  {commit.sha[:8]}  {label:<12} {'  '.join(parts)}{'  ' + done if done else ''}{said}")
