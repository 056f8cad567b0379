from __future__ import annotations

import datetime as dt

from apm_git.model import index_md
from apm_git.model.records import parse
from tests.checks.helpers import findings, record, snapshot

HOOK = "apm-index-fresh"
CATEGORIES = {name: f"# {name}\n" for name in
              ("decisions.md", "lessons.md", "project-context.md", "people.md", "tools-config.md")}


def index(journals: list[str], extra_rows: str = "") -> str:
    kinds = ["decision", "lesson", "context", "person", "tool"]
    summaries = [(kind, name, index_md.summarize(name, parse(text)))
                 for kind, (name, text) in zip(kinds, CATEGORIES.items(), strict=True)]
    days = [index_md.summarize(journal, parse("")) for journal in journals]
    text = index_md.render(dt.date(2026, 4, 6), summaries, days, [], 850)
    return text + extra_rows


def test_a_fresh_index_passes_and_lagging_figures_are_fine() -> None:
    files = {**CATEGORIES, "2026-04-06.md": "# J\n", "INDEX.md": index(["2026-04-06.md"])}
    edited = {"decisions.md": CATEGORIES["decisions.md"] + record("2026-04-06", "New")}
    assert findings(snapshot({"decisions.md": CATEGORIES["decisions.md"]}, edited, unchanged=files), HOOK) == []


def test_a_row_for_a_missing_file_and_a_missing_journal_row() -> None:
    stale = index(["2026-04-05.md"]).replace("| lessons.md |", "| lessons-old.md |")
    files = {**CATEGORIES, "2026-04-06.md": "# J\n", "INDEX.md": stale}
    found = findings(snapshot({}, {}, unchanged=files), HOOK)
    assert {f.message.split(";")[0] for f in found} == {
        "names lessons-old.md, which does not exist",
        "names the journal 2026-04-05.md, which does not exist",
        "does not list the category file lessons.md",
        "does not list the journal 2026-04-06.md",
    }
    assert all(f.path == "memory/INDEX.md" for f in found)


def test_malformed_tables_and_a_missing_index() -> None:
    files = {**CATEGORIES, "INDEX.md": index([]).replace("| File | Lines | Last Updated | Recent Entries |", "| F |")}
    (finding,) = findings(snapshot({}, {}, unchanged=files), HOOK)
    assert "table header must be" in finding.message and finding.line == 7
    (missing,) = findings(snapshot({}, {}, unchanged=CATEGORIES), HOOK)
    assert "index is missing" in missing.message
