"""`apm-git forget ENTRY-ID… --reason TEXT`: the deliberate way to delete an entry (issue 13).

One commit takes the entries out of HEAD's files, with an `Apm-Forget: <id> <file> — <reason>`
trailer each, so `history` shows where each went and apm-no-loss accepts its absence; the
work tree loses the same records (and nothing else).  The commit holds only the forgetting:
HEAD's text less the records, never the work tree's other uncommitted edits.

Order: the work tree first, then the commit, so a kill in between leaves the entries in HEAD
(a flush then keeps them and says so) and never a deletion without its record.
"""
from __future__ import annotations

import dataclasses

from apm_git import git
from apm_git.errors import FindingsError, UsageError
from apm_git.model import names
from apm_git.model import trailers as trailer_model
from apm_git.model.entry_id import is_entry_id
from apm_git.model.records import parse
from apm_git.model.reinsert import drop_records, record_ids
from apm_git.model.snapshot import RECORD_KINDS, file_kind
from apm_git.store.atomic import write_atomic
from apm_git.store.commit import commit
from apm_git.store.repo import MemoryRepo
from apm_git.store.transaction import Transaction
from apm_git.store.writer import write_lock


@dataclasses.dataclass(frozen=True)
class Forgotten:
    entry_id: str
    file: str  # repo-relative: where HEAD held it (else where the work tree did)


@dataclasses.dataclass
class ForgetResult:
    commit: str
    reason: str
    forgotten: list[Forgotten]


def forget(repo: MemoryRepo, entry_ids: list[str], reason: str) -> ForgetResult:
    ids = list(dict.fromkeys(entry_ids))
    bad = [entry for entry in ids if not is_entry_id(entry)]
    if bad:
        raise UsageError(f"{', '.join(map(repr, bad))}: not an entry id; ids look like 2026-04-06-redis-cache-strategy")
    reason = " ".join(reason.split())
    if not reason:
        raise UsageError("--reason must say why the entries are deleted (it goes into the commit)")
    with write_lock(repo):
        in_head = _files_at_head(repo, ids)
        in_tree = _files_in_work_tree(repo, ids)
        where: dict[str, str] = {}
        for files in (in_tree, in_head):  # HEAD's place wins
            for path, text in files.items():
                for entry in set(record_ids(parse(text))) & set(ids):
                    where[entry] = path
        unknown = [entry for entry in ids if entry not in where]
        if unknown:
            raise FindingsError(
                f"no entry {', '.join(unknown)} in the memory or its archive (nor in HEAD); nothing was forgotten — "
                "`apm-git search` finds ids",
            )
        contents: dict[str, bytes | None] = {}
        for path, text in in_head.items():
            kept = drop_records(text, ids)
            if kept != text:
                contents[path] = kept.encode("utf-8", "surrogateescape")
        if not contents:  # only the work tree held them: the commit is the record, its tree is HEAD's
            path = next(iter(in_tree))
            contents[path] = git.cat_files(repo.root, [f"HEAD:{path}"]).get(f"HEAD:{path}")
        trailers = [(trailer_model.FORGET, f"{entry} {where[entry]} — {reason}") for entry in ids]
        trailers += [("Apm-Trigger", "forget"), ("Apm-Scope", "all")]
        tx = Transaction(repo)
        try:
            for path, text in in_tree.items():
                rel = repo.memory_rel(path)
                kept = drop_records(text, ids)
                if rel is not None and kept != text:
                    write_atomic(tx.guard(rel), kept.encode("utf-8"))
            count = f"{len(ids)} entr{'y' if len(ids) == 1 else 'ies'}"
            sha = commit(repo, list(contents), f"forget {count}", trailers, body=reason, contents=contents)
        except BaseException:
            tx.rollback()
            raise
    return ForgetResult(sha, reason, [Forgotten(entry, where[entry]) for entry in ids])


def _markers(ids: list[str]) -> list[str]:
    return sorted({f"## [{entry[:10]}]" for entry in ids})


def _record_file(repo: MemoryRepo, path: str) -> bool:
    rel = repo.memory_rel(path)
    return rel is not None and rel != names.INDEX and file_kind(rel, repo.config) in RECORD_KINDS


def _files_at_head(repo: MemoryRepo, ids: list[str]) -> dict[str, str]:
    """Repo path -> HEAD text of each record file whose text has a heading of one of the ids' dates."""
    if git.head(repo.root) is None:
        return {}
    paths = git.grep_files(repo.root, "HEAD", _markers(ids), [repo.memory_prefix])
    paths = [path for path in paths if _record_file(repo, path)]
    blobs = git.cat_files(repo.root, [f"HEAD:{path}" for path in paths])
    texts = {}
    for path in paths:
        data = blobs.get(f"HEAD:{path}")
        if data is not None:
            texts[path] = data.decode("utf-8", "surrogateescape")
    return texts


def _files_in_work_tree(repo: MemoryRepo, ids: list[str]) -> dict[str, str]:
    """Repo path -> text of each record file in the work tree with a heading of one of the ids' dates.
    A file that holds such a heading but is not UTF-8 is an error (exit 3): nothing is changed."""
    markers = [marker.encode() for marker in _markers(ids)]
    texts = {}
    for rel in repo.markdown_files():
        path = repo.repo_path(rel)
        if not _record_file(repo, path):
            continue
        data = repo.path(rel).read_bytes()
        if any(marker in data for marker in markers):
            texts[path] = repo.read(rel) or ""
    return texts
