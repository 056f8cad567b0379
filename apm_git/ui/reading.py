"""What the page shows, read from the memory: no HTML here (apm_git/ui/pages.py draws it).

- the memory as an agent loads it: the files in the order of progressive loading (L1, then the
  category files of L2, the journals, the DM memory, each group from its entry gate), each with its
  lines against its budget and its entries; then the archive;
- one file's sections and entries, with fitness, tags and REM's score;
- one entry's life: what `history` tells (from the history read once, ui/timeline.py), with the entry's
  lines before and after each commit.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import difflib

from apm_git import clock, git
from apm_git.dreaming.locate import entry_block
from apm_git.dreaming.score import record_score
from apm_git.model import dated, names
from apm_git.model.records import Record, parse
from apm_git.store import layout
from apm_git.store.repo import MemoryRepo
from apm_git.ui.timeline import Timeline
from apm_git.ui.withholding import LEFT_OUT, Withholding

HEADING = b"## ["


@dataclasses.dataclass(frozen=True)
class FileRow:
    rel: str  # memory-relative
    path: str  # repo-relative
    lines: int
    budget: int | None
    entries: int

    @property
    def share(self) -> float:
        return 0.0 if not self.budget else self.lines / self.budget


@dataclasses.dataclass
class Layer:
    title: str
    note: str
    files: list[FileRow]


def _row(repo: MemoryRepo, rel: str, counted: dict[str, tuple[int, int, int, int]] | None = None) -> FileRow:
    """`rel` comes from `repo.markdown_files()`, which checked it (links out of the memory are left out);
    `counted` keeps each file's figures by its size and time, for a server that shows them again and again."""
    path = repo.memory / rel
    stat = path.stat()
    known = None if counted is None else counted.get(rel)
    if known is not None and known[:2] == (stat.st_size, stat.st_mtime_ns):
        lines, entries = known[2:]
    else:
        data = path.read_bytes()
        lines = data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))
        entries = data.count(b"\n" + HEADING) + data.startswith(HEADING)
        if counted is not None:
            counted[rel] = (stat.st_size, stat.st_mtime_ns, lines, entries)
    return FileRow(rel, repo.repo_path(rel), lines, repo.config.budget_for(rel), entries)


def overview(repo: MemoryRepo, today: dt.date | None = None,
             counted: dict[str, tuple[int, int, int, int]] | None = None) -> list[Layer]:
    """Every memory file, in the order an agent's loads reach them."""
    today = today or clock.today()
    every = list(repo.markdown_files())
    placed: set[str] = set()

    def take(rels: list[str]) -> list[FileRow]:
        chosen = [rel for rel in dict.fromkeys(rels) if rel in present and rel not in placed]
        placed.update(chosen)
        return [_row(repo, rel, counted) for rel in chosen]

    present = set(every)
    recent = [dated.journal_name(day) for day in (today, today - dt.timedelta(days=1))]
    layers = [
        Layer("L1: loaded first", "the index and today's and yesterday's journals", take([names.INDEX, *recent])),
        Layer("L2: by the intent's domain", "the category files", take(layout.category_files(repo))),
        Layer("Journals", "light sleep: deep sleep promotes from them", take(list(reversed(layout.journals(repo))))),
    ]
    main = [rel for rel in every if rel.startswith(f"{names.MAIN}/")]
    if main:
        layers.append(Layer("Direct messages", "main/: the index first", take([names.MAIN_INDEX, *main])))
    in_group: dict[str, list[str]] = {}
    for rel in every:
        parts = rel.split("/", 2)
        if len(parts) == 3 and parts[0] == names.GROUPS:
            in_group.setdefault(parts[1], []).append(rel)
    for group in layout.groups(repo):
        layers.append(Layer(f"Group {group}", "its entry gate first; never loaded with another group",
                            take([layout.group_index(group), *in_group.get(group, [])])))
    archive = [rel for rel in every if rel.startswith(f"{names.ARCHIVE}/")]
    rest = [rel for rel in every if rel not in placed and rel not in archive]
    if rest:
        layers.append(Layer("Other files", "found by search (L3)", take(rest)))
    layers.append(Layer("Archive", "L3 only: search --archive", take(list(reversed(archive)))))
    return [layer for layer in layers if layer.files]


@dataclasses.dataclass(frozen=True)
class EntryView:
    entry_id: str
    title: str
    date: str
    proven: bool
    tags: list[str]
    hits: int | None
    last_referenced: str | None
    value: str | None
    score: int | None
    body: str
    conflicts: str | None
    archived: str | None
    line: int
    text: str
    withheld: bool = False  # it holds a suspected secret: its text is not shown (ui/withholding.py)


