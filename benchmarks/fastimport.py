"""Write a planned synthetic history: every file's text, and the commits as one `git fast-import` stream.

`Replay` replays the planned commits in order (planning.py decided what each one adds or
archives) and builds each commit's files and message; `write_history` feeds them to git.
Stdlib only.
"""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import IO

from planning import CATEGORIES, EXPERIENCE_BUDGET, JOURNAL_BUDGET, JOURNAL_DAYS, MEMORY, CommitPlan, Planner, weighted
from vocabulary import BODIES, TITLES, TOPICS, slugify, task_line, vocabulary

IDENT = "apm-git <apm-git@example.invalid>"
BRANCH = "main"
PROVEN_SHARE = 0.05
MAX_SLUG = 60  # apm_git.model.entry_id truncates longer slugs; stay below so ids stay unique
HOT_FILES = ("decisions.md", "project-context.md")
SEARCH_HINTS = {
    "lessons.md": "bug root causes, workarounds",
    "people.md": "preferences, roles",
    "tools-config.md": "commands, env, proxy",
}
TRIGGERS = (("session-end", 45), ("pre-compact", 30), ("idle", 15), ("manual", 10))
VALUE_POINTS = {"HIGH": 50, "MEDIUM": 25, "LOW": 0}


@dataclass
class Entry:
    eid: str
    title: str
    core: str  # header and fields, without the blank line that follows
    archive: bool
    source: str
    day: date
    last_referenced: date
    hits: int
    value: str
    proven: bool

    def score(self, today: date) -> int:
        recency = max(0, 100 - (today - self.last_referenced).days)
        return recency + min(50, 5 * self.hits) + VALUE_POINTS[self.value] + (30 if self.proven else 0)


class Writer:
    """Builds every file's text as the planned commits are replayed."""

    def __init__(self, rng: random.Random, end: date) -> None:
        self.rng = rng
        self.end = end
        self.counter = 100
        self.records: dict[str, list[Entry]] = {}
        self.preamble: dict[str, str] = {}
        self.archive_text: dict[str, list[str]] = {}
        self.touched_on: dict[str, date] = {}

    def entry(self, kind: str, path: str, day: date, created: date, *, archive: bool, journal: bool) -> Entry:
        rng = self.rng
        self.counter += 1
        fill = vocabulary(rng, rng.choice(TOPICS))
        tag = fill["tag"]
        base = rng.choice(TITLES[kind]).format(**fill)
        base = base[0].upper() + base[1:]
        ticket = f"({tag.upper()}-{self.counter})"
        title = f"{base} {ticket}"
        while len(slugify(title)) > MAX_SLUG and " " in base:
            base = base.rsplit(" ", 1)[0]
            title = f"{base} {ticket}"
        body = rng.choice(BODIES[kind]).format(**fill)
        proven = not (archive or journal) and rng.random() < PROVEN_SHARE
        if archive:  # low value and long unreferenced by the time REM archives it
            value = "MEDIUM" if rng.random() < 0.3 else "LOW"
            hits = rng.randint(0, 3)
            last = day + timedelta(days=rng.randint(0, min(14, (created - day).days)))
        elif journal:
            value = rng.choice(("HIGH", "MEDIUM", "MEDIUM", "LOW"))
            hits = rng.randint(0, 2)
            last = min(self.end, day + timedelta(days=rng.randint(0, 2)))
        else:
            value = rng.choice(("HIGH", "HIGH", "MEDIUM", "MEDIUM", "LOW"))
            hits = rng.randint(0, 12)
            last = self.end - timedelta(days=int((self.end - day).days * rng.random() ** 2))
        if proven:
            value = "HIGH"
            hits = max(hits, rng.randint(5, 24))
        extra = [tag, slugify(fill["t"])]
        if rng.random() < 0.4:
            extra.append(slugify(fill["x"]))
        tags = ", ".join(dict.fromkeys([kind, *extra]))
        marker = "[PROVEN] " if proven else ""
        core = (f"## [{day.isoformat()}] {marker}{title}\n"
                f"- Tags: {tags}\n"
                f"- Fitness: last_referenced={last.isoformat()}, hit_count={hits}, decision_value={value}\n"
                f"- Body: {body}\n")
        return Entry(f"{day.isoformat()}-{slugify(title)}", title, core, archive, path, day, last, hits, value,
                     proven)

    def render(self, path: str) -> str:
        return self.preamble[path] + "".join(e.core + "\n" for e in self.records[path])

    def lines(self, path: str) -> int:
        return self.render(path).count("\n")


