"""The scanner's targets on its corpus (issue 14): recall at least 0.95, at most 1 false positive per 1,000 prose lines.

benchmarks/secret_corpus.py measures; this test holds the figures to the targets.  The real
workspaces add 160,000 lines of prose when they are at hand (../shared/realworld/cases).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from apm_git.secret_scan import scan

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from secret_corpus import (
    TARGET_FALSE_PER_1000,
    TARGET_RECALL,
    credentials,
    measure,
    realworld_cases,
)


def test_the_corpus_is_as_large_as_the_issue_asks() -> None:
    rows = credentials()
    assert len(rows) >= 60 and len({kind for kind, _ in rows}) >= 20
    prose = (Path(__file__).parent / "prose.md").read_text(encoding="utf-8")
    assert len(prose.splitlines()) >= 200
    for marker in ("commit=", "<<<EXTERNAL_UNTRUSTED_CONTENT id=", "siteId=", "eyJ"):
        assert marker in prose


def test_recall_and_false_positives_meet_the_targets() -> None:
    figures = measure()
    assert figures.recall >= TARGET_RECALL, figures.missed
    assert figures.false_per_1000 <= TARGET_FALSE_PER_1000, figures.false_positives
    assert figures.missed == [] and figures.false_positives == []  # what the corpus shows today: hold it


@pytest.mark.slow
def test_no_false_positive_on_the_real_workspaces() -> None:
    cases = realworld_cases()
    if cases is None:
        pytest.skip("the real workspaces (../shared/realworld/cases) are not here")
    figures = measure(cases)
    assert figures.prose_lines > 100_000
    assert figures.false_per_1000 <= TARGET_FALSE_PER_1000, figures.false_positives


@pytest.mark.parametrize(
    "line",
    [
        "password=hunter2",
        "DB_PASSWORD=Tr0ub4dor-3x",
        "OPENAI_API_KEY=sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "postgres://user:pa55word@db.internal/db",
    ],
)
def test_what_the_issue_saw_missed_is_caught(line: str) -> None:
    assert scan(line)
