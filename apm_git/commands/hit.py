"""`apm-git hit`: an entry was used, so `hit_count += 1` and `last_referenced = today`.

Only the entry's Fitness line changes; the rest of its file stays byte for byte (line ends,
byte-order mark, a missing final newline).  Live memory only: an archived entry is reported,
not revived.  Nothing is committed: the next flush commits the change.
"""
from __future__ import annotations

import dataclasses

from apm_git import clock
from apm_git.errors import UnreadableFile, UsageError
from apm_git.model import names
from apm_git.model.entry_id import is_entry_id
from apm_git.model.fitness import Fitness
from apm_git.model.records import Record, RecordFile, parse, set_field
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import write_lock


@dataclasses.dataclass(frozen=True)
class HitDone:
    entry_id: str
    file: str
    line: int
    hit_count: int
    last_referenced: str
    previous_hit_count: int
    previous_last_referenced: str


@dataclasses.dataclass(frozen=True)
class Miss:
    entry_id: str
    reason: str


@dataclasses.dataclass
class HitResult:
    hits: list[HitDone] = dataclasses.field(default_factory=list)
    misses: list[Miss] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)


def _live_files(repo: MemoryRepo) -> list[str]:
    return [rel for rel in repo.markdown_files() if not rel.startswith(f"{names.ARCHIVE}/")]


class _Files:
    """Live memory files, each read and parsed at most once, only when it may hold a wanted date."""

    def __init__(self, repo: MemoryRepo, names: list[str]) -> None:
        self.repo = repo
        self.names = names
        self.texts: dict[str, str] = {}
        self.parsed: dict[str, RecordFile] = {}
        self.changed: set[str] = set()
        self.unreadable: list[str] = []

    def find(self, entry_id: str) -> list[tuple[str, int, Record]]:
        marker = f"## [{entry_id[:10]}]"
        found = []
        for rel in self.names:
            if rel not in self.texts:
                try:
                    self.texts[rel] = self.repo.read(rel) or ""
                except UnreadableFile as error:  # another file's damage (or size) must not stop this hit
                    self.texts[rel] = ""
                    self.unreadable.append(f"skipped {error}")
            if marker not in self.texts[rel]:
                continue
            if rel not in self.parsed:
                self.parsed[rel] = parse(self.texts[rel])
            for index, block in enumerate(self.parsed[rel].blocks):
                if isinstance(block, Record) and block.id == entry_id:
                    found.append((rel, index, block))
        return found

    def replace(self, rel: str, index: int, record: Record) -> None:
        self.parsed[rel].blocks[index] = record
        self.changed.add(rel)

    def save(self) -> None:
        for rel in sorted(self.changed):
            self.repo.write(rel, self.parsed[rel].render())


def hit(repo: MemoryRepo, entry_ids: list[str]) -> HitResult:
    bad = [entry for entry in entry_ids if not is_entry_id(entry)]
    if bad:
        raise UsageError(f"{bad[0]!r} is not an entry id; ids look like 2026-04-06-redis-cache-strategy "
                         "(`apm-git search` finds them)")
    result = HitResult()
    with write_lock(repo):
        today = clock.today()
        files = _Files(repo, _live_files(repo))
        for entry_id in entry_ids:
            found = files.find(entry_id)
            if not found:
                result.misses.append(Miss(entry_id, _why_missing(repo, entry_id)))
                continue
            rel, index, record = found[0]
            for other, _, twin in found[1:]:
                result.warnings.append(f"{entry_id} is also at {repo.repo_path(other)}:{twin.line_no}; "
                                       f"only {repo.repo_path(rel)}:{record.line_no} was counted")
            fitness = record.fitness
            if fitness is None:
                result.misses.append(Miss(entry_id, f"{repo.repo_path(rel)}:{record.line_no} has no valid Fitness "
                                                    "line; fix it (`apm-git lint` says how), then retry"))
                continue
            bumped = Fitness(today, fitness.hit_count + 1, fitness.decision_value)
            files.replace(rel, index, set_field(record, "Fitness", bumped.render()))
            result.hits.append(HitDone(entry_id, repo.repo_path(rel), record.line_no, bumped.hit_count,
                                   today.isoformat(), fitness.hit_count, fitness.last_referenced.isoformat()))
        files.save()
    result.warnings += files.unreadable
    return result


def _why_missing(repo: MemoryRepo, entry_id: str) -> str:
    marker = f"## [{entry_id[:10]}]"
    for rel in repo.markdown_files(names.ARCHIVE):
        text = repo.read(rel) or ""
        if marker in text and any(record.id == entry_id for record in parse(text).records):
            return (f"archived in {repo.repo_path(rel)}; hits count for live entries only "
                    "(restore it to a live file to use it again)")
    return "no live entry has this id; `apm-git search` finds entries by their words"