class Stream:
    def __init__(self, sink: IO[bytes]) -> None:
        self.sink = sink
        self.sink.write(b"feature done\n")

    @staticmethod
    def _data(text: str) -> bytes:
        raw = text.encode("utf-8")
        return b"data %d\n%s\n" % (len(raw), raw)

    def commit(self, when: int, message: str, files: Iterable[tuple[str, str]]) -> None:
        parts = [
            f"commit refs/heads/{BRANCH}\n".encode(),
            f"author {IDENT} {when} +0000\n".encode(),
            f"committer {IDENT} {when} +0000\n".encode(),
            self._data(message),
        ]
        for path, text in files:
            parts.append(f"M 100644 inline {path}\n".encode())
            parts.append(self._data(text))
        parts.append(b"\n")
        self.sink.write(b"".join(parts))

    def done(self) -> None:
        self.sink.write(b"done\n")


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX"):
        env.pop(key, None)
    return env


def _iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


def _day(ts: int) -> date:
    return datetime.fromtimestamp(ts, tz=timezone.utc).date()


def _flush_state(groups_ts: int, main_ts: int) -> str:
    state = {
        "groups": {"last_flush_time": _iso(groups_ts)},
        "main_session": {"last_flush_time": _iso(main_ts)},
        "pending_items": [],
    }
    return json.dumps(state, indent=2) + "\n"


def _group_index(g: str) -> str:
    return (
        f"# Group memory: {g}\n\n"
        "## Hard Rules\n\n"
        "- This index is the only entry point; load one file at a time.\n"
        "- At most 2 P0-P2 files and 1 P3 file per session.\n\n"
        "## Routing\n\n"
        "| Trigger keywords | File | Priority |\n"
        "|---|---|---|\n"
        "| task, todo, blocker, deadline, urgent | attention.md | P0 |\n"
        "| project, stack, architecture, roadmap | project.md | P1 |\n"
        "| decision, lesson, why, how did we, incident | experience.md | P2 |\n"
        "| who, owner, contact, role | people.md | P3 |\n"
    )


def _attention(title: str, tasks: list[str]) -> str:
    return f"# {title}\n\n" + "".join(f"- {t}\n" for t in tasks)


def _index_md(writer: Writer, journals: list[str], end: date) -> str:
    out = [
        "# Memory Index\n",
        f"> Last rebuilt: {end.isoformat()} | Total files: {len(CATEGORIES) + len(journals)} | "
        "Budget: 4000 tokens\n",
        "\n## Hot Files (load on session start)\n\n",
        "| File | Lines | Last Updated | Recent Entries |\n",
        "|------|-------|-------------|----------------|\n",
    ]

    def recent(path: str, n: int = 2) -> str:
        titles = [re.sub(r" \([A-Z]+-\d+\)$", "", e.title) for e in writer.records[path][-n:]]
        return ", ".join(titles) or "-"

    def updated(path: str) -> str:
        return writer.touched_on[path].isoformat() if path in writer.touched_on else "-"

    for name in HOT_FILES:
        path = f"{MEMORY}/{name}"
        out.append(f"| {name} | {writer.lines(path)} | {updated(path)} | {recent(path)} |\n")
    out += [
        "\n## On-Demand Files (load when relevant)\n\n",
        "| File | Lines | Last Updated | Search Hint |\n",
        "|------|-------|-------------|-------------|\n",
    ]
    for name, hint in SEARCH_HINTS.items():
        path = f"{MEMORY}/{name}"
        out.append(f"| {name} | {writer.lines(path)} | {updated(path)} | {hint} |\n")
    out += [
        "\n## Daily Journals\n\n",
        "| Date | Exists | Key Events |\n",
        "|------|--------|------------|\n",
    ]
    for path in reversed(journals):
        day = Path(path).stem
        out.append(f"| {day} | ✅ | {recent(path)} |\n")
    return "".join(out)


def _scope(paths: list[str]) -> str:
    groups = {p.split("/")[2] for p in paths if p.startswith(f"{MEMORY}/groups/")}
    if len(groups) == 1 and all(p.startswith(f"{MEMORY}/groups/") for p in paths):
        return f"group:{groups.pop()}"
    if all(p.startswith(f"{MEMORY}/main/") for p in paths):
        return "main"
    return "all"


