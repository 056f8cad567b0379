"""Putting one section of an earlier version of a file back into the file as it is now (`apm-git restore
--section`): pure, text in, text out (docs/tracking.md, "Restore")."""
from __future__ import annotations

from apm_git.tracking.outline import OutlinePart, outline


def find_section(text: str, heading: str) -> OutlinePart | None:
    """The first section of `text` whose heading is `heading` (as written, or without its `#` marks)."""
    wanted = _bare(heading)
    return next((part for part in outline(text) if part.heading and _bare(part.heading) == wanted), None)


def put_section(current: str, old: str, heading: str) -> str:
    """`current` with the section `heading` as `old` has it: in its place when `current` has it, else after the
    section that came before it in `old` (or before the one that came after it), else at the end."""
    parts = outline(old)
    index = next((n for n, part in enumerate(parts) if part.heading and _bare(part.heading) == _bare(heading)), None)
    if index is None:
        raise ValueError(f"the earlier version has no section {heading!r}")
    wanted = _ended(parts[index].text, current)
    now = outline(current)
    lines = _line_starts(current)
    here = next((part for part in now if part.heading and _bare(part.heading) == _bare(heading)), None)
    if here is not None:
        start = lines[here.line - 1]
        return current[:start] + wanted + current[start + len(here.text):]
    headings = {part.heading: part for part in now}
    for before in reversed(parts[:index]):
        anchor = headings.get(before.heading)
        if anchor is not None:
            at = lines[anchor.line - 1] + len(anchor.text)
            return _join(current[:at], wanted, current[at:])
    for after in parts[index + 1:]:
        anchor = headings.get(after.heading)
        if anchor is not None and anchor.heading:
            at = lines[anchor.line - 1]
            return _join(current[:at], wanted, current[at:])
    return _join(current, wanted, "")


def _bare(heading: str) -> str:
    return heading.lstrip("#").strip()


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for line in text.removeprefix("\ufeff").splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    offset = 1 if text.startswith("\ufeff") else 0
    return [start + offset for start in starts]


def _ended(section: str, like: str) -> str:
    """The section with a line end (the file's own) after its last line."""
    newline = "\r\n" if "\r\n" in like else "\n"
    return section if section.endswith(("\n", "\r")) else section + newline


def _join(head: str, middle: str, tail: str) -> str:
    """`head`, then `middle` on lines of its own, then `tail`, with a blank line between sections."""
    newline = "\r\n" if "\r\n" in head + tail else "\n"
    if head and not head.endswith(("\n", "\r")):
        head += newline
    if head.strip() and not head.endswith(newline * 2):
        head += newline
    if tail.strip() and not middle.endswith(newline * 2):
        middle += newline
    return head + middle + tail
