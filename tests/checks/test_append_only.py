from __future__ import annotations

import pytest

from apm_git.checks.append_only import first_lost_line
from tests.checks.helpers import findings, snapshot

HOOK = "apm-append-only"
INDEX = ("# DM\n\n| Trigger | File | Priority |\n|---|---|---|\n"
         "| task, todo | attention.md | P0 |\n| who | longterm.md | P1 |\n")


@pytest.mark.parametrize(
    ("new", "lost"),
    [
        (INDEX + "| recap | daily-synced.md | P2 |\n", None),
        (INDEX.replace("| task", "| [DEPRECATED] task"), None),
        (INDEX.replace("| P1 |", "| P1 | [DEPRECATED]"), None),
        (INDEX.replace("# DM\n", "# DM\n\nA note added in the middle.\n"), None),
        (INDEX.replace("| task, todo |", "| task, todo, blocker |"), (5, "| task, todo | attention.md | P0 |")),
        (INDEX.replace("| who | longterm.md | P1 |\n", ""), (5, "| who | longterm.md | P1 |")),  # its last line
        (INDEX.replace("| task", "| [DEPRECATED] chores"), (5, "| task, todo | attention.md | P0 |")),
        (INDEX.replace("\n", "\r\n"), None),
    ],
)
def test_first_lost_line(new: str, lost: tuple[int, str] | None) -> None:
    assert first_lost_line(INDEX, new) == lost


def test_only_append_only_files_are_held_to_it() -> None:
    snap = snapshot({"main/index.md": INDEX, "main/attention.md": "a\nb\n"},
                    {"main/index.md": INDEX + "| more | x.md | P3 |\n", "main/attention.md": "b\n"})
    assert findings(snap, HOOK) == []
    reworded = snapshot({"groups/team.md": INDEX}, {"groups/team.md": INDEX.replace("who", "whom")})
    (finding,) = findings(reworded, HOOK)
    assert (finding.path, finding.line) == ("memory/groups/team.md", 6)
    assert "'| who | longterm.md | P1 |'" in finding.message


def test_deleting_an_append_only_file_is_a_finding() -> None:
    (finding,) = findings(snapshot({"main/index.md": INDEX}, {}), HOOK)
    assert finding.path == "memory/main/index.md" and "deleted" in finding.message
