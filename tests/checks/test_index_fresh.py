from __future__ import annotations

import datetime as dt
import re

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


def test_older_journals_summarized_by_month_year_or_span_are_listed() -> None:
    """Within a small INDEX.md budget the older journals are summarized; each summary row stands for journals."""
    first = dt.date(2019, 1, 1)
    days = [(first + dt.timedelta(days=7 * number)).isoformat() for number in range(300)]  # 2019 to 2024, weekly
    summaries = [index_md.summarize(f"{day}.md", parse("")) for day in reversed(days)]  # newest first
    journals = {f"{day}.md": "# J\n" for day in days}
    kinds = ["decision", "lesson", "context", "person", "tool"]
    categories = [(kind, name, index_md.summarize(name, parse(text)))
                  for kind, (name, text) in zip(kinds, CATEGORIES.items(), strict=True)]
    for budget, shape in ((110, r"\d{4}-\d{2}"), (40, r"\d{4}"), (28, r"\d{4}-\d{2}-\d{2} … \d{4}-\d{2}-\d{2}")):
        text = index_md.render(dt.date(2024, 10, 1), categories, summaries, [], 850, index_budget=budget)
        assert text.count("\n") <= budget
        reading = index_md.read(text)
        assert reading.periods and all(re.fullmatch(shape, period) for period in reading.periods), reading.periods
        assert all(reading.lists_journal(day) for day in days)
        files = {**CATEGORIES, **journals, "INDEX.md": text}
        assert findings(snapshot({}, {}, unchanged=files), HOOK) == []
    # A period none of whose journals is live any more is named as stale; a live journal no row covers, as missing.
    text = index_md.render(dt.date(2024, 10, 1), categories, summaries, [], 850, index_budget=40)
    gone = {name: text for name, text in journals.items() if not name.startswith("2019")}
    stale = findings(snapshot({}, {}, unchanged={**CATEGORIES, **gone, "INDEX.md": text}), HOOK)
    assert [f.message.split(";")[0] for f in stale] == ["names the journals of 2019, and none of them is live"]
    extra = {**CATEGORIES, **journals, "2025-01-01.md": "# J\n", "INDEX.md": text}
    missing = findings(snapshot({}, {}, unchanged=extra), HOOK)
    assert [f.message.split(";")[0] for f in missing] == ["does not list the journal 2025-01-01.md"]
