"""Task lines of an `attention.md`: `- [status] task text (updated YYYY-MM-DD)` under `## Tasks`.

A task is known by its text (case and spacing aside): setting the status of a known task
rewrites that one line; a new task is added at the end of the Tasks section (which is
created at the end of the file when there is none).  Every other byte stays as it was.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import re

from apm_git.model.records import BOM, newline_of, ready_to_append, split_lines, strip_eol
from apm_git.secret_scan.prefilter import ALLOW_COMMENT

TASKS_HEADING = "## Tasks"
_HEADING = re.compile(r"##\s+tasks\s*", re.IGNORECASE)
_TASK = re.compile(r"\s*[-*] \[(?P<status>[^\]\n]*)\] (?P<rest>.*)", re.DOTALL)
_UPDATED = re.compile(r" \(updated \d{4}-\d{2}-\d{2}\)\Z")


@dataclasses.dataclass(frozen=True)
class TaskEdit:
    text: str  # the whole new file
    line: int  # 1-based line of the task
    added: bool  # True: a new task; False: an existing task's line was rewritten
    previous: str | None  # the old status of an existing task


def _key(task: str) -> str:
    """A task as it is matched: spaces and case aside, and without the mark `--allow-secret` gave it."""
    return " ".join(task.removesuffix(ALLOW_COMMENT).split()).casefold()


def render_task(task: str, status: str, day: dt.date) -> str:
    return f"- [{status}] {task} (updated {day.isoformat()})"


def _task(line: str) -> tuple[str, str] | None:
    """(status, text) of a task line `- [status] text (updated YYYY-MM-DD)`, or None.  The date and the
    spaces at the end are taken off in two linear steps (a lazy text before them would be quadratic)."""
    match = _TASK.fullmatch(line)
    if match is None:
        return None
    rest = match["rest"].rstrip()
    updated = _UPDATED.search(rest)
    return match["status"], rest[:updated.start()] if updated else rest


def set_task(text: str, task: str, status: str, day: dt.date) -> TaskEdit:
    bom = BOM if text.startswith(BOM) else ""
    lines = split_lines(text[len(bom):])
    newline = newline_of(text)
    new_line = render_task(task, status, day)
    heading = next((index for index, line in enumerate(lines) if _HEADING.fullmatch(strip_eol(line))), None)
    if heading is None:
        full = ready_to_append("".join(lines), newline) + TASKS_HEADING + newline + newline + new_line + newline
        return TaskEdit(bom + full, full.count("\n"), True, None)
    end = next((index for index in range(heading + 1, len(lines)) if lines[index].startswith("#")), len(lines))
    for index in range(heading + 1, end):
        found = _task(strip_eol(lines[index]))
        if found and _key(found[1]) == _key(task):
            eol = lines[index][len(strip_eol(lines[index])):]
            lines[index] = render_task(found[1], status, day) + eol
            return TaskEdit(bom + "".join(lines), index + 1, False, found[0])
    last = max((index for index in range(heading, end) if strip_eol(lines[index]).strip()), default=heading)
    insert = [new_line + newline]
    if last == heading:  # no task yet: the first goes under the blank line after the heading
        if last + 1 < len(lines) and not strip_eol(lines[last + 1]).strip():
            last += 1
        else:
            insert.insert(0, newline)
    if not lines[last].endswith("\n"):
        lines[last] += newline
    at = last + 1
    lines[at:at] = insert
    return TaskEdit(bom + "".join(lines), at + len(insert), True, None)
