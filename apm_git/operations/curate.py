"""A person's change to one entry — edit, a committed hit, restore from the archive — as one commit.

The commit holds only that change: HEAD's text of each file it touches with the change made,
never the work tree's other uncommitted edits (which the next flush commits).  The work tree
takes the same change, through the landing journal (store/landing.py), so a kill loses nothing.
Before the branch moves, the built commit goes through the checks `lint` runs
(operations/recheck.py): a change that would lose an entry, break the record format or make a
file over its budget longer is refused in one line, and nothing is changed.

`apm-git edit`, `apm-git hit --commit`, `apm-git restore` and the page (`apm-git ui`) call these.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

from apm_git import clock, git
from apm_git.dreaming.edit import append_texts, rewrite
from apm_git.errors import FindingsError, UsageError
from apm_git.model import dated, names
from apm_git.model.entry_id import is_entry_id
from apm_git.model.fitness import Fitness
from apm_git.model.records import Record, RecordFile, parse, reparse, set_field, split_lines, strip_eol
from apm_git.operations.recheck import refuse_findings
from apm_git.store.commit import commit
from apm_git.store.landing import Update
from apm_git.store.repo import MemoryRepo
from apm_git.store.writer import write_lock

RESTORE = "Apm-Restore"  # `<id> <archive file> -> <live file>`


@dataclasses.dataclass(frozen=True)
class Curated:
    verb: str  # edit, hit, restore
    entry_ids: list[str]
    files: list[str]  # repo-relative
    commit: str


@dataclasses.dataclass
class _Found:
    path: str  # repo-relative
    head: str  # HEAD's text of the file
    record: Record  # the entry as HEAD has it


def check_id(entry_id: str) -> None:
    if not is_entry_id(entry_id):
        raise UsageError(f"{entry_id!r} is not an entry id; ids look like 2026-04-06-redis-cache-strategy "
                         "(`apm-git search` finds them)")


def find_committed(repo: MemoryRepo, entry_id: str, *, archived: bool | None = None) -> _Found:
    """Where HEAD holds the entry (`archived`: only in the archive, or only outside it); one line when nowhere."""
    check_id(entry_id)
    if git.head(repo.root) is None:
        raise FindingsError(f"no commits yet, so no committed {entry_id}; run `apm-git flush` first")
    archive = repo.repo_path(names.ARCHIVE) + "/"
    paths = git.grep_files(repo.root, "HEAD", [f"## [{entry_id[:10]}]"], [repo.memory_prefix])
    paths = [path for path in paths if archived is None or path.startswith(archive) == archived]
    blobs = git.cat_files(repo.root, [f"HEAD:{path}" for path in paths])
    for path in paths:
        data = blobs.get(f"HEAD:{path}")
        text = "" if data is None else data.decode("utf-8", "surrogateescape")
        for record in parse(text).records:
            if record.date and record.title and record.id == entry_id:
                return _Found(path, text, record)
    where = "in the archive" if archived else "in the live memory" if archived is False else "in the memory"
    raise FindingsError(f"no committed entry {entry_id} {where}; `apm-git search` finds ids "
                        "(an entry not committed yet: `apm-git flush` first)")


def replace_entry(text: str, entry_id: str, change: Callable[[Record], str | None]) -> str | None:
    """`text` with the entry's record replaced by `change(record)` (None: taken out); None when it lacks the entry."""
    parsed = parse(text)
    for index, block in enumerate(parsed.blocks):
        if isinstance(block, Record) and block.date and block.title and block.id == entry_id:
            new = change(block)
            return rewrite(parsed, {index: None if new is None else _block(new)})
    return None


def _block(text: str) -> Record:
    lines = split_lines(text)
    return reparse(lines)


def land_change(
    repo: MemoryRepo, verb: str, entry_ids: list[str], texts: dict[str, tuple[str, str | None]],
    subject: str, trailers: list[tuple[str, str]], body: str | None = None,
) -> Curated:
    """Commit `texts` (repo path -> (HEAD's text after, the work tree's text after or None: leave it)), checked
    before the branch moves; then the work tree files take their new text where they still hold what was read."""
    contents = {path: after.encode("utf-8", "surrogateescape") for path, (after, _) in texts.items()}
    updates = []
    for path, (_, tree_after) in texts.items():
        if tree_after is None:
            continue
        target = repo.root / path
        before = target.read_bytes() if target.is_file() else None
        updates.append(Update(path, before, tree_after.encode("utf-8", "surrogateescape")))
    base = git.head(repo.root)
    assert base is not None
    sha = commit(
        repo, list(contents), subject, [*trailers, ("Apm-Trigger", verb), ("Apm-Scope", "all")], body,
        contents=contents, updates=updates,
        before_landing=lambda built: refuse_findings(repo, base, built, verb),
    )
    return Curated(verb, entry_ids, sorted(texts), sha)


def _tree_text(repo: MemoryRepo, path: str) -> str | None:
    rel = repo.memory_rel(path)
    return None if rel is None else repo.read(rel)


def _with_change(repo: MemoryRepo, found: _Found, entry_id: str,
                 change: Callable[[Record], str | None]) -> tuple[str, str | None]:
    head_after = replace_entry(found.head, entry_id, change)
    assert head_after is not None
    tree = _tree_text(repo, found.path)
    tree_after = None if tree is None else replace_entry(tree, entry_id, change)
    return head_after, tree_after


# --- the changes -------------------------------------------------------------------------------

def record_text(repo: MemoryRepo, entry_id: str) -> str:
    """The entry's record as HEAD holds it (what `apm-git edit ENTRY-ID` prints, to edit)."""
    return "".join(_trimmed(find_committed(repo, entry_id).record)).rstrip("\r\n")