@dataclasses.dataclass(frozen=True)
class SectionView:
    heading: str
    line: int
    lines: int
    text: str


def entry_view(repo: MemoryRepo, record: Record, today: dt.date, hold: Withholding | None = None,
               path: str = "") -> EntryView:
    """The entry as the page shows it; with `hold`, a record that holds a suspected secret shows only its id
    (already in the URL) and date, and its title when the heading is not what holds the suspect."""
    held = {} if hold is None else hold.starts(path, record.text)
    if held:
        title = "(a heading left out)" if held.get(1) else record.title
        return EntryView(record.id, title, record.date, False, [], None, None, None, None, LEFT_OUT, None, None,
                         record.line_no, "", withheld=True)
    fitness = record.fitness
    score = record_score(record, today, repo.config.rem, fitness) if fitness is not None and record.ok else None
    return EntryView(
        record.id, record.title, record.date, record.proven, record.tags,
        None if fitness is None else fitness.hit_count,
        None if fitness is None else fitness.last_referenced.isoformat(),
        None if fitness is None else fitness.decision_value, score, record.body, record.field("Conflicts"),
        record.field("Archived"), record.line_no, record.text.rstrip(),
    )


def file_view(repo: MemoryRepo, rel: str, hold: Withholding) -> tuple[FileRow, list[EntryView | SectionView]]:
    today = clock.today()
    text = repo.read(rel) or ""
    parsed = parse(text)
    held = hold.starts(repo.repo_path(rel), text)
    shown: list[EntryView | SectionView] = []
    if parsed.preamble.text.strip():
        shown.append(SectionView("(before the first heading)", 1, len(parsed.preamble.lines),
                                 LEFT_OUT if 1 in held else parsed.preamble.text))
    for block in parsed.blocks:
        if block.line_no in held:
            heading = "(a heading left out)" if held[block.line_no] else block.heading.strip()
            shown.append(SectionView(heading, block.line_no, len(block.lines), LEFT_OUT))
        elif isinstance(block, Record) and block.date and block.title:
            shown.append(entry_view(repo, block, today))
        else:
            shown.append(SectionView(block.heading.strip(), block.line_no, len(block.lines), block.text))
    return _row(repo, rel), shown


@dataclasses.dataclass(frozen=True)
class Step:
    date: str
    commit: str
    trigger: str
    what: str
    file: str
    source: str  # "" when it did not change files
    subject: str
    diff: list[str]  # unified diff lines of the entry (before -> after the commit)


def life(repo: MemoryRepo, entry_id: str, timeline: Timeline, hold: Withholding) -> tuple[list[Step], str | None]:
    """The entry's life (what `history` tells, from the history read once: apm_git/ui/timeline.py) with its
    diff at each step, or the one line saying why there is none."""
    events = timeline.entries.get(entry_id, [])
    if not events:
        return [], f"no commit on this branch created or changed {entry_id}"
    specs = []
    for row, _, file, source in events:
        sha = timeline.rows[row][0]
        specs += [f"{sha}^:{source or file}", f"{sha}:{file}"]
    blobs = git.cat_files(repo.root, specs)
    steps = []
    for row, what, file, source in events:
        sha, date, subject, trigger, _ = timeline.rows[row]
        origin = source or file
        before = hold.text(origin, _block(blobs.get(f"{sha}^:{origin}"), entry_id, origin))
        after = hold.text(file, _block(blobs.get(f"{sha}:{file}"), entry_id, file))
        diff = list(difflib.unified_diff(before.split("\n") if before else [], after.split("\n") if after else [],
                                         "before", "after", lineterm="", n=20))[2:]
        steps.append(Step(date, sha, trigger, what, file, source, subject, diff))
    return steps, None


def committed(repo: MemoryRepo, entry_id: str, timeline: Timeline | None) -> tuple[str, Record] | None:
    """The file HEAD holds the entry in and its record, by the file of the entry's last step (one blob read)."""
    events = [] if timeline is None else timeline.entries.get(entry_id, [])
    if not events:
        return None
    path = events[-1][2]
    data = git.cat_files(repo.root, [f"HEAD:{path}"]).get(f"HEAD:{path}")
    if data is None:
        return None
    for record in parse(data.decode("utf-8", "replace")).records:
        if record.date and record.title and record.id == entry_id:
            return path, record
    return None


def _block(data: bytes | None, entry_id: str, path: str) -> str | None:
    if data is None:
        return None
    day = dated.journal_date(path.rsplit("/", 1)[-1])
    return entry_block(data.decode("utf-8", "replace"), entry_id, day)
