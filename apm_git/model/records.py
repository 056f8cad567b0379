"""Record files (docs/design.md 2.1): a lossless parse of Markdown memory into records.

A file is a preamble (everything before the first `## ` heading) followed by
sections (`Block`), each a `## ` heading and every line up to the next one.  A
section is a record when it is one or tries to be one: its heading reads
`## [<a date>] …` (the bracket holds something shaped like a date), or a record
field (`- Tags:`, `- Fitness:`) follows its heading.  A record may be malformed,
and then carries the problems that lint reports while its text stays exactly as
it was.  Every other section (`## Notes`, `## 2026-05-13 — Title`,
`## [18:10] Deploy`) is ordinary free-form memory: never a finding, kept as it is
(apm_git.model.sections names the dialects among them).  Every line keeps its
own line end, so `parse(text).render() == text` for any text.
"""
from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterator
from typing import NamedTuple

from apm_git.errors import FitnessError
from apm_git.model.entry_id import entry_id
from apm_git.model.fitness import Fitness
from apm_git.model.slotted import Slotted

BOM = "\ufeff"
PROVEN = "[PROVEN]"
REQUIRED_FIELDS = ("Tags", "Fitness", "Body")
OPTIONAL_FIELDS = ("Source", "Supersedes", "Superseded-by", "Merged", "Conflicts", "Archived")
KNOWN_FIELDS = frozenset(REQUIRED_FIELDS + OPTIONAL_FIELDS)