def edit(repo: MemoryRepo, entry_id: str, new_text: str) -> Curated:
    """Replace the entry's record with `new_text` (one well-formed record with the same id)."""
    check_id(entry_id)
    record = _edited(entry_id, new_text)
    with write_lock(repo):
        found = find_committed(repo, entry_id)
        if record.lines == _trimmed(found.record):
            raise FindingsError(f"the edit leaves {entry_id} as it is; nothing was changed")

        def change(old: Record) -> str:
            newline = old.newline
            tail = old.lines[len(_trimmed(old)):]
            return "".join(strip_eol(line) + newline for line in record.lines) + "".join(tail or [newline])

        texts = {found.path: _with_change(repo, found, entry_id, change)}
        trailer = ("Apm-Edit", f"{entry_id} {found.path}")
        return land_change(repo, "edit", [entry_id], texts, f"edit {entry_id}", [trailer])


def _edited(entry_id: str, new_text: str) -> Record:
    parsed = parse(new_text.replace("\r\n", "\n").strip("\n") + "\n")
    records = [block for block in parsed.blocks if isinstance(block, Record)]
    if parsed.preamble.text.strip() or len(parsed.blocks) != 1 or len(records) != 1:
        raise UsageError("the new text must be one record: `## [YYYY-MM-DD] Title` and its fields, nothing else")
    record = records[0]
    if record.id != entry_id:
        raise FindingsError(
            f"the edit changes the entry's id to {record.id}, which would lose {entry_id}; keep its date and title "
            f"(or add the new entry, then `apm-git forget {entry_id} --reason TEXT`)",
        )
    if not record.ok:
        problem = record.problems[0]
        raise FindingsError(f"the edit breaks the record format (line {problem.line}: {problem.message}); "
                            "nothing was changed")
    return reparse(_trimmed(record))


def _trimmed(record: Record) -> list[str]:
    lines = list(record.lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def hit_committed(repo: MemoryRepo, entry_ids: list[str]) -> Curated:
    """`hit` (hit_count + 1, last_referenced today) of live entries, as one commit."""
    for entry_id in entry_ids:
        check_id(entry_id)
    ids = list(dict.fromkeys(entry_ids))
    today = clock.today()

    def bump(record: Record) -> str:
        fitness = record.fitness
        if fitness is None:
            raise FindingsError(f"{record.id} has no valid Fitness line; fix it (`apm-git lint` says how), then retry")
        return "".join(set_field(record, "Fitness", Fitness(today, fitness.hit_count + 1,
                                                             fitness.decision_value).render()).lines)

    with write_lock(repo):
        texts: dict[str, tuple[str, str | None]] = {}
        for entry_id in ids:
            found = find_committed(repo, entry_id, archived=False)
            if found.path in texts:
                head, tree = texts[found.path]
                found.head = head
                head_after = replace_entry(head, entry_id, bump)
                assert head_after is not None
                tree_after = None if tree is None else replace_entry(tree, entry_id, bump)
                texts[found.path] = (head_after, tree_after)
            else:
                texts[found.path] = _with_change(repo, found, entry_id, bump)
        count = f"{len(ids)} entr{'y' if len(ids) == 1 else 'ies'}"
        return land_change(repo, "hit", ids, texts, f"hit {count}", [("Apm-Hit", entry_id) for entry_id in ids])


def restore(repo: MemoryRepo, entry_id: str) -> Curated:
    """Move an archived entry back to the live file it was archived from (its `Archived:` field says which;
    else the file its kind is routed to), without `Archived:`, referenced today: REM scores it afresh."""
    check_id(entry_id)
    today = clock.today()
    with write_lock(repo):
        found = find_committed(repo, entry_id, archived=True)
        target = _restore_target(repo, found.record)
        lines = [line for offset, line in enumerate(found.record.lines)
                 if not any(field.offset == offset and field.name == "Archived" for field in found.record.fields)]
        record = reparse(lines)
        fitness = record.fitness
        if fitness is not None:
            record = set_field(record, "Fitness", Fitness(today, fitness.hit_count, fitness.decision_value).render())
        restored = "".join(strip_eol(line) + "\n" for line in _trimmed(record))
        texts: dict[str, tuple[str, str | None]] = {found.path: _with_change(repo, found, entry_id, lambda _: None)}
        target_path = repo.repo_path(target)
        head_target = git.cat_files(repo.root, [f"HEAD:{target_path}"]).get(f"HEAD:{target_path}")
        head_text = "" if head_target is None else head_target.decode("utf-8", "surrogateescape")
        tree_text = repo.read(target)
        texts[target_path] = (_appended(head_text, restored),
                              None if tree_text is None and head_target is not None else
                              _appended(tree_text or "", restored))
        trailer = (RESTORE, f"{entry_id} {found.path} -> {target_path}")
        return land_change(repo, "restore", [entry_id], texts, f"restore {entry_id}", [trailer])


def _appended(text: str, record: str) -> str:
    parsed: RecordFile = parse(text)
    newline = parsed.newline
    return append_texts(text, [record.replace("\n", newline)], newline)


def _restore_target(repo: MemoryRepo, record: Record) -> str:
    stamp = record.field("Archived") or ""
    source = stamp.rsplit(" from ", 1)[-1].rstrip(")").strip() if " from " in stamp else ""
    rel = repo.memory_rel(source) or source
    live = rel.endswith(".md") and dated.journal_date(rel) is None and not rel.startswith(f"{names.ARCHIVE}/")
    if live and ".." not in rel.split("/"):
        return rel
    routed = repo.config.routing.get(record.kind)
    if routed is None:
        raise FindingsError(f"{record.id} does not say which file it was archived from, and its kind "
                            f"{record.kind or '(none)'!r} has no routing; move it by hand, then flush")
    return routed