def _init_files(writer: Writer, groups: list[str], attention: dict[str, list[str]],
                attention_title: dict[str, str], when: int) -> list[tuple[str, str]]:
    files = [
        ("apm.yaml", "# apm-git configuration (synthetic benchmark repository)\nmemory_dir: memory\n"),
        (f"{MEMORY}/INDEX.md", _index_md(writer, [], _day(when))),
    ]
    files += [(f"{MEMORY}/{name}", writer.render(f"{MEMORY}/{name}")) for name, _, _, _ in CATEGORIES]
    rooms = {f"room-{i + 1:04d}": g for i, g in enumerate(groups)}
    files.append((f"{MEMORY}/group_names.json", json.dumps(rooms, indent=2) + "\n"))
    files.append((f"{MEMORY}/flush-state.json", _flush_state(when, when)))
    for g in groups:
        base = f"{MEMORY}/groups/{g}"
        files += [
            (f"{base}.md", _group_index(g)),
            (f"{base}/attention.md", _attention(attention_title[f"{base}/attention.md"],
                                                attention[f"{base}/attention.md"])),
            (f"{base}/project.md", f"# Project: {g}\n\nStack, architecture and milestones of {g}.\n"),
            (f"{base}/experience.md", writer.render(f"{base}/experience.md")),
            (f"{base}/people.md", f"# People: {g}\n\nTeam roles and contacts for {g}.\n"),
        ]
    files += [
        (f"{MEMORY}/main/index.md",
         "# DM memory index\n\n## Routing\n\n| Trigger keywords | File | Priority |\n|---|---|---|\n"
         "| task, todo, blocker, today | attention.md | P0 |\n"
         "| background, preference, history, long-term | longterm.md | P1 |\n"),
        (f"{MEMORY}/main/attention.md", _attention(attention_title[f"{MEMORY}/main/attention.md"],
                                                   attention[f"{MEMORY}/main/attention.md"])),
        (f"{MEMORY}/main/longterm.md",
         "# Long-term memory\n\nDistilled from MEMORY.md: the user works on a SaaS platform and prefers short, "
         "reviewed changes.\n"),
    ]
    return files


