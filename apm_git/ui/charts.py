"""The memory over time, drawn from git history: lines per file against its budget, entries per stage.

The figures come from the history read once and kept by commit id (apm_git/ui/timeline.py): per commit
and file, the lines added and removed and the record headings added and removed.  The charts are SVG
drawn here, on the server: no script, nothing fetched.
"""
from __future__ import annotations

import dataclasses

from apm_git.store.repo import MemoryRepo
from apm_git.ui.pages import e as escape
from apm_git.ui.timeline import Row, stage_of

STAGES = ("journals", "live", "archive")
MAX_POINTS = 300  # per series: a chart is a few hundred pixels wide


@dataclasses.dataclass
class Series:
    """What the charts draw: one x per commit (downsampled), dates for the axis."""

    dates: list[str]
    entries: dict[str, list[int]]  # stage -> entries after each commit
    lines: dict[str, list[int]]  # repo path -> lines after each commit


def series(repo: MemoryRepo, every: list[Row], files: list[str]) -> Series:
    """Entries per stage and the lines of `files` (repo paths) after each commit, downsampled to MAX_POINTS."""
    step = max(1, -(-len(every) // MAX_POINTS))
    lines = dict.fromkeys(files, 0)
    stages = dict.fromkeys(STAGES, 0)
    out = Series([], {stage: [] for stage in STAGES}, {path: [] for path in files})
    stage_cache: dict[str, str | None] = {}
    for index, (_, date, _subject, _trigger, changes) in enumerate(every):
        for path, (added, removed, marked_added, marked_removed) in changes.items():
            if path in lines:
                lines[path] += added - removed
            if path not in stage_cache:
                stage_cache[path] = stage_of(repo, path)
            stage = stage_cache[path]
            if stage is not None:
                stages[stage] += marked_added - marked_removed
        if index % step == 0 or index == len(every) - 1:
            out.dates.append(date[:10])
            for stage in STAGES:
                out.entries[stage].append(stages[stage])
            for path in files:
                out.lines[path].append(lines[path])
    return out


# --- SVG ------------------------------------------------------------------------------------------

COLOURS = {"journals": "#b26b00", "live": "#1f6feb", "archive": "#8250df"}


def _points(values: list[int], width: float, height: float, top: int, left: float = 0, pad: float = 4) -> str:
    if not values:
        return ""
    span = max(1, len(values) - 1)
    scale = (height - 2 * pad) / max(1, top)
    return " ".join(f"{left + i * width / span:.1f},{height - pad - v * scale:.1f}" for i, v in enumerate(values))


def entries_chart(data: Series, width: int = 720, height: int = 220) -> str:
    """Entries per stage after each commit: three lines, a legend, the first and last dates."""
    top = max([1, *(v for values in data.entries.values() for v in values)])
    lines = [
        f'<polyline fill="none" stroke="{COLOURS[stage]}" stroke-width="2" '
        f'points="{_points(values, width - 60, height - 30, top, 50)}"/>'
        for stage, values in data.entries.items()
    ]
    legend = "".join(
        f'<text x="{60 + i * 150}" y="14" fill="{COLOURS[stage]}">{escape(stage)}: '
        f'{values[-1] if values else 0}</text>' for i, (stage, values) in enumerate(data.entries.items())
    )
    axis = (f'<text x="0" y="{height - 30}">0</text><text x="0" y="24">{top}</text>'
            f'<text x="50" y="{height - 8}">{escape(data.dates[0] if data.dates else "")}</text>'
            f'<text x="{width - 90}" y="{height - 8}">{escape(data.dates[-1] if data.dates else "")}</text>')
    return (f'<svg class="chart" role="img" aria-label="entries per stage over time" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
            f'<line x1="50" y1="{height - 30}" x2="{width - 10}" y2="{height - 30}" stroke="#999"/>'
            f'{legend}{axis}{"".join(lines)}</svg>')


def file_chart(path: str, values: list[int], budget: int | None, width: int = 340, height: int = 90) -> str:
    """One file's lines after each commit, with its budget as a dashed line (red when the file passed it)."""
    now = values[-1] if values else 0
    top = max([1, budget or 0, *values])
    over = budget is not None and now > budget
    budget_line = ""
    if budget is not None:
        y = height - 4 - budget * (height - 8) / top
        budget_line = (f'<line x1="0" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#cf222e" '
                       f'stroke-dasharray="4 3"/>')
    label = f"{now}/{budget}" if budget is not None else f"{now} lines"
    return (f'<figure class="spark{" over" if over else ""}"><figcaption>{escape(path)} '
            f'<span>{escape(label)}</span></figcaption>'
            f'<svg role="img" aria-label="{escape(path)} lines over time" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">{budget_line}'
            f'<polyline fill="none" stroke="#1f6feb" stroke-width="1.5" '
            f'points="{_points(values, width, height, top)}"/>'
            f'</svg></figure>')
