"""The loading cap of Claude Code's MEMORY.md (apm_git/tracking/cap.py)."""
from __future__ import annotations

from apm_git.tracking.cap import Limits, measure


def test_under_the_cap_everything_loads() -> None:
    report = measure("MEMORY.md", "# Memory\n" + "- fact\n" * 150, Limits())
    assert not report.over and report.cut == () and report.lines == 151
    assert "all of it loads" in report.summary()


def test_past_200_lines_the_sections_that_do_not_load_are_named() -> None:
    text = "# Memory\n" + "- fact\n" * 190 + "## Deploy\n" + "- step\n" * 20 + "## People\n- Ana\n"
    report = measure("MEMORY.md", text, Limits())
    assert report.over and report.loaded_lines == 200
    assert [(cut.heading, cut.line, cut.partly) for cut in report.cut] == [("## Deploy", 192, True),
                                                                          ("## People", 213, False)]
    assert "lines 201-214 do not load" in report.summary() and "'## People' (line 213)" in report.summary()


def test_the_byte_cap_comes_first_for_long_lines() -> None:
    line = "- " + "x" * 998 + "\n"  # 1,000 bytes
    text = "# Memory\n" + line * 30 + "## Tail\n- t\n"
    report = measure("MEMORY.md", text, Limits())
    assert report.over and report.loaded_lines == 25  # 9 + 24 * 1,000 bytes fit under 25,000; the 25th line does not
    assert [cut.heading for cut in report.cut] == ["# Memory", "## Tail"]


def test_an_index_without_headings_names_its_items() -> None:
    text = "".join(f"- [Topic {n}](topic-{n}.md) — notes\n" for n in range(1, 206))
    report = measure("MEMORY.md", text, Limits(lines=200, bytes=25_000))
    assert [cut.heading for cut in report.cut][:2] == ["- [Topic 201](topic-201.md) — notes",
                                                       "- [Topic 202](topic-202.md) — notes"]
    assert "and 0 more" not in report.summary() and len(report.cut) == 5


def test_the_limits_are_settings() -> None:
    assert measure("MEMORY.md", "a\nb\nc\n", Limits(lines=2, bytes=100)).over
    assert not measure("MEMORY.md", "a\nb\nc\n", Limits(lines=3, bytes=100)).over