class Replay:
    """The planned commits replayed in order: what each one writes, and its message."""

    def __init__(self, planner: Planner, rng: random.Random, start: date, end: date) -> None:
        self.rng = rng
        self.start = start
        self.groups = planner.groups
        self.journal_paths = [f"{MEMORY}/{(end - timedelta(days=JOURNAL_DAYS - 1 - d)).isoformat()}.md"
                              for d in range(JOURNAL_DAYS)]
        self.real_path = {f"#journal{d}": self.journal_paths[d] for d in range(JOURNAL_DAYS)}
        self.budgets = {f"{MEMORY}/{name}": budget for name, _, _, budget in CATEGORIES}
        self.budgets.update(dict.fromkeys(self.journal_paths, JOURNAL_BUDGET))
        self.budgets.update({f"{MEMORY}/groups/{g}/experience.md": EXPERIENCE_BUDGET for g in self.groups})
        self.kinds = {f.path: f.kinds for f in planner.sources}
        self.kinds.update({self.real_path[f.path]: f.kinds for f in planner.journal_files})
        self.end = end
        writer = self.writer = Writer(rng, end)
        for name, title, _, _ in CATEGORIES:
            writer.preamble[f"{MEMORY}/{name}"] = f"# {title}\n\n"
        for g in self.groups:
            writer.preamble[f"{MEMORY}/groups/{g}/experience.md"] = f"# Experience: {g}\n\n"
        for p in self.journal_paths:
            writer.preamble[p] = f"# Journal {Path(p).stem}\n\n"
        for p in writer.preamble:
            writer.records[p] = []
        self.attention = {path: [task_line(rng, start), task_line(rng, start)]
                          for path in [f"{MEMORY}/main/attention.md"]
                          + [f"{MEMORY}/groups/{g}/attention.md" for g in self.groups]}
        self.attention_title = {p: ("Attention (DM)" if "/main/" in p else f"Attention: {p.split('/')[2]}")
                                for p in self.attention}
        self.entry_ids: list[str] = []
        self.archived_ids: list[str] = []
        self.last_group_ts = planner.plans[0].when
        self.session = 0
        self.session_open = False
        self.note_count = 0

    def notes(self) -> list[tuple[str, str]]:
        """`note_count` free-form notes under `notes/` (no records): the files a person keeps beside
        the categories, which INDEX.md lists and every flush looks at."""
        return [(f"{MEMORY}/notes/note-{n:04d}.md",
                 f"# Note {n}\n\n## Context\n\nWhy note {n} was kept: {self.rng.choice(TOPICS)[0]}.\n\n"
                 f"## Details\n\n- See the {self.rng.choice(TOPICS)[0]} runbook.\n")
                for n in range(self.note_count)]

    def commit(self, plan: CommitPlan) -> tuple[str, list[tuple[str, str]]]:
        """The message and the files (path, text) of one planned commit."""
        if plan.kind == "init":
            return "memory: init\n", _init_files(self.writer, self.groups, self.attention, self.attention_title,
                                                 plan.when) + self.notes()
        if plan.kind == "rem":
            return self._rem(plan, _day(plan.when))
        return self._flush(plan, _day(plan.when))

    def _rem(self, plan: CommitPlan, day: date) -> tuple[str, list[tuple[str, str]]]:
        """The planned records leave their files for `archive/<month>.md`, one `Apm-Archive` trailer each."""
        writer = self.writer
        files: list[tuple[str, str]] = []
        trailers: list[str] = []
        month = f"{MEMORY}/archive/{day:%Y-%m}.md"
        moved = writer.archive_text.setdefault(month, [])
        for src in plan.rem_files:
            gone = [e for e in writer.records[src] if e.archive]
            if not gone:
                continue
            writer.records[src] = [e for e in writer.records[src] if not e.archive]
            for e in gone:
                score = e.score(day)
                moved.append(
                    f"{e.core}- Archived: {day.isoformat()} (fitness score: {score}, "
                    f"last_referenced: {e.last_referenced.isoformat()}, from {src})\n\n")
                trailers.append(f"Apm-Archive: {e.eid} {src} -> {month} (score {score})")
                self.archived_ids.append(e.eid)
            files.append((src, writer.render(src)))
            writer.touched_on[src] = day
        files.append((month, f"# Archive {day:%Y-%m}\n\n" + "".join(moved)))
        n = len(trailers)
        return f"memory: rem archive {n} entr{'y' if n == 1 else 'ies'}\n\n" + "\n".join(trailers) + "\n", files

    def _flush(self, plan: CommitPlan, day: date) -> tuple[str, list[tuple[str, str]]]:
        """New records in the planned files (or a task in an attention file); the last flush also writes
        the state file and INDEX.md."""
        rng, writer = self.rng, self.writer
        files: list[tuple[str, str]] = []
        for key, flags in plan.touches.items():
            path = self.real_path.get(key, key)
            if path in (f"{MEMORY}/INDEX.md", f"{MEMORY}/flush-state.json"):
                continue
            journal = key in self.real_path
            for archive in flags:
                kind = weighted(rng, self.kinds[path])
                if journal:
                    rec_day = date.fromisoformat(Path(path).stem)
                elif archive:  # promoted from an older journal, then left unreferenced
                    rec_day = max(self.start, day - timedelta(days=rng.randint(0, 60)))
                else:
                    rec_day = max(self.start, day - timedelta(days=rng.choice((0, 0, 0, 1, 2))))
                e = writer.entry(kind, path, rec_day, day, archive=archive, journal=journal)
                writer.records[path].append(e)
                self.entry_ids.append(e.eid)
            files.append((path, writer.render(path)))
            writer.touched_on[path] = day
            if writer.lines(path) >= self.budgets[path]:
                raise RuntimeError(f"bug: {path} reached its line budget at {day}")
        if plan.attention:
            tasks = self.attention[plan.attention]
            tasks.append(task_line(rng, day))
            del tasks[:-6]
            files.append((plan.attention, _attention(self.attention_title[plan.attention], tasks)))
        if any("/groups/" in p for p, _ in files):
            self.last_group_ts = plan.when
        if plan.final:
            files.append((f"{MEMORY}/flush-state.json", _flush_state(self.last_group_ts, plan.when)))
            files.append((f"{MEMORY}/INDEX.md", _index_md(writer, self.journal_paths, self.end)))
        if not self.session_open:
            self.session += 1
        trigger = weighted(rng, TRIGGERS)
        self.session_open = trigger == "pre-compact" and not plan.final
        if plan.final:
            trigger = "session-end"
        message = (f"memory: flush {len(files)} file{'' if len(files) == 1 else 's'} ({trigger})\n\n"
                   f"Apm-Trigger: {trigger}\nApm-Scope: {_scope([p for p, _ in files])}\n"
                   f"Apm-Session: sess-{self.session:04d}\n")
        return message, files


def write_history(out_dir: Path, plans: list[CommitPlan], replay: Replay) -> None:
    """A new repository in `out_dir` holding the planned commits, written by one `git fast-import`."""
    git_env = _git_env()
    subprocess.run(["git", "init", "-q", "-b", BRANCH, str(out_dir)], check=True, env=git_env)
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=out_dir, stdin=subprocess.PIPE,
                                stderr=errors, env=git_env)
        assert proc.stdin is not None
        try:
            stream = Stream(proc.stdin)
            for plan in plans:
                message, files = replay.commit(plan)
                stream.commit(plan.when, message, files)
            stream.done()
            proc.stdin.close()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if proc.wait() != 0:
            errors.seek(0)
            raise RuntimeError("git fast-import failed: " + errors.read().decode("utf-8", "replace").strip())
    subprocess.run(["git", "reset", "--hard", "-q"], cwd=out_dir, check=True, env=git_env)
