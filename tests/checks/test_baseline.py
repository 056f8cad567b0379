"""The findings baseline: fingerprints that survive moves, budgets by line count, false positives, bad files."""
from __future__ import annotations

import pytest

from apm_git.checks import baseline
from apm_git.checks.run import run_checks
from apm_git.errors import BaselineError
from apm_git.model.snapshot import Finding
from tests.checks.helpers import snapshot

BROKEN = "# Lessons\n\n## [2026-04-06] Broken\n- Tags: lesson\n- Body: no fitness\n"


def with_baseline(files: dict[str, str], known: baseline.Baseline) -> dict[str, str]:
    return {**files, baseline.FILE: known.render()}


def test_a_recorded_finding_is_known_after_lines_move_and_the_file_moves_into_the_archive() -> None:
    snap = snapshot({}, {"lessons.md": BROKEN})
    found = run_checks(snap)
    assert found, "the broken record is a finding to begin with"
    known = baseline.Baseline()
    assert known.add(found, snap.new) >= 1

    moved = "# Lessons\n\nA note above.\n\n" + BROKEN.split("\n\n", 1)[1]
    assert run_checks(snapshot({}, with_baseline({"lessons.md": moved}, known))) == []
    archived = snapshot({}, with_baseline({"archive/lessons.md": moved}, known))
    assert [f for f in run_checks(archived) if f.hook == "apm-record-format" and f.line == 5] == []


def test_a_new_finding_of_the_same_kind_on_another_line_is_reported() -> None:
    snap = snapshot({}, {"lessons.md": BROKEN})
    known = baseline.Baseline()
    known.add(run_checks(snap), snap.new)
    worse = BROKEN + "\n## [2026-04-07] Also broken\n- Tags: lesson\n"
    new = run_checks(snapshot({}, with_baseline({"lessons.md": worse}, known)))
    assert new and all(finding.line >= 7 for finding in new)


def test_a_budget_finding_is_known_until_the_file_grows_past_the_recorded_count() -> None:
    text = "# People\n" + "- someone\n" * 120
    snap = snapshot({}, {"people.md": text})
    known = baseline.Baseline()
    known.add(run_checks(snap), snap.new)
    assert known.render().count('"lines": 121') == 1
    assert run_checks(snapshot({}, with_baseline({"people.md": text[:-10]}, known))) == []
    (grown,) = run_checks(snapshot({}, with_baseline({"people.md": text + "- one more\n"}, known)))
    assert grown.hook == "apm-budget" and "122/100" in grown.message
    everything = run_checks(snapshot({}, with_baseline({"people.md": text[:-10]}, known)), baseline_too=True)
    assert [finding.hook for finding in everything] == ["apm-index-fresh", "apm-budget"]


def test_a_false_positive_never_withholds_and_a_plain_known_secret_still_does() -> None:
    finding = Finding("memory/notes.md", 2, "apm-no-secrets", "looks like a credential")
    text = "# Notes\nsession id=0123456789abcdef0123456789abcdef\n"
    plain, marked = baseline.Baseline(), baseline.Baseline()
    plain.add([finding], {finding.path: text})
    marked.add([finding], {finding.path: text}, false_positive=True)
    for known, withheld in ((plain, [finding]), (marked, [])):
        snap = snapshot({}, with_baseline({"notes.md": text}, known))
        assert baseline.withheld_secrets(snap, [finding]) == (withheld, [])
    edited = text.replace("0123", "9999")
    snap = snapshot({}, with_baseline({"notes.md": edited}, marked))
    assert baseline.withheld_secrets(snap, [finding]) == ([finding], [finding]), "an edited line is new again"


def test_the_file_round_trips_sorted_and_holds_no_line_of_memory() -> None:
    snap = snapshot({}, {"lessons.md": BROKEN})
    known = baseline.Baseline()
    known.add(run_checks(snap), snap.new)
    text = known.render()
    assert "Broken" not in text and "no fitness" not in text
    assert baseline.parse(text).render() == text


@pytest.mark.parametrize(("text", "says"), [
    ("{", "not valid JSON"),
    ('{"version": 2, "findings": []}', '"version": 1'),
    ('{"version": 1, "findings": [{"path": "x"}]}', "finding 1 needs a check"),
])
def test_a_baseline_that_cannot_be_read_is_an_error_naming_the_file_and_the_fix(text: str, says: str) -> None:
    snap = snapshot({}, {"lessons.md": BROKEN, baseline.FILE: text})
    with pytest.raises(BaselineError) as raised:
        run_checks(snap)
    assert says in str(raised.value) and "memory/apm-baseline.json" in str(raised.value)
    assert raised.value.exit_code == 3
    assert baseline.unreadable(snap) is not None and run_checks(snap), "flush carries on as if there were none"
