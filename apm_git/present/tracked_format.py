"""Tracked folders as text: `track`, `track --list`, `snapshot`, `restore`, `status`, `sync` and `diff`
(docs/tracking.md).  What a folder holds is the agent's text: each value (a fact, a heading, a file name) is
put on its line through apm_git/printable.py, so it can never drive the terminal or a CI runner."""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from apm_git.printable import one_line
from apm_git.review.words import plain, word_diff

if TYPE_CHECKING:
    from apm_git.commands.restore import RestoreResult
    from apm_git.commands.snapshot import Outcome
    from apm_git.commands.track import Listed, TrackResult
    from apm_git.commands.tracked_status import TrackedStatus
    from apm_git.operations.snapshot import TrackedSnapshot
    from apm_git.operations.tracked_diff import TrackedReview
    from apm_git.operations.tracked_sync import TrackedSync
    from apm_git.tracking.facts import FactChange, TrackedSectionChange

TEXT_WIDTH = 160  # characters of a fact shown on its line


visible = one_line  # a value of the folder's, on its line


def home(path: str) -> str:
    """A path under the home folder as `~/…`."""
    base = str(Path.home())
    return "~" + path[len(base):] if path == base or path.startswith(base + "/") else path


def _one_line(text: str) -> str:
    line = " ⏎ ".join(part.strip() for part in text.splitlines() if part.strip())
    line = visible(line)
    return line if len(line) <= TEXT_WIDTH else line[:TEXT_WIDTH - 1] + "…"


def track_text(result: TrackResult) -> str:
    tracked = result.tracked
    lines = [f"apm-git: tracking {home(tracked.folder)} ({tracked.agent}, id {tracked.id})",
             f"apm-git: history in {home(str(tracked.git_dir))} ({'new' if result.created else 'resumed'})"]
    lines += snapshot_lines(result.snapshot)
    if tracked.identity:
        lines.append(f"apm-git: project identity {tracked.identity}" + (f", synced with {tracked.remote}"
                                                                       if tracked.remote else ""))
    lines += [f"apm-git: NOTE: {note}" for note in result.notes]
    return "\n".join(lines)


def snapshot_lines(shot: TrackedSnapshot) -> list[str]:
    where = home(shot.tracked.folder)
    if shot.commit is None:
        lines = [f"apm-git: {where}: {shot.skipped or 'nothing changed'}"]
    else:
        count = len(shot.files)
        lines = [f"apm-git: snapshot {shot.commit[:12]} of {where} ({shot.trigger}, {count} file"
                 f"{'s' if count != 1 else ''}{', made while no session ran' if shot.background else ''})"]
    return lines


def warnings(shot: TrackedSnapshot) -> list[str]:
    """The lines a user must see: withheld files and the loading cap."""
    lines = [f"apm-git: WARNING: {shot.tracked.folder}/{visible(item.path)}"
             f"{':' + str(item.line) if item.line else ''} is NOT in the snapshot: {item.why}"
             for item in shot.withheld]
    if shot.cap is not None and shot.cap.over:
        lines.append(f"apm-git: WARNING: {visible(shot.cap.summary())}")
    return lines


def outcomes_text(outcomes: Sequence[Outcome]) -> str:
    lines = []
    for outcome in outcomes:
        if outcome.snapshot is None:
            lines.append(f"apm-git: {home(outcome.tracked.folder)}: {outcome.error}")
        else:
            lines += snapshot_lines(outcome.snapshot)
    return "\n".join(lines) if lines else "apm-git: no folder is tracked; `apm-git track AGENT` starts one"


def listing_text(listed: Sequence[Listed], broken: Sequence[str]) -> str:
    if not listed and not broken:
        return "apm-git: no folder is tracked; `apm-git track claude-code|codex|openclaw` starts one"
    lines = []
    for item in listed:
        tracked = item.tracked
        state = "" if tracked.active else "  (untracked: history kept)"
        last = f"last {item.last[:16].replace('T', ' ')} ({item.last_trigger})" if item.last else "no snapshot"
        lines.append(f"{tracked.id}  {tracked.agent}  {home(tracked.folder)}{state}")
        lines.append(f"    {item.snapshots} snapshot{'s' if item.snapshots != 1 else ''}, {last}; identity "
                     f"{tracked.identity or '(none: give --name to sync)'}; remote {tracked.remote or '(none)'}")
        if item.problem:
            lines.append(f"    PROBLEM: {item.problem}")
    lines += [f"apm-git: WARNING: {problem}" for problem in broken]
    return "\n".join(lines)


def restore_text(result: RestoreResult) -> str:
    lines = []
    if result.before.commit:
        lines.append(f"apm-git: the folder as it was is snapshot {result.before.commit[:12]}")
    for item in result.restored:
        what = f"section {visible(item.section)!r} of {item.path}" if item.section else item.path
        lines.append(f"apm-git: restored {what} from {item.source[:12]}")
    lines += [f"apm-git: {path} already is as asked: left as it is" for path in result.unchanged]
    if result.after.commit:
        lines.append(f"apm-git: snapshot {result.after.commit[:12]} (restore)")
    return "\n".join(lines)


