"""Task lines in attention.md: added under ## Tasks, or rewritten in place."""
from __future__ import annotations

import datetime as dt

from apm_git.model.tasks import set_task

DAY = dt.date(2026, 4, 6)


def test_first_task_goes_under_the_heading() -> None:
    edit = set_task("# Attention\n\n## Tasks\n\n", "Ship v2", "todo", DAY)
    assert edit.text == "# Attention\n\n## Tasks\n\n- [todo] Ship v2 (updated 2026-04-06)\n"
    assert (edit.line, edit.added) == (5, True)


def test_a_known_task_is_rewritten_in_place_keeping_its_text() -> None:
    text = ("\ufeff# A\r\n\r\n## Tasks\r\n\r\n- [todo] Ship v2 (updated 2026-04-01)\r\n- [x] Other\r\n\r\n"
            "## Notes\r\nn\r\n")
    edit = set_task(text, "ship   V2", "done", DAY)
    assert edit.text == text.replace("- [todo] Ship v2 (updated 2026-04-01)", "- [done] Ship v2 (updated 2026-04-06)")
    assert (edit.line, edit.added, edit.previous) == (5, False, "todo")


def test_a_new_task_goes_after_the_last_one_before_the_next_section() -> None:
    text = "# A\n\n## Tasks\n\n- [x] Other\n\n## Notes\n- [todo] Ship v2\n"
    edit = set_task(text, "Ship v2", "doing", DAY)
    assert edit.text == text.replace("- [x] Other\n", "- [x] Other\n- [doing] Ship v2 (updated 2026-04-06)\n")
    assert edit.line == 6 and edit.added


def test_without_a_tasks_heading_one_is_added_at_the_end() -> None:
    edit = set_task("# Attention\n- old line", "Ship v2", "todo", DAY)
    assert edit.text == "# Attention\n- old line\n\n## Tasks\n\n- [todo] Ship v2 (updated 2026-04-06)\n"
    assert edit.line == 6
