"""`apm-git audit`: proof from Claude Code's own transcripts that every compaction was flushed first.

A transcript (`~/.claude/projects/<project>/<session>.jsonl`) records each compaction as a system
record with `"subtype": "compact_boundary"` (and `compactMetadata.trigger` manual/auto), followed by
the summary as a user record with `"isCompactSummary": true`; a transcript that has summaries but no
boundary records (older versions) counts each summary as a compaction.  The flushes are apm-git's
own commits (trailers `Apm-Trigger`, `Apm-Session`, the commit time), plus the hook flushes that
found nothing to commit, which leave no commit and are noted in `.git/apm-git/hook-flushes.jsonl`.

A compaction is covered by a `pre-compact` flush of the same session after the previous compaction
(or the session's start) and at most TOLERANCE after the boundary was written.  A session end is
covered by any flush of the session at or after its last record.  A session whose last record is
younger than `flush.idle_minutes` is still running and not judged yet.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

from apm_git import clock, git
from apm_git.model import trailers as trailer_model
from apm_git.store.repo import MemoryRepo

TOLERANCE = dt.timedelta(seconds=2)  # commit times have whole seconds
CLEAN_LOG = "hook-flushes.jsonl"
AUDIT_STATE = "audit.json"


@dataclasses.dataclass(frozen=True)
class AuditedFlush:
    session: str
    trigger: str
    time: dt.datetime
    commit: str | None  # None: the hook found nothing to flush


@dataclasses.dataclass
class Compaction:
    session: str
    transcript: str
    line: int
    time: str
    trigger: str | None  # Claude's manual/auto
    flushed_by: str | None  # the commit (or "clean flush at …") that covers it


@dataclasses.dataclass
class SessionEnd:
    session: str
    transcript: str
    time: str
    flushed_by: str | None


@dataclasses.dataclass
class AuditResult:
    transcripts: int
    compactions: list[Compaction]
    session_ends: list[SessionEnd]
    running: list[str]  # sessions still active (not judged)

    @property
    def missing(self) -> int:
        return (sum(item.flushed_by is None for item in self.compactions)
                + sum(item.flushed_by is None for item in self.session_ends))


def parse_time(text: str) -> dt.datetime | None:
    try:
        stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else stamp.astimezone()


def note_clean_flush(repo: MemoryRepo, trigger: str, session: str) -> None:
    """A hook flush with nothing to commit still happened: note it for `audit`."""
    line = json.dumps({"time": clock.now().astimezone().isoformat(), "session": session, "trigger": trigger})
    with (repo.state_dir / CLEAN_LOG).open("a", encoding="utf-8") as log:
        log.write(line + "\n")


def flushes(repo: MemoryRepo) -> dict[str, list[AuditedFlush]]:
    found: dict[str, list[AuditedFlush]] = {}
    if git.head(repo.root) is not None:
        for commit in git.log(repo.root, ["HEAD"]):
            trailers = dict(trailer_model.parse(commit.message))
            trigger, session = trailers.get("Apm-Trigger", "").strip(), trailers.get("Apm-Session", "").strip()
            when = parse_time(commit.date) if trigger and session else None
            if when is not None:
                flush = AuditedFlush(session, trigger, when, commit.sha)
                found.setdefault(flush.session, []).append(flush)
    log = repo.state_dir / CLEAN_LOG
    if log.is_file():
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                data = json.loads(line)
                when = parse_time(data["time"])
                session, trigger = str(data["session"]), str(data["trigger"])
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
            if when is not None:
                found.setdefault(session, []).append(AuditedFlush(session, trigger, when, None))
    return found


def transcripts(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(path.rglob("*.jsonl"))
        elif path.is_file():
            yield path


def _records(path: Path) -> Iterator[tuple[int, dict[str, object]]]:
    with path.open(encoding="utf-8", errors="replace") as stream:
        for number, line in enumerate(stream, 1):
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a crash: the rest still counts
            if isinstance(data, dict):
                yield number, data


def _describe(flush: AuditedFlush) -> str:
    return flush.commit[:12] if flush.commit else f"clean flush at {flush.time.isoformat(timespec='seconds')}"


def audit(repo: MemoryRepo, paths: list[Path]) -> AuditResult:
    known = flushes(repo)
    now = clock.now().astimezone()
    idle = dt.timedelta(minutes=repo.config.flush.idle_minutes)
    result = AuditResult(0, [], [], [])
    for path in transcripts(paths):
        result.transcripts += 1
        sessions: dict[str, list[tuple[int, dt.datetime, str | None, bool]]] = {}  # boundaries and summaries
        first: dict[str, dt.datetime] = {}
        last: dict[str, dt.datetime] = {}
        for number, data in _records(path):
            session = data.get("sessionId") or data.get("session_id") or path.stem
            when = parse_time(str(data.get("timestamp", "")))
            if not isinstance(session, str) or when is None:
                continue
            first.setdefault(session, when)
            last[session] = max(last.get(session, when), when)
            if data.get("type") == "system" and data.get("subtype") == "compact_boundary":
                meta = data.get("compactMetadata")
                trigger = meta.get("trigger") if isinstance(meta, dict) else None
                sessions.setdefault(session, []).append((number, when, str(trigger) if trigger else None, True))
            elif data.get("isCompactSummary") is True:
                sessions.setdefault(session, []).append((number, when, None, False))
        for session, start in first.items():
            marks = sessions.get(session, [])
            boundaries = [mark for mark in marks if mark[3]] or marks
            own = sorted(known.get(session, []), key=lambda flush: flush.time)
            previous = start - TOLERANCE
            for number, when, trigger, _ in boundaries:
                cover = next((flush for flush in own if flush.trigger == "pre-compact"
                              and previous < flush.time <= when + TOLERANCE), None)
                result.compactions.append(Compaction(session, str(path), number, when.isoformat(), trigger,
                                                     _describe(cover) if cover else None))
                previous = when
            if now - last[session] < idle:
                result.running.append(session)
                continue
            end = next((flush for flush in own if flush.time >= last[session] - TOLERANCE), None)
            result.session_ends.append(SessionEnd(session, str(path), last[session].isoformat(),
                                                  _describe(end) if end else None))
    _remember_last(repo, result)
    return result


def _remember_last(repo: MemoryRepo, result: AuditResult) -> None:
    if not result.compactions:
        return
    latest = max(result.compactions, key=lambda item: item.time)
    state = {"audited_at": clock.now().astimezone().isoformat(timespec="seconds"),
             "last_compaction": dataclasses.asdict(latest)}
    from apm_git.store.atomic import write_atomic

    write_atomic(repo.state_dir / AUDIT_STATE, json.dumps(state, indent=2).encode("utf-8"))


def last_audited(repo: MemoryRepo) -> dict[str, object] | None:
    """What `status` shows: the newest compaction the last audit saw, and whether it was flushed."""
    try:
        data = json.loads((repo.state_dir / AUDIT_STATE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None