def status_text(result: TrackedStatus) -> str:
    tracked = result.tracked
    lines = [f"Tracked folder: {home(tracked.folder)} ({tracked.agent}, id {tracked.id})"
             + ("" if tracked.active else " — untracked, history kept")]
    if result.last_commit:
        lines.append(f"Snapshots: {result.snapshots}, the newest {result.last_commit[:12]} "
                     f"{(result.last_date or '')[:16].replace('T', ' ')} ({result.last_trigger})")
    lines.append(f"Changed since: {', '.join(visible(path) for path in result.changed[:10]) or 'nothing'}"
                 + (f" and {len(result.changed) - 10} more" if len(result.changed) > 10 else ""))
    lines.append(f"Sessions running: {result.sessions}")
    for item in result.withheld:
        lines.append(f"WITHHELD: {visible(item.path)}{':' + str(item.line) if item.line else ''}: {item.why}")
    if result.cap is not None:
        lines.append(("LOADING CAP: " if result.cap.over else "Loading cap: ") + visible(result.cap.summary()))
    lines.append(f"Sync: {tracked.remote or 'no remote'}" + (f", branch {result.branch}" if result.branch else
                                                             ", no identity (give --name)"))
    return "\n".join(lines)


def sync_text(result: TrackedSync) -> str:
    lines = []
    if result.snapshot:
        lines.append(f"apm-git: snapshot {result.snapshot[:12]} of the folder first")
    if result.kind == "fast-forward":
        lines.append(f"apm-git: took {result.branch} ({(result.incoming or '')[:12]}): a fast-forward")
    elif result.kind == "merge":
        lines.append(f"apm-git: merged {result.branch} ({(result.incoming or '')[:12]}) as {(result.after or '')[:12]}")
    if result.written:
        lines.append(f"apm-git: wrote {len(result.written)} file(s) into the folder: "
                     + ", ".join(visible(path) for path in result.written[:10]))
    if result.pushed:
        lines.append(f"apm-git: pushed {(result.after or '')[:12]} to {result.remote} {result.branch}"
                     + (" (created it)" if result.created_branch else ""))
    elif result.up_to_date:
        lines.append(f"apm-git: up to date with {result.remote} {result.branch}")
    return "\n".join(lines)


def diff_text(review: TrackedReview) -> str:
    tracked = review.tracked
    lines = [f"apm-git diff of {home(tracked.folder)} ({tracked.agent}): {_name(review.base_name)}.."
             f"{_name(review.new_name)}", _headline(review)]
    groups = [("Removed", "removed"), ("Rewritten", "rewritten"), ("Moved", "moved"), ("Added", "added")]
    for title, status in groups:
        facts = [fact for fact in review.facts if fact.status == status]
        if facts:
            lines.append(f"{title} facts:")
            lines += [f"  {_fact_line(fact)}" for fact in facts]
    if review.sections:
        lines.append("Sections:")
        lines += [f"  {_section_line(section)}" for section in review.sections]
    if review.files:
        lines.append("Files:")
        for stat in review.files:
            sizes = f"{'-' if stat.lines_before is None else stat.lines_before} -> " \
                    f"{'-' if stat.lines_after is None else stat.lines_after} lines"
            moved = f" (from {visible(stat.old_path)})" if stat.old_path else ""
            lines.append(f"  {stat.status:<9} {visible(stat.path)}{moved}  {sizes}")
    background = review.background
    if background:
        lines.append(f"BACKGROUND: {len(background)} of these removals or rewrites were made while no "
                     f"{tracked.agent} session ran (a background consolidation?): undo one with `apm-git restore "
                     "FILE` or `apm-git restore FILE --section HEADING`")
    if review.snapshots:
        from apm_git.review.render import log_text

        lines.append("Snapshots in between:")
        lines += [f"  {line}" for line in log_text(review.snapshots).splitlines()]
    return "\n".join(lines)


def _name(name: str) -> str:
    return name[:12] if re.fullmatch(r"[0-9a-f]{40}", name) else name


def _headline(review: TrackedReview) -> str:
    parts = []
    for status in ("removed", "rewritten", "moved", "added"):
        count = sum(1 for fact in review.facts if fact.status == status)
        if count:
            parts.append(f"{count} fact{'s' if count != 1 else ''} {status}")
    if review.sections:
        parts.append(f"{len(review.sections)} section change{'s' if len(review.sections) != 1 else ''}")
    parts.append(f"{len(review.files)} file{'s' if len(review.files) != 1 else ''}")
    return ", ".join(parts) if review.facts or review.sections or review.files else "no changes"


def _where(file: str, heading: str) -> str:
    return visible(f"{file} › {heading}" if heading else file)


def _origin(change: TrackedSectionChange | FactChange) -> str:
    if not change.background and change.commit is None:
        return ""
    where = f"snapshot {change.commit[:12]}" if change.commit else "not snapshotted yet"
    return f"  [{'BACKGROUND, ' if change.background else ''}{where}]"


def _fact_line(fact: FactChange) -> str:
    where = _where(fact.file, fact.section)
    if fact.status == "rewritten" and fact.before is not None:
        return f"{where}: {_one_line(plain(word_diff(fact.before, fact.text)))}{_origin(fact)}"
    if fact.status == "moved":
        return f"{visible(fact.source or '')} -> {where}: {_one_line(fact.text)}{_origin(fact)}"
    return f"{where}: {_one_line(fact.text)}{_origin(fact)}"


def _section_line(section: TrackedSectionChange) -> str:
    facts = f"{section.facts_before} -> {section.facts_after} facts"
    extra = ""
    if section.status == "moved":
        extra = f" (from {visible(section.source or '')})"
    elif section.status == "renamed":
        extra = f" (was {visible(section.source or '')!r})"
    heading = visible(section.heading) if section.heading else "(top of the file)"
    return f"{section.status:<8} {visible(section.file)} › {heading}{extra}  {facts}{_origin(section)}"
