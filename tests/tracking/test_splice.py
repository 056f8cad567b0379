"""Putting a section of an earlier version back (apm_git/tracking/splice.py)."""
from __future__ import annotations

import pytest

from apm_git.tracking.splice import find_section, put_section

OLD = "# M\n- a\n\n## Deploy\n- make deploy\n- fridays\n\n## Prefs\n- tabs\n"


def test_a_removed_section_goes_back_where_it_was() -> None:
    current = "# M\n- a\n\n## Prefs\n- tabs\n- new\n"
    assert put_section(current, OLD, "## Deploy") == "# M\n- a\n\n## Deploy\n- make deploy\n- fridays\n\n" \
                                                    "## Prefs\n- tabs\n- new\n"


def test_a_changed_section_gets_its_old_text() -> None:
    current = "# M\n- a\n\n## Deploy\n- changed\n\n## Prefs\n- tabs\n"
    assert put_section(current, OLD, "Deploy") == OLD


def test_with_no_neighbour_left_it_goes_at_the_end() -> None:
    assert put_section("other\n", OLD, "## Prefs") == "other\n\n## Prefs\n- tabs\n"


def test_crlf_files_stay_crlf() -> None:
    old = OLD.replace("\n", "\r\n")
    current = "# M\r\n- a\r\n"
    result = put_section(current, old, "## Deploy")
    assert "\n" not in result.replace("\r\n", "")


def test_a_section_the_old_version_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="no section"):
        put_section("x\n", OLD, "## Nowhere")
    assert find_section(OLD, "## Nowhere") is None and find_section(OLD, "prefs") is None
