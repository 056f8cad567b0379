"""docs/dreaming.md says what the code does: trailers and "similar title"."""
from __future__ import annotations

from pathlib import Path

from apm_git.dreaming.items import LABELS
from apm_git.model.titles import MIN_OVERLAP, MIN_WORDS, STOP_WORDS

SECTION = (Path(__file__).resolve().parents[2] / "docs" / "dreaming.md").read_text(encoding="utf-8")


def test_every_trailer_is_documented() -> None:
    for trailer in ("Apm-Promote", "Apm-Archive", "Apm-Supersede", "Apm-Proven", "Apm-Move", "Apm-Trigger"):
        assert f"| `{trailer}` |" in SECTION, trailer


def test_similar_title_is_documented_as_coded() -> None:
    assert f"*{' '.join(sorted(STOP_WORDS))}*" in SECTION.replace("\n", " ")
    assert f"at least {MIN_WORDS} words and share at least {MIN_OVERLAP:.0%}".replace("%", " %") in SECTION
    for label in LABELS:
        assert label.capitalize() in SECTION, label