_HEADER = re.compile(r"## \[(?P<date>[^\]]*)\](?P<rest>.*)")
# What a bracket must hold for a heading to try to be a record: four digits, a separator, more digits.
_DATE_SHAPED = re.compile(r"\s*\d{4}\s*[-/.]\s*\d")
_FIELD_START = re.compile(r"- (?:Tags|Fitness):")
_FIELD = re.compile(r"- (?P<name>[A-Z][A-Za-z-]*):(?: (?P<value>.*)|)")
FENCES = ("```", "~~~")
_FENCE_OPEN = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)")
_FENCE_CLOSE = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})[ \t]*")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def split_lines(text: str) -> list[str]:
    """Lines with their own line ends; only `\\n` ends a line (a `\\r` stays in it)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def has_fence(text: str) -> bool:
    """Whether a code fence may hide a `## ` line in `text` (only `parse` then finds the headings)."""
    return any(fence in text for fence in FENCES)


def count_lines(text: str) -> int:
    """Lines as an editor counts them: a last line without a line end still counts."""
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def strip_eol(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line


def eol_of(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return ""


def newline_of(text: str) -> str:
    """The line end a text uses: that of its first line (`\\n` when no line has one)."""
    end = text.find("\n")
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"


def ready_to_append(text: str, newline: str) -> str:
    """`text` ended so that what is appended next starts after a blank line (a blank text stays as it is)."""
    if text and not text.endswith("\n"):
        text += newline
    if text.strip() and not text.endswith(newline * 2):
        text += newline
    return text


# NamedTuples and plain classes, not dataclasses: the pre-commit hook imports this module on every
# commit, and `dataclasses` with the code each class generates would cost it milliseconds (apm_git.model.slotted).
class Problem(NamedTuple):
    """Why a record is malformed, at a 1-based line of its file."""

    line: int  # 1-based, in the file
    message: str


class Block(Slotted):
    """Lines of a file, kept verbatim; `line_no` is the 1-based number of the first."""

    __slots__ = ("line_no", "lines")

    def __init__(self, lines: list[str], line_no: int) -> None:
        self.lines = lines
        self.line_no = line_no

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def heading(self) -> str:
        return strip_eol(self.lines[0]) if self.lines else ""


class FieldLine(NamedTuple):
    """One `- Name: value` line of a record, at `offset` lines below its heading."""

    name: str
    value: str
    offset: int  # line index inside the record


class Record(Block):
    """A `## [YYYY-MM-DD] Title` block; `problems` is empty when it is well-formed."""

    __slots__ = ("date", "fields", "problems", "proven", "title")

    def __init__(
        self,
        lines: list[str],
        line_no: int,
        date: str = "",
        title: str = "",
        proven: bool = False,
        fields: list[FieldLine] | None = None,
        problems: list[Problem] | None = None,
    ) -> None:
        super().__init__(lines, line_no)
        self.date = date
        self.title = title
        self.proven = proven
        self.fields = [] if fields is None else fields
        self.problems = [] if problems is None else problems

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def id(self) -> str:
        return entry_id(self.date, self.title)

    @property
    def day(self) -> dt.date | None:
        try:
            return dt.date.fromisoformat(self.date)
        except ValueError:
            return None

    def field(self, name: str) -> str | None:
        for field in self.fields:
            if field.name == name:
                return field.value
        return None

    @property
    def tags(self) -> list[str]:
        raw = self.field("Tags") or ""
        return [tag.strip() for tag in raw.split(",") if tag.strip()]

    @property
    def kind(self) -> str:
        tags = self.tags
        return tags[0].lower() if tags else ""

    @property
    def fitness(self) -> Fitness | None:
        raw = self.field("Fitness")
        if raw is None:
            return None
        try:
            return Fitness.parse(raw)
        except FitnessError:
            return None

    @property
    def body(self) -> str:
        return self.field("Body") or ""

    @property
    def extra_lines(self) -> list[str]:
        """The longer body: lines after the fields, trailing blank lines excluded."""
        start = self.fields[-1].offset + 1 if self.fields else 1
        lines = [strip_eol(line) for line in self.lines[start:]]
        while lines and not lines[-1].strip():
            lines.pop()
        return lines

    @property
    def newline(self) -> str:
        return eol_of(self.lines[0]) or "\n"


class RecordFile(Slotted):
    """A Markdown file cut into its preamble and its blocks, kept verbatim (`render` gives the text back)."""

    __slots__ = ("blocks", "bom", "preamble")

    def __init__(self, bom: str, preamble: Block, blocks: list[Block]) -> None:
        self.bom = bom
        self.preamble = preamble
        self.blocks = blocks

    def render(self) -> str:
        return self.bom + self.preamble.text + "".join(block.text for block in self.blocks)

    @property
    def records(self) -> list[Record]:
        """Every record, well-formed or not."""
        return [block for block in self.blocks if isinstance(block, Record)]

    @property
    def entries(self) -> list[Record]:
        """The well-formed records: the ones that consolidation may read and move."""
        return [block for block in self.blocks if isinstance(block, Record) and block.ok]

    @property
    def newline(self) -> str:
        # Lazily: the first line that ends decides, and a list of every block per call made an import of a
        # journal of 100,000 sections quadratic.
        lines = (line for block in itertools.chain((self.preamble,), self.blocks) for line in block.lines)
        return newline_of(next((line for line in lines if line.endswith("\n")), ""))

    @property
    def line_count(self) -> int:
        return len(self.preamble.lines) + sum(len(block.lines) for block in self.blocks)

    @property
    def prose_lines(self) -> int:
        """Lines outside the well-formed records (preamble, ordinary sections, malformed records):
        what consolidation never moves, so never makes room by."""
        return self.line_count - sum(len(record.lines) for record in self.entries)

    def problems(self) -> Iterator[Problem]:
        for record in self.records:
            yield from record.problems


def parse(text: str) -> RecordFile:
    bom = BOM if text.startswith(BOM) else ""
    lines = split_lines(text[len(bom):])
    starts: list[int] = []
    fence = ""
    for index, line in enumerate(lines):
        if fence:
            fence = "" if _closes(fence, strip_eol(line)) else fence
        elif line.startswith("## "):
            starts.append(index)
        else:
            fence = _opens(strip_eol(line))
    first = starts[0] if starts else len(lines)
    preamble = Block(lines[:first], 1)
    blocks: list[Block] = []
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(lines)
        blocks.append(_parse_block(lines[start:end], start + 1))
    return RecordFile(bom, preamble, blocks)


def _opens(line: str) -> str:
    """The fence `line` opens (CommonMark: 3+ backticks or tildes; a backtick fence's info has no backtick)."""
    match = _FENCE_OPEN.match(line)
    if not match or (match["fence"][0] == "`" and "`" in match["info"]):
        return ""
    return match["fence"]


def _closes(fence: str, line: str) -> bool:
    """Whether `line` closes `fence`: the same character, at least as many, nothing after but blanks."""
    match = _FENCE_CLOSE.fullmatch(line)
    return match is not None and match["fence"][0] == fence[0] and len(match["fence"]) >= len(fence)


def _parse_block(lines: list[str], line_no: int) -> Block:
    heading = strip_eol(lines[0])
    match = _HEADER.fullmatch(heading)
    if match and _DATE_SHAPED.match(match["date"]):
        record = Record(lines, line_no)
        _parse_header(record, match)
    elif len(lines) > 1 and _FIELD_START.match(lines[1]):
        # Record fields under another heading: a record whose header is wrong.
        record = Record(lines, line_no, title=heading[3:].strip())
        record.problems.append(Problem(line_no, "header must be '## [YYYY-MM-DD] Title'"))
    else:
        return Block(lines, line_no)
    _parse_fields(record)
    return record


def is_record_heading(line: str) -> bool:
    """Whether a `## ` line starts a record on its own (`## [<a date>] …`), fields aside."""
    match = _HEADER.fullmatch(strip_eol(line))
    return bool(match and _DATE_SHAPED.match(match["date"]))


def _parse_header(record: Record, match: re.Match[str]) -> None:
    record.date = match["date"]
    rest = match["rest"]
    if not rest.startswith(" "):
        record.problems.append(Problem(record.line_no, "header must be '## [YYYY-MM-DD] Title'"))
    rest = rest.strip()
    if rest.startswith(PROVEN):
        record.proven = True
        rest = rest[len(PROVEN):].strip()
    record.title = rest
    if not _DATE.fullmatch(record.date) or record.day is None:
        record.problems.append(
            Problem(record.line_no, f"date {record.date!r} is not a valid YYYY-MM-DD date"),
        )
    if not record.title:
        record.problems.append(Problem(record.line_no, "record has no title"))


def _parse_fields(record: Record) -> None:
    for offset in range(1, len(record.lines)):
        match = _FIELD.fullmatch(strip_eol(record.lines[offset]))
        if not match or match["name"] not in KNOWN_FIELDS:
            break
        record.fields.append(FieldLine(match["name"], (match["value"] or "").strip(), offset))
    seen: set[str] = set()
    for field in record.fields:
        if field.name in seen:
            record.problems.append(
                Problem(record.line_no + field.offset, f"field {field.name} appears twice"),
            )
        seen.add(field.name)
    names = [field.name for field in record.fields]
    position = 0
    for required in REQUIRED_FIELDS:
        if required not in names:
            record.problems.append(
                Problem(record.line_no, f"missing field '- {required}:' (fields are Tags, Fitness, Body)"),
            )
            continue
        index = names.index(required)
        if index != position:
            record.problems.append(
                Problem(
                    record.line_no + record.fields[index].offset,
                    f"field {required} is out of order (required order: Tags, Fitness, Body)",
                ),
            )
        position = index + 1
    for field in record.fields:
        line = record.line_no + field.offset
        if field.name in ("Tags", "Body") and not field.value:
            record.problems.append(Problem(line, f"field {field.name} is empty"))
        if field.name == "Fitness":
            try:
                Fitness.parse(field.value)
            except FitnessError as error:
                record.problems.append(Problem(line, str(error)))


def render_record(
    day: dt.date,
    title: str,
    tags: list[str],
    fitness: Fitness,
    body: str,
    *,
    proven: bool = False,
    extra_fields: list[tuple[str, str]] | None = None,
    extra_lines: list[str] | None = None,
    newline: str = "\n",
) -> str:
    """A new record, followed by the blank line that separates records."""
    mark = f"{PROVEN} " if proven else ""
    lines = [
        f"## [{day.isoformat()}] {mark}{title}",
        f"- Tags: {', '.join(tags)}",
        f"- Fitness: {fitness.render()}",
        f"- Body: {body}",
    ]
    lines += [f"- {name}: {value}" for name, value in extra_fields or []]
    lines += extra_lines or []
    lines.append("")
    return newline.join(lines) + newline


def set_field(record: Record, name: str, value: str) -> Record:
    """The record with field `name` set, every other line untouched."""
    lines = list(record.lines)
    text = f"- {name}: {value}"
    for field in record.fields:
        if field.name == name:
            lines[field.offset] = text + eol_of(lines[field.offset])
            return reparse(lines, record.line_no)
    insert_at = record.fields[-1].offset + 1 if record.fields else 1
    newline = record.newline
    if insert_at == len(lines) and not eol_of(lines[-1]):
        lines[-1] += newline
        lines.append(text)
    else:
        lines.insert(insert_at, text + newline)
    return reparse(lines, record.line_no)


def set_heading(record: Record, *, proven: bool) -> Record:
    mark = f"{PROVEN} " if proven else ""
    lines = list(record.lines)
    lines[0] = f"## [{record.date}] {mark}{record.title}" + eol_of(lines[0])
    return reparse(lines, record.line_no)


def reparse(lines: list[str], line_no: int = 1) -> Record:
    block = _parse_block(lines, line_no)
    assert isinstance(block, Record)
    return block
